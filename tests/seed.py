"""The seed's tools and the official client's request shape, shared by tests and benchmarks."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

#: The docs' raw JSON Schema weather tool (方式1), exactly as the official client sends it
#: in fixture 02 (``tests/test_seed_tools.py`` checks that they stay equal).
SEED_WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": (
            "仅支持中国城市的天气查询，参数location为中国城市名称，其他国家城市不支持天气查询"
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "城市名，举例：北京"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location", "unit"],
        },
    },
}

#: The docs' Java/Go example tool file, verbatim: Chinese enum members, no unit required.
SEED_JAVA_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_cur_whether",
        "description": "这是一个获得指定地点天气的工具",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "省，市名，例如：河北省"},
                "unit": {"type": "string", "enum": ["摄氏度", "华氏度"]},
            },
            "required": ["location"],
        },
    },
}


def official_run_body(conversation_id: str, *, app_id: str, **fields: Any) -> dict[str, Any]:
    """A run body with the 13 keys the official Python client sends (fixtures 02/03/11)."""
    body: dict[str, Any] = {
        "query": "",
        "stream": False,
        "conversation_id": conversation_id,
        "file_ids": [],
        "app_id": app_id,
        "tools": [],
        "tool_outputs": None,
        "tool_choice": None,
        "end_user_id": None,
        "action": None,
        "mcp_authorization": None,
        "parameters": None,
        "custom_metadata": None,
    }
    body.update(fields)
    return body


class OfficialFunction(BaseModel):
    """The shape of the official SDK's data_class.Function."""

    name: str
    description: str
    parameters: dict[str, Any]


class OfficialTool(BaseModel):
    """The shape of the official SDK's data_class.Tool."""

    type: str = "function"
    function: OfficialFunction


class OfficialMCPTool(BaseModel):
    """The shape of the official SDK's data_class.MCPTool (and of an MCP SDK tool)."""

    name: str
    description: str
    inputSchema: dict[str, Any]  # noqa: N815 - the MCP field name
