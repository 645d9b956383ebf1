"""A model without native tool calling plans the round trip through a text format.

The reference server asks a chat model (here appclient's scripted stand-in, on a local port,
speaking the OpenAI wire format) what to do next. With ``--tool-format hermes`` (or
``react_en``, ``internlm``, ...) the tools are rendered into the model's prompt and its calls
are parsed out of its text: the program's local function runs, its output goes back to the
model as the format's observation, and the model's answer comes back.

Point ``--model-url`` at a real OpenAI-compatible server (Ollama, vLLM, ``swift deploy``)
to use a real model instead of the script.

Run: ``python examples/text_format_model.py [--tool-format hermes] [--model-url URL --model NAME]``
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from _target import example_parser

from appclient import AppClient, EventPrinter
from appclient.formats import FORMAT_NAMES, get_format
from appclient.testing import ReferenceServer, ScriptedModel


def get_current_weather(location: str, unit: str = "celsius") -> str:
    """Get the current weather of a city.

    Args:
        location: The city, e.g. 北京.
        unit: The temperature unit.
    """
    return f"{location}今天23度，多云 ({unit})"


def scripted_model(tool_format: str) -> ScriptedModel:
    """A stand-in model: it calls the weather tool in the format, then answers from its output."""
    fmt = get_format(tool_format)
    call = fmt.write_calls([("get_current_weather", {"location": "北京"})])

    def answer(request: dict[str, Any]) -> str:
        # What the tool returned, without the format's tags (<tool_response>, Observation:).
        text = str(request["messages"][-1]["content"])
        observation = re.sub(r"<[^>]+>|Observation:\s*", "", text).strip()
        if tool_format.startswith("react"):
            return f"Thought: done\nFinal Answer: 北京：{observation}"
        return f"北京：{observation}"

    return ScriptedModel([call, answer])


def main(argv: list[str] | None = None) -> None:
    parser = example_parser(__doc__)
    parser.add_argument(
        "--tool-format", default="hermes", choices=[f for f in FORMAT_NAMES if f != "toolbench"]
    )
    parser.add_argument(
        "--model-url", help="a real OpenAI-compatible base URL instead of the script"
    )
    parser.add_argument("--model", default="scripted", help="the model name")
    args: argparse.Namespace = parser.parse_args(argv)
    model = None if args.model_url else scripted_model(args.tool_format).start()
    url = args.model_url or (model.url if model else "")
    try:
        with (
            ReferenceServer(
                model_url=url, model=args.model, tool_format=args.tool_format
            ) as server,
            AppClient(server.app_id, token=server.token, base_url=server.url) as client,
        ):
            result = client.run_until_answer(
                query="北京今天天气怎么样？", tools=[get_current_weather], on_event=EventPrinter()
            )
        if model is not None:
            print(
                "the model saw the tools in its prompt:",
                "get_current_weather" in str(model.requests[0]),
            )
        print(f"tool call: {result.tool_calls[0].name} {result.tool_calls[0].arguments}")
        print(f"answer: {result.answer}")
    finally:
        if model is not None:
            model.stop()


if __name__ == "__main__":
    main()
