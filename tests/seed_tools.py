"""The tools the AppBuilder ToolCall docs (the seed) use, shared by tests and benchmarks."""

from __future__ import annotations

from typing import Any

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
