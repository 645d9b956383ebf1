"""Lagent habits: tool descriptions in its list-of-parameters form are tools."""

from __future__ import annotations

from appclient import ToolRegistry
from appclient._official_shape import normalize_tool

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
