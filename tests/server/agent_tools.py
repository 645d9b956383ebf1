"""Tool shapes the agent tests use: the seed's three Python shapes, its Java/Go shape, OpenAI's."""

from __future__ import annotations

import datetime as dt
from typing import Any

from appclient._core._models import Tool
from appclient._manifest._official_shape import normalize_tool
from appclient.server._agents._agent_api import AgentInput, ComponentInfo, ToolResult
from appclient.server._agents._components import default_components
from tests.conftest import load_request_fixture
from tests.seed import SEED_JAVA_TOOL

#: The fixed "today" of every agent test (a Wednesday).
TODAY = dt.date(2024, 5, 1)


def _recorded_tool(fixture: str) -> dict[str, Any]:
    tool: dict[str, Any] = load_request_fixture(fixture)["requests"][0]["json"]["tools"][0]
    return tool


#: Way 1 of the seed: the raw JSON Schema tool.
SEED_RAW: dict[str, Any] = _recorded_tool("02_run_tools_raw_nonstream")
#: Way 2 of the seed: ``Manifest.from_function`` of the docstring function, as sent.
SEED_FROM_FUNCTION_WIRE: dict[str, Any] = _recorded_tool("04_run_tools_manifest_from_function")
#: Way 3 of the seed: ``Manifest.from_function`` of the ``@manifest`` function, as sent.
SEED_DECORATOR_WIRE: dict[str, Any] = _recorded_tool("05_run_tools_manifest_decorator")
#: Ways 2 and 3 after the server's normalisation (no enum; the unit is described in text).
SEED_FROM_FUNCTION: dict[str, Any] = normalize_tool(SEED_FROM_FUNCTION_WIRE)
SEED_DECORATOR: dict[str, Any] = normalize_tool(SEED_DECORATOR_WIRE)

#: The seed's Java/Go tool: Chinese enum members, location described with 河北省.
SEED_JAVA = SEED_JAVA_TOOL

#: OpenAI's canonical example: English description and example.
OPENAI_WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {
                    "type": "string",
                    "description": "The city and state, e.g. San Francisco, CA",
                },
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location"],
        },
    },
}

#: The seed's person lookup: "查找公司内指定人员的信息" with a parameter "name".
PERSON_LOOKUP: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "lookup_person",
        "description": "查找公司内指定人员的信息",
        "parameters": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "人员姓名"}},
            "required": ["name"],
        },
    },
}

COMPONENT_INFOS: tuple[ComponentInfo, ...] = tuple(c.info for c in default_components())


def parameters(tool: dict[str, Any]) -> dict[str, Any]:
    """Return the JSON Schema parameters of a tool dict."""
    schema: dict[str, Any] = tool["function"]["parameters"]
    return schema


def agent_input(
    query: str,
    *tools: dict[str, Any],
    results: tuple[ToolResult, ...] = (),
    components: tuple[ComponentInfo, ...] = COMPONENT_INFOS,
    **extra: Any,
) -> AgentInput:
    """Build an AgentInput as the run engine does: tools as models, built-in components."""
    return AgentInput(
        query=query,
        tools=tuple(Tool.model_validate(t) for t in tools),
        components=components,
        results=results,
        **extra,
    )
