"""Manifest.from_function: the seed's examples, JSON output and the official SDK's shapes."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from appclient import Tool, manifest, manifest_parameter
from appclient._manifest import Manifest
from appclient._manifest._coerce import tools_to_wire
from appclient._manifest._official_shape import normalize_tool
from tests.conftest import load_request_fixture

from .samples import get_current_weather

SEED_DESCRIPTION = (
    "获取指定中国城市的当前天气信息。仅支持中国城市的天气查询。"
    "参数 `location` 为中国城市名称，其他国家城市不支持天气查询。"
)


@manifest(description=SEED_DESCRIPTION)
@manifest_parameter(name="location", description="城市名，例如：北京。")
@manifest_parameter(name="unit", description="温度单位，支持 'celsius' 或 'fahrenheit'")
def decorated_weather(location: str, unit: str) -> str:
    """The seed's decorator example (方式3)."""
    return "北京今天25度"


def test_docstring_example_properties_and_descriptions():
    """方式2: location and unit come with their Args: descriptions."""
    properties = Manifest.from_function(get_current_weather)["function"]["parameters"]["properties"]
    assert properties == {
        "location": {"type": "string", "description": '城市名，例如："北京"。'},
        "unit": {"type": "string", "description": '温度单位，支持 "celsius" 或 "fahrenheit"。'},
    }


def test_docstring_example_description_has_no_args_block():
    """方式2: the description is the prose and the return line, without the Args: block."""
    description = Manifest.from_function(get_current_weather)["function"]["description"]
    assert description == (
        "获取指定中国城市的当前天气信息。\n\n"
        "仅支持中国城市的天气查询。参数 `location` 为中国城市名称，其他国家城市不支持天气查询。"
        "\n\n返回天气情况描述"
    )
    assert "Args" not in description


def test_docstring_example_json_dumps_cleanly():
    """方式2: the seed's json.dumps(..., indent=4, ensure_ascii=False) works."""
    text = json.dumps(Manifest.from_function(get_current_weather), indent=4, ensure_ascii=False)
    assert json.loads(text)["function"]["name"] == "get_current_weather"


def test_decorator_example_descriptions():
    """方式3: the decorator's descriptions are used."""
    function = Manifest.from_function(decorated_weather)["function"]
    assert function["description"].startswith("获取指定中国城市的当前天气信息。")
    assert function["parameters"]["properties"]["location"]["description"] == "城市名，例如：北京。"
    assert function["parameters"]["properties"]["unit"]["description"] == (
        "温度单位，支持 'celsius' 或 'fahrenheit'"
    )


def test_decorator_example_json_dumps_cleanly():
    """方式3: the seed's print(json.dumps(...)) works."""
    text = json.dumps(Manifest.from_function(decorated_weather), indent=4, ensure_ascii=False)
    assert "城市名，例如：北京。" in text


@pytest.mark.parametrize("func", [get_current_weather, decorated_weather])
def test_wire_model_accepts_the_manifest(func):
    """appclient.Tool (what AppClient.run sends) accepts the manifest as it is."""
    tool = Tool.model_validate(Manifest.from_function(func))
    assert tool.function is not None
    assert tool.function.name == func.__name__


def test_manifest_is_a_plain_dict_with_extras():
    """The manifest is a dict; the return description is an attribute, not a wire key."""
    tool = Manifest.from_function(get_current_weather)
    assert isinstance(tool, dict)
    assert set(tool) == {"type", "function"}
    assert tool.return_description == "天气情况描述"
    assert (tool.name, tool.parameters["required"]) == ("get_current_weather", ["location", "unit"])


def test_strict_option():
    """from_function(strict=True) gives the strict form."""
    schema = Manifest.from_function(get_current_weather, strict=True).parameters
    assert schema["additionalProperties"] is False


@pytest.mark.parametrize(
    ("fixture", "func"),
    [
        ("04_run_tools_manifest_from_function", get_current_weather),
        ("05_run_tools_manifest_decorator", decorated_weather),
    ],
)
def test_same_parameters_as_the_official_sdk(fixture, func):
    """Normalised, the official SDK's recorded manifest has our names, types and required."""
    official = normalize_tool(load_request_fixture(fixture)["sdk_result"]["manifest"])
    ours = Manifest.from_function(func, name="get_current_weather")
    theirs = official["function"]["parameters"]
    mine = ours["function"]["parameters"]
    assert mine["required"] == theirs["required"]
    assert {k: v["type"] for k, v in mine["properties"].items()} == {
        k: v["type"] for k, v in theirs["properties"].items()
    }


def test_official_sdk_on_the_same_function():
    """Where the official SDK is installed, its manifest lists the same parameters."""
    appbuilder = pytest.importorskip("appbuilder")
    official = appbuilder.Manifest.from_function(get_current_weather).model_dump()
    theirs = normalize_tool(official)["function"]["parameters"]
    mine = Manifest.from_function(get_current_weather)["function"]["parameters"]
    assert list(mine["properties"]) == list(theirs["properties"])
    assert mine["required"] == theirs["required"]


def test_client_run_body_accepts_manifests_and_functions():
    """AppClient.run's tools= conversion takes the manifest, and the bare function, as is."""
    wire = tools_to_wire([Manifest.from_function(get_current_weather), decorated_weather])
    assert wire[0] == Manifest.from_function(get_current_weather)
    assert wire[1] == Manifest.from_function(decorated_weather)
    json.dumps(wire, allow_nan=False)


def test_manifest_survives_deepcopy():
    """A deep copy (as the official-shape normaliser makes) keeps the tool and its extras."""
    tool = Manifest.from_function(get_current_weather)
    copied = copy.deepcopy(tool)
    assert copied == tool
    assert copied.return_description == "天气情况描述"


def test_manifest_survives_pickling():
    """A pickled manifest comes back equal, with its return schema."""
    data = pickle.dumps(Manifest.from_function(get_current_weather))
    restored = pickle.loads(data)  # noqa: S301 - bytes pickled by this test
    assert restored == Manifest.from_function(get_current_weather)
    assert restored.return_schema == {"type": "string"}


def test_manifest_has_the_official_type_and_function_attributes():
    """manifest.type and manifest.function read like the official pydantic Manifest's."""
    tool = Manifest.from_function(decorated_weather)
    assert tool.type == "function"
    assert tool.function["name"] == "decorated_weather"
    assert tool.function is tool["function"]


def test_manifest_model_dump_is_a_plain_copy():
    """manifest.model_dump() gives a plain dict equal to the tool, detached from it."""
    tool = Manifest.from_function(decorated_weather)
    dumped = tool.model_dump()
    assert type(dumped) is dict
    assert dumped == tool
    dumped["function"]["name"] = "changed"
    assert tool.name == "decorated_weather"


def test_manifest_model_dump_json_matches_pydantic_formatting():
    """manifest.model_dump_json(indent=4) prints like pydantic's, Chinese kept as is."""
    tool = Manifest.from_function(decorated_weather)
    assert tool.model_dump_json(indent=4) == json.dumps(tool, indent=4, ensure_ascii=False)
    compact = tool.model_dump_json()
    assert json.loads(compact) == tool
    assert "\n" not in compact
    assert ": " not in compact.replace(SEED_DESCRIPTION, "")
    assert "城市名" in compact


def test_manifest_model_dump_refuses_field_selection():
    """model_dump(exclude=...) raises rather than return the fields it was asked to leave out."""
    tool = Manifest.from_function(decorated_weather)
    with pytest.raises(TypeError, match="exclude"):
        tool.model_dump(exclude={"function"})
    with pytest.raises(TypeError, match="include"):
        tool.model_dump_json(include={"type"})
    assert tool.model_dump(mode="json", exclude_none=True) == tool
