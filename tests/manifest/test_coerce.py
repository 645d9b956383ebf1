"""Tool-likes turned into wire tools, and the one list rule, with errors naming where."""

from __future__ import annotations

import json
import types
from typing import Any

import pytest
from pydantic import BaseModel

from appclient import Function, InvalidRequestError, ManifestError, Tool, ToolRegistry
from appclient._manifest import save_tools
from appclient._manifest._coerce import tools_to_wire
from tests.seed import SEED_WEATHER_TOOL, OfficialFunction, OfficialTool

WEATHER = SEED_WEATHER_TOOL


def _named(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": "", "parameters": {}}}


def test_dict_tools_are_sent_unchanged() -> None:
    """A dict tool (even the official Manifest shape) reaches the wire as given."""
    official = {
        "type": "function",
        "function": {
            "name": "f",
            "description": None,
            "parameters": {"type": "object", "properties": {"x": {"type": "str", "name": "x"}}},
        },
    }
    assert tools_to_wire([WEATHER, official]) == [WEATHER, official]


def test_dict_tool_without_type_gets_function_type() -> None:
    """A dict tool missing 'type' is sent as a function tool."""
    tool = {"function": {"name": "f"}}
    assert tools_to_wire([tool]) == [{"type": "function", "function": {"name": "f"}}]


def test_tool_models_are_dumped() -> None:
    """A Tool model becomes its wire dict."""
    tool = Tool(function=Function(name="f", description="d", parameters={"type": "object"}))
    assert tools_to_wire([tool]) == [
        {
            "type": "function",
            "function": {"name": "f", "description": "d", "parameters": {"type": "object"}},
        }
    ]


def test_foreign_pydantic_tool_models_are_dumped() -> None:
    """A pydantic model of the tool shape (as the official SDK has) is accepted."""
    tool = OfficialTool(function=OfficialFunction(name="f", description="d", parameters={}))
    assert tools_to_wire([tool])[0]["function"]["name"] == "f"


def test_mcp_tool_models_become_function_tools() -> None:
    """An MCP tool (name, description, inputSchema), as the official client accepts, is sent."""

    class MCPTool(BaseModel):
        name: str
        description: str
        inputSchema: dict[str, Any]  # noqa: N815 - the MCP field name

    schema = {"type": "object", "properties": {"location": {"type": "string"}}}
    tool = MCPTool(name="weather", description="天气", inputSchema=schema)
    assert tools_to_wire([tool]) == [
        {
            "type": "function",
            "function": {"name": "weather", "description": "天气", "parameters": schema},
        }
    ]


def test_mcp_tools_given_as_dicts_become_function_tools() -> None:
    """An MCP tool written as a dict (name, description, inputSchema) is sent as a function."""
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    tool = {"name": "read_file", "description": "读文件", "inputSchema": schema}
    assert tools_to_wire([tool]) == [
        {
            "type": "function",
            "function": {"name": "read_file", "description": "读文件", "parameters": schema},
        }
    ]


def test_non_function_tools_pass_through() -> None:
    """Tools of other types (code_interpreter...) are sent as given."""
    assert tools_to_wire([{"type": "code_interpreter"}]) == [{"type": "code_interpreter"}]


def test_objects_with_to_tool_and_to_tools_are_expanded() -> None:
    """Tool specs (to_tool) and toolkits (to_tools) contribute their tools."""
    spec = types.SimpleNamespace(to_tool=lambda: _named("a"))
    kit = types.SimpleNamespace(to_tools=lambda: [_named("b"), _named("c")])
    names = [tool["function"]["name"] for tool in tools_to_wire([spec, kit])]
    assert names == ["a", "b", "c"]


def test_a_registry_can_be_passed_as_tools() -> None:
    """An object with tools() (a ToolRegistry) stands for its list of tools."""
    registry = types.SimpleNamespace(tools=lambda: [_named("a"), _named("b")])
    assert len(tools_to_wire(registry)) == 2


def test_a_registry_inside_the_tools_list_is_expanded() -> None:
    """tools=[registry, tool] sends the registry's tools and the extra one."""
    registry = types.SimpleNamespace(tools=lambda: [_named("a"), _named("b")])
    names = [tool["function"]["name"] for tool in tools_to_wire([registry, _named("c")])]
    assert names == ["a", "b", "c"]


def test_nested_lists_of_tools_are_flattened() -> None:
    """A registry's list inside the tools list is flattened."""
    assert len(tools_to_wire([[_named("a"), _named("b")], _named("c")])) == 3


def test_real_manifest_describes_a_function() -> None:
    """A seed-style function becomes a valid tool through Manifest."""

    def get_current_weather(location: str, unit: str) -> str:
        """Get the weather of a city.

        Args:
            location: The city.
            unit: celsius or fahrenheit.
        """
        return location + unit

    (tool,) = tools_to_wire([get_current_weather])
    assert tool["function"]["name"] == "get_current_weather"
    assert set(tool["function"]["parameters"]["properties"]) == {"location", "unit"}


@pytest.mark.parametrize("name", ["", "has space", "点", "x" * 65])
def test_invalid_tool_names_are_refused(name: str) -> None:
    """Tool names must match the protocol's rule; the error names the tool's index."""
    with pytest.raises(InvalidRequestError, match=r"tools\[0\]: invalid tool name"):
        tools_to_wire([_named(name)])


def test_duplicate_tool_names_are_refused() -> None:
    """Two tools with the same name in one run are refused."""
    with pytest.raises(
        InvalidRequestError, match=r"'a' appears twice: in tools\[0\] and tools\[1\]"
    ):
        tools_to_wire([_named("a"), _named("a")])


def test_function_tool_needs_a_function_object() -> None:
    """A function tool without its 'function' object is refused."""
    with pytest.raises(InvalidRequestError, match="needs a 'function' object"):
        tools_to_wire([{"type": "function"}])


def test_tool_parameters_must_be_an_object() -> None:
    """Parameters must be a JSON Schema object."""
    with pytest.raises(InvalidRequestError, match="parameters"):
        tools_to_wire([{"type": "function", "function": {"name": "f", "parameters": "x"}}])


def test_tool_description_must_be_text() -> None:
    """Description must be a string when present."""
    with pytest.raises(InvalidRequestError, match="description"):
        tools_to_wire([{"type": "function", "function": {"name": "f", "description": 3}}])


def test_tool_type_must_be_text() -> None:
    """A tool's type must be a non-empty string."""
    with pytest.raises(InvalidRequestError, match="'type'"):
        tools_to_wire([{"type": None, "function": {"name": "f"}}])


@pytest.mark.parametrize("tools", [WEATHER, "get_current_weather", 3])
def test_tools_must_be_a_list(tools: Any) -> None:
    """A single tool, a string or a number is refused with a hint."""
    with pytest.raises(InvalidRequestError, match="tools must be a list"):
        tools_to_wire(tools)


def test_unknown_tool_items_are_refused() -> None:
    """An item that is no kind of tool is refused, naming its index and type."""
    with pytest.raises(InvalidRequestError, match=r"tools\[1\].*int"):
        tools_to_wire([WEATHER, 5])


def test_tools_from_a_generator_are_accepted() -> None:
    """Any iterable of tools works."""
    assert len(tools_to_wire(_named(n) for n in "ab")) == 2


def test_a_lagent_style_tool_description_becomes_a_function_tool() -> None:
    """A dict in Lagent's form (parameters as a list) is read as the function tool it means."""
    lagent = {
        "name": "search",
        "description": "Search the web.",
        "parameters": [{"name": "query", "type": "STRING", "description": "what to find"}],
        "required": ["query"],
    }
    (tool,) = tools_to_wire([lagent])
    assert tool["function"]["name"] == "search"
    assert tool["function"]["parameters"]["properties"]["query"]["type"] == "string"


def test_a_bad_tool_is_a_manifest_error() -> None:
    """A tool that cannot become one raises ManifestError (an InvalidRequestError)."""
    with pytest.raises(ManifestError, match=r"tools\[0\] must be a tool .* got int"):
        tools_to_wire([3])


def test_save_tools_of_one_registry_writes_every_tool(tmp_path: Any) -> None:
    """A registry given alone is one item of several tools: the file holds them all."""
    registry = ToolRegistry()
    registry.add(lambda city: city, name="a")
    registry.add(lambda city: city, name="b")
    path = tmp_path / "tools.json"
    save_tools(registry, path)
    assert [tool["function"]["name"] for tool in json.loads(path.read_text("utf-8"))] == ["a", "b"]
