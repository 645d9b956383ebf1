"""A toolkit with a bound secret: an API client whose methods are tools.

``add_toolkit`` turns each ``@manifest`` method into a tool named ``Class__method``. The
API key is bound at registration: it is not in the tools the agent sees, the agent cannot
set it, and it is redacted from every output and error message (even if the tool echoes it).

Run: ``python examples/toolkit_bound_secret.py``
(set ``WEATHER_API_KEY`` to use your own key; a demo key is used otherwise)
"""

from __future__ import annotations

import json
import os

from _target import app_target, example_parser

from appclient import AppClient, ToolRegistry, manifest


class WeatherService:
    """A small weather API client (a fake one: the readings are fixed)."""

    def __init__(self, base_url: str = "https://weather.example.invalid") -> None:
        self.base_url = base_url

    @manifest(description="查询城市今天的天气 (today's weather of a city).")
    def today(self, city: str, api_key: str) -> dict[str, object]:
        """Look up today's weather; ``api_key`` is supplied by the program."""
        if not api_key:
            raise PermissionError("missing API key")
        return {"city": city, "temperature": 25, "sky": "晴", "source": self.base_url}

    @manifest(description="查询城市未来几天的天气预报 (a forecast for some days).")
    def forecast(self, city: str, days: int, api_key: str) -> list[dict[str, object]]:
        """Look up a forecast; ``api_key`` is supplied by the program."""
        return [{"city": city, "day": day + 1, "sky": "多云"} for day in range(days)]


def main(argv: list[str] | None = None) -> None:
    example_parser(__doc__).parse_args(argv)
    api_key = os.environ.get("WEATHER_API_KEY", "demo-weather-key-7f3a9c")
    registry = ToolRegistry()
    registry.add_toolkit(WeatherService(), api_key=api_key)

    advertised = json.dumps(registry.tools(), ensure_ascii=False)
    print("tools:", ", ".join(registry.names()))
    print("api_key in what the agent sees:", "api_key" in advertised or api_key in advertised)

    with app_target() as target, AppClient(target.app_id) as client:
        result = client.run_until_answer(query="北京今天天气怎么样？", tools=registry)
    for call in result.tool_calls:
        print(f"call: {call.name} {dict(call.arguments)} -> {call.output}")
        toolkit, method = registry.toolkit_method(call.name) or (None, "")
        print(f"  runs {type(toolkit).__name__}.{method}()")
    print("key leaked:", any(api_key in call.output for call in result.tool_calls))
    print("answer:", result.answer)


if __name__ == "__main__":
    main()
