"""The automatic round trip with several local tools: one call, many rounds, done.

``run_until_answer`` sends the query and the tools, runs every tool call the agent makes
(parallel calls of one round run at the same time), sends all outputs of a round in one
request, and repeats until the agent answers. The result records every call.

Run: ``python examples/automatic_loop.py``
"""

from __future__ import annotations

import json
from typing import Literal

from _target import app_target, example_parser

from appclient import AppClient, LoopEvent, ToolCallFinished, ToolCallStarted, ToolRegistry


def get_current_weather(
    location: str, unit: Literal["celsius", "fahrenheit"] = "celsius"
) -> dict[str, object]:
    """Get the current weather in a given location.

    Args:
        location: The city, e.g. 北京 or Tokyo.
        unit: The temperature unit to use.
    """
    readings = {"北京": 25, "上海": 28, "tokyo": 10, "paris": 22}
    celsius = readings.get(location.lower(), 20)
    value = celsius if unit == "celsius" else round(celsius * 9 / 5 + 32)
    return {"location": location, "temperature": value, "unit": unit}


def get_n_day_weather_forecast(
    location: str, num_days: int, unit: Literal["celsius", "fahrenheit"] = "celsius"
) -> list[dict[str, object]]:
    """Get an N-day weather forecast.

    Args:
        location: The city, e.g. 北京 or Tokyo.
        num_days: The number of days to forecast.
        unit: The temperature unit to use.
    """
    return [{"location": location, "day": day + 1, "unit": unit} for day in range(num_days)]


def show(event: LoopEvent) -> None:
    if isinstance(event, ToolCallStarted):
        arguments = json.dumps(dict(event.arguments), ensure_ascii=False)
        print(f"  round {event.round}: agent calls {event.name} {arguments}")
    elif isinstance(event, ToolCallFinished):
        print(f"  round {event.round}: {event.record.name} -> {event.record.output}")


def main(argv: list[str] | None = None) -> None:
    example_parser(__doc__).parse_args(argv)
    registry = ToolRegistry([get_current_weather, get_n_day_weather_forecast])
    with app_target() as target, AppClient(target.app_id) as client:
        result = client.run_until_answer(
            query=(
                "What's the weather like today in celsius in Tokyo and Paris, "
                "and the 3 day forecast for Tokyo?"
            ),
            tools=registry,
            on_event=show,
        )
        print(
            f"{len(result.rounds)} round(s), {len(result.tool_calls)} call(s), "
            f"{result.tool_time * 1000:.1f} ms in local tools"
        )
        print("answer:", result.answer)


if __name__ == "__main__":
    main()
