"""Async: several users' questions answered at once by one AsyncAppClient, with a local tool.

Each question is its own round trip (``run_until_answer``) on its own conversation; they run
concurrently on one event loop, sent natively with aiohttp (``pip install
'appclient[async]'``). The local tool runs in each round trip's own thread, never on the loop.

Run: ``python examples/async_concurrent.py``
"""

from __future__ import annotations

import asyncio

from _target import app_target, example_parser

from appclient import AsyncAppClient, ToolRegistry

CITIES = ("北京", "上海", "广州")


def get_current_weather(location: str, unit: str = "celsius") -> str:
    """获取指定中国城市的当前天气信息 (current weather of a Chinese city).

    Args:
        location: 城市名，例如：北京。
        unit: 温度单位，celsius 或 fahrenheit。
    """
    return f"{location}今天25度，晴" if unit == "celsius" else f"{location}今天77华氏度，晴"


async def ask_all(app_id: str) -> None:
    registry = ToolRegistry([get_current_weather])
    async with AsyncAppClient(app_id) as client:
        questions = [f"今天{city}的天气怎么样？" for city in CITIES]
        results = await asyncio.gather(
            *(client.run_until_answer(query=q, tools=registry, stream=True) for q in questions)
        )
    for question, result in zip(questions, results, strict=True):
        calls = ", ".join(f"{c.name}{c.arguments}" for c in result.tool_calls)
        print(f"{question} -> tool calls: {calls}")
        print(f"answer: {result.answer}")


def main(argv: list[str] | None = None) -> None:
    example_parser(__doc__).parse_args(argv)
    with app_target() as target:
        asyncio.run(ask_all(target.app_id))


if __name__ == "__main__":
    main()
