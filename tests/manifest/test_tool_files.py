"""save_tools / load_tools: the JSON files the Java and Go examples read."""

from __future__ import annotations

import json

import pytest

from appclient import ManifestError, Tool
from appclient._manifest import build_tool_spec, load_tools, save_tools
from tests.conftest import load_request_fixture
from tests.seed import SEED_JAVA_TOOL

from .samples import get_current_weather, scalars

#: The tool file of the seed's Java example, verbatim.
JAVA_EXAMPLE = SEED_JAVA_TOOL


def test_one_tool_is_written_as_an_object(tmp_path):
    """A single tool saved to a .json file is one object, as the Java example reads."""
    path = tmp_path / "weather.json"
    save_tools(get_current_weather, path)
    data = json.loads(path.read_text("utf-8"))
    assert data["function"]["name"] == "get_current_weather"


def test_file_is_utf8_without_escapes(tmp_path):
    """Chinese text is written as UTF-8, not as escape sequences."""
    path = tmp_path / "weather.json"
    save_tools(get_current_weather, path)
    assert "城市名" in path.read_text("utf-8")


def test_round_trip_through_a_file(tmp_path):
    """Saving then loading a list of tools gives the same tools."""
    tools = [build_tool_spec(get_current_weather).to_tool(), build_tool_spec(scalars).to_tool()]
    save_tools(tools, tmp_path / "tools.json")
    assert load_tools(tmp_path / "tools.json") == tools


def test_round_trip_through_a_folder(tmp_path):
    """Saving to a folder writes <name>.json per tool; loading the folder reads them all."""
    written = save_tools([get_current_weather, scalars], tmp_path / "tools")
    assert sorted(p.name for p in written) == ["get_current_weather.json", "scalars.json"]
    loaded = load_tools(tmp_path / "tools")
    assert [t["function"]["name"] for t in loaded] == ["get_current_weather", "scalars"]


def test_load_the_seed_java_tool_file(tmp_path):
    """The seed's Java tool file loads unchanged and fits the wire model."""
    path = tmp_path / "tool.json"
    path.write_text(json.dumps(JAVA_EXAMPLE, ensure_ascii=False), "utf-8")
    [tool] = load_tools(path)
    assert tool == JAVA_EXAMPLE
    Tool.model_validate(tool)


def test_load_normalises_the_official_shape(tmp_path):
    """A file in the official SDK's Manifest shape is normalised to JSON Schema."""
    official = load_request_fixture("04_run_tools_manifest_from_function")["sdk_result"]["manifest"]
    path = tmp_path / "official.json"
    path.write_text(json.dumps(official, ensure_ascii=False), "utf-8")
    [tool] = load_tools(path)
    location = tool["function"]["parameters"]["properties"]["location"]
    assert location["type"] == "string"
    assert "required" not in location


def test_save_accepts_specs_and_wire_models(tmp_path):
    """A ToolSpec and a Tool model are saved like dicts."""
    spec = build_tool_spec(get_current_weather)
    save_tools([spec, Tool.model_validate(JAVA_EXAMPLE)], tmp_path / "both.json")
    assert [t["function"]["name"] for t in load_tools(tmp_path / "both.json")] == [
        "get_current_weather",
        "get_cur_whether",
    ]


def test_invalid_json_names_the_file(tmp_path):
    """A file that is not JSON fails naming the file."""
    path = tmp_path / "broken.json"
    path.write_text("{not json", "utf-8")
    with pytest.raises(ManifestError, match=r"broken\.json"):
        load_tools(path)


def test_deeply_nested_json_is_invalid_json(tmp_path):
    """A file nested past the parser's depth fails as not JSON, not with a RecursionError."""
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000, "utf-8")
    with pytest.raises(ManifestError, match=r"deep\.json is not valid JSON"):
        load_tools(path)


def test_invalid_name_states_the_rule(tmp_path):
    """A tool with an invalid name fails with the naming rule."""
    bad = json.loads(json.dumps(JAVA_EXAMPLE))
    bad["function"]["name"] = "has space"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), "utf-8")
    with pytest.raises(ManifestError, match="1 to 64 characters"):
        load_tools(path)


def test_duplicate_names_are_refused(tmp_path):
    """Two files defining the same tool name are refused."""
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text(json.dumps(JAVA_EXAMPLE), "utf-8")
    with pytest.raises(ManifestError, match="appears twice"):
        load_tools(tmp_path)


def test_unnamed_tools_do_not_overwrite_each_other_in_a_folder(tmp_path):
    """Two tools without a function name would share tool.json: refused, nothing written."""
    tools = [{"type": "code_interpreter"}, {"type": "web_search"}]
    with pytest.raises(ManifestError, match=r"saved as tool\.json, .*; save them to one"):
        save_tools(tools, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert load_tools(save_tools(tools, tmp_path / "all.json")[0]) == tools


def test_missing_path_is_an_error(tmp_path):
    """Loading from a path that does not exist fails clearly."""
    with pytest.raises(ManifestError, match="no tool file"):
        load_tools(tmp_path / "nothing.json")


def test_non_object_tool_is_refused(tmp_path):
    """A list entry that is not an object is refused naming its index, as any other tool is."""
    path = tmp_path / "list.json"
    path.write_text(json.dumps([JAVA_EXAMPLE, 3]), "utf-8")
    with pytest.raises(ManifestError, match=r"list\.json\[1\] must be a tool \(.*, got int$"):
        load_tools(path)


def test_saved_file_has_the_usual_permissions(tmp_path):
    """A saved tool file gets the mode any new file gets (umask), not a private 0600."""
    reference = tmp_path / "reference.json"
    reference.write_text("{}", encoding="utf-8")
    path = tmp_path / "weather.json"
    save_tools(get_current_weather, path)
    assert path.stat().st_mode & 0o777 == reference.stat().st_mode & 0o777


def test_upper_case_json_suffix_is_a_file(tmp_path):
    """save_tools to TOOLS.JSON writes that file (not a folder named TOOLS.JSON) and loads back."""
    path = tmp_path / "TOOLS.JSON"
    save_tools(get_current_weather, path)
    assert path.is_file()
    assert [tool["function"]["name"] for tool in load_tools(tmp_path)] == ["get_current_weather"]
