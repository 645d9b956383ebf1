"""ToolChoice: force a tool instead of letting the agent choose.

1. The seed's ToolChoice example (there in Go), in Python: force the cloud component
   ``WeatherQuery`` with its input; the server runs it and answers in the same run.
2. Force a local tool with its input, inside the automatic loop: the forced choice applies
   to the first run only; later runs let the agent choose again.

On a hosted app, use the English name of a component your app really has.

Run: ``python examples/tool_choice.py``
"""

from __future__ import annotations

from _target import app_target, example_parser

from appclient import AppClient, ToolChoice, ToolChoiceFunction


def get_current_weather(location: str, unit: str = "celsius") -> str:
    """获取指定中国城市的当前天气信息 (current weather of a Chinese city).

    Args:
        location: 城市名，例如：北京。
        unit: 温度单位，celsius 或 fahrenheit。
    """
    return f"{location}今天23度，多云"


def main(argv: list[str] | None = None) -> None:
    example_parser(__doc__).parse_args(argv)
    with app_target() as target, AppClient(target.app_id) as client:
        # 1. A cloud component, forced with its input (the seed's Go example).
        conversation_id = client.create_conversation()
        message = client.run(
            conversation_id,
            "北京今天的天气",
            end_user_id="python_toolchoice_demo",
            tool_choice=ToolChoice(
                type="function",
                function=ToolChoiceFunction(name="WeatherQuery", input={"city": "北京"}),
            ),
        )
        for event in message.content.events:
            print(f"  event: {event.event_type or '-'} / {event.event_status}")
        print("cloud component answer:", message.content.answer)

        # 2. A local tool, forced with its input, in the automatic loop.
        result = client.run_until_answer(
            query="帮我看看天气",
            tools=[get_current_weather],
            tool_choice={
                "type": "function",
                "function": {"name": "get_current_weather", "input": {"location": "上海"}},
            },
        )
        for call in result.tool_calls:
            print(f"forced local call: {call.name} {dict(call.arguments)} -> {call.output}")
        print("answer:", result.answer)


if __name__ == "__main__":
    main()
