"""Streaming: show the agent's events and answer as they arrive, answer the tool call.

The first run streams until the agent asks for the local tool; a ``ToolRegistry`` runs the
call (validated, timed out, serialised) and the second run streams the answer piece by piece.

Run: ``python examples/streaming.py``
"""

from __future__ import annotations

from _target import app_target, example_parser

from appclient import AppClient, ToolRegistry


def get_current_weather(location: str, unit: str = "celsius") -> str:
    """获取指定中国城市的当前天气信息 (current weather of a Chinese city).

    Args:
        location: 城市名，例如：北京。
        unit: 温度单位，celsius 或 fahrenheit。
    """
    return f"{location}今天25度，晴" if unit == "celsius" else f"{location}今天77华氏度，晴"


def main(argv: list[str] | None = None) -> None:
    example_parser(__doc__).parse_args(argv)
    registry = ToolRegistry([get_current_weather])
    with app_target() as target, AppClient(target.app_id) as client:
        conversation_id = client.create_conversation()

        with client.run(
            conversation_id, "今天北京的天气怎么样？", tools=registry.tools(), stream=True
        ) as stream:
            for message in stream:  # one RunAnswer per SSE message
                for event in message.events:
                    print(f"  event: {event.event_type or '-'} / {event.event_status}")
        calls = stream.tool_calls
        for call in calls:
            print(f"tool call: {call.function.name} {call.function.arguments}")

        outputs = registry.dispatch(calls)
        print("tool outputs:", [output.output for output in outputs])

        with client.run(conversation_id, tool_outputs=outputs, stream=True) as answer:
            print("streamed: ", end="")
            for message in answer:
                print(message.answer, end="", flush=True)
            print()
        print("answer:", answer.answer)


if __name__ == "__main__":
    main()
