"""Lagent habits: its tool descriptions, decorators, actions, switches and typed results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from appclient import Manifest, ManifestError, ToolRegistry, manifest, manifest_return
from appclient._manifest._official_shape import normalize_tool
from tests.test_seed_examples import list_args

#: The first bytes of a PNG file, enough to be recognised as one.
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16

BOLD = {
    "name": "bold",
    "description": "make text bold",
    "parameters": [{"name": "text", "type": "STRING", "description": "input text"}],
    "required": ["text"],
    "return_data": [{"name": "bold_text", "description": "bold text", "type": "STRING"}],
}

LIST_ARGS = {
    "name": "list_args",
    "description": "Return arguments in dict format",
    "parameters": [
        {"name": "a", "type": "STRING", "description": "a"},
        {"name": "b", "type": "NUMBER", "description": "b"},
        {"name": "c", "type": "FLOAT", "description": "c"},
    ],
    "required": ["a", "b"],
}


def bold(text: str) -> str:
    """Make text bold."""
    return "**" + text + "**"


def test_a_list_form_description_becomes_json_schema() -> None:
    """Parameters, their Lagent types and the required names become a JSON Schema tool."""
    function = normalize_tool(LIST_ARGS)["function"]
    assert function["parameters"] == {
        "type": "object",
        "properties": {
            "a": {"type": "string", "description": "a"},
            "b": {"type": "integer", "description": "b"},
            "c": {"type": "number", "description": "c"},
        },
        "required": ["a", "b"],
    }


def test_named_return_values_are_told_to_the_agent() -> None:
    """return_data (returns_named_value / explode_return) reaches the tool's description."""
    description = normalize_tool(BOLD)["function"]["description"]
    assert description == "make text bold. Returns bold_text (string): bold text."


def test_a_list_form_description_registers_a_function_and_dispatches() -> None:
    """registry.add(func, tool=<Lagent description>) advertises it and runs the function."""
    registry = ToolRegistry()
    registry.add(bold, tool=BOLD)
    (advertised,) = registry.tools()
    assert advertised["function"]["parameters"]["required"] == ["text"]
    call = {"id": "1", "function": {"name": "bold", "arguments": {"text": "hi"}}}
    assert registry.dispatch([call])[0].output == "**hi**"


class Bold:
    """Make text bold."""

    def run(self, text: str) -> str:
        """Make text bold.

        Args:
            text: The text.
        """
        return "**" + text + "**"


def test_an_action_object_with_a_run_method_registers_as_itself() -> None:
    """An object with run (Lagent's BaseAction) is a tool named after its class."""
    registry = ToolRegistry([Bold()])
    assert registry.names() == ["Bold"]
    assert registry("Bold", '{"text": "hi"}').output == "**hi**"


def test_the_registry_runs_a_tool_by_name_like_lagents_executor() -> None:
    """registry("name", "{json}") runs one call and returns its record; errors are records."""
    registry = ToolRegistry([bold])
    assert registry("bold", {"text": "a"}).output == "**a**"
    missing = registry("nope", "{}")
    assert missing.is_error
    assert "nope" in missing.output


@manifest
def plain_bold(text: str) -> str:
    """Make text bold.

    Args:
        text (str): input text

    Returns:
        str: bold text
    """
    return "**" + text + "**"


@manifest(returns_named_value=True)
def named_bold(text: str) -> str:
    """Make text bold.

    Args:
        text (str): input text

    Returns:
        bold_text (str): bold text
    """
    return "**" + text + "**"


def test_a_decorated_function_has_lagents_api_description() -> None:
    """@manifest functions carry .api_description in Lagent's list-of-parameters form."""
    assert plain_bold.api_description == {  # type: ignore[attr-defined]
        "name": "plain_bold",
        "description": "Make text bold.",
        "parameters": [{"name": "text", "type": "STRING", "description": "input text"}],
        "required": ["text"],
    }


def test_a_named_return_value_is_return_data_and_told_to_the_agent() -> None:
    """returns_named_value: return_data names the value; the agent reads its name and type."""
    assert named_bold.api_description["return_data"] == [  # type: ignore[attr-defined]
        {"name": "bold_text", "description": "bold text", "type": "STRING"}
    ]
    tool = Manifest.from_function(named_bold)
    assert tool.description.endswith("Returns bold_text (string): bold text.")
    assert tool.return_schema == {
        "type": "string",
        "title": "bold_text",
        "description": "bold text",
    }


def test_exploded_returns_describe_each_member() -> None:
    """explode_return: each listed member is in the description and the return schema."""
    tool = Manifest.from_function(list_args)
    assert tool.description.endswith("Returns a (string): a; b (integer): b; c: c.")
    assert tool.return_schema == {
        "type": "object",
        "properties": {
            "a": {"type": "string", "description": "a"},
            "b": {"type": "integer", "description": "b"},
            "c": {"description": "c"},
        },
    }


def test_a_return_schema_from_manifest_return_is_told_to_the_agent() -> None:
    """@manifest_return(schema=...) with properties reaches the description the agent reads."""

    @manifest_return(
        description="The weather.",
        schema={"type": "object", "properties": {"temp": {"type": "number", "description": "C"}}},
    )
    def weather(city: str) -> dict[str, float]:
        """Get the weather."""
        return {"temp": 1.0}

    description = Manifest.from_function(weather).description
    assert description == "Get the weather.\n\nReturns the weather: temp (number): C."


def test_named_returns_without_a_named_value_are_a_clear_error() -> None:
    """returns_named_value with a Returns section that names nothing says what to write."""

    @manifest(returns_named_value=True)
    def unnamed(text: str) -> str:
        """Bold.

        Returns:
            str: bold text
        """
        return text

    with pytest.raises(ManifestError, match="name \\(type\\): what it is"):
        Manifest.from_function(unnamed)


def test_named_and_exploded_returns_exclude_each_other() -> None:
    """Both return keywords at once is refused when decorating."""
    with pytest.raises(ManifestError, match="exclude each other"):
        manifest(returns_named_value=True, explode_return=True)


def test_a_disabled_tool_is_neither_advertised_nor_callable_until_enabled() -> None:
    """enable=False keeps the tool registered but off; set_enabled switches it on."""
    registry = ToolRegistry()
    registry.add(bold, enable=False)
    assert registry.tools() == []
    assert registry.names() == ["bold"]
    refused = registry("bold", {"text": "a"})
    assert refused.is_error
    assert "no tool named 'bold'" in refused.output
    registry.set_enabled("bold", enabled=True)
    assert [t["function"]["name"] for t in registry.tools()] == ["bold"]
    assert registry("bold", {"text": "a"}).output == "**a**"


def test_an_action_whose_enable_is_false_is_registered_off() -> None:
    """An action object with enable = False (Lagent's BaseAction(enable=False)) starts off."""
    action = Bold()
    action.enable = False  # type: ignore[attr-defined]
    registry = ToolRegistry([action])
    assert registry.names() == ["Bold"]
    assert registry.tools() == []


def test_a_typed_image_result_becomes_a_file(tmp_path: Path) -> None:
    """Lagent's {"type": "image", "content": path} is a file, named to the agent."""
    picture = tmp_path / "chart.png"
    picture.write_bytes(PNG)

    def draw() -> list[dict[str, str]]:
        """Draw a chart."""
        return [{"type": "image", "content": str(picture)}]

    record = ToolRegistry([draw])("draw")
    assert record.file is not None
    assert record.file.name == "chart.png"
    assert json.loads(record.output) == {
        "type": "file",
        "name": "chart.png",
        "mime_type": "image/png",
        "size": len(PNG),
    }


def test_raw_image_bytes_become_a_file_and_a_url_stays_text() -> None:
    """PNG bytes are a file (result.png); an image given by URL is text the agent reads."""

    def snap() -> bytes:
        """Take a picture."""
        return PNG

    def link() -> dict[str, str]:
        """Link a picture."""
        return {"type": "image", "content": "https://example.com/a.png"}

    registry = ToolRegistry([snap, link])
    file = registry("snap").file
    assert file is not None
    assert (file.name, file.mime_type) == ("result.png", "image/png")
    assert json.loads(registry("link").output)["content"] == "https://example.com/a.png"


def test_tuple_arguments_go_to_the_parameters_in_order() -> None:
    """Lagent's TupleParser: a tuple, or its literal text, fills the parameters in order."""
    registry = ToolRegistry([list_args])
    assert json.loads(registry("list_args", ("x", 2)).output) == {"a": "x", "b": 2, "c": 0.0}
    assert json.loads(registry("list_args", '("x", 2, 1.5)').output)["c"] == 1.5
    refused = registry("list_args", ("x", 2, 1.5, "extra"))
    assert refused.is_error
    assert "argument 4" in refused.output
