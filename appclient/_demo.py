"""``appclient demo``: the weather round trip against an embedded server, step by step.

The agent's tool calls, each local execution and its result, the answer as it streams in and
a summary with timings, as they happen. Nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any, Final, Literal, TextIO

from ._clients._client import AppClient
from ._core._errors import AppClientError
from ._tools._loop_events import (
    AnswerDone,
    LoopEvent,
    RoundFinished,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from ._tools._registry import ToolRegistry

#: What the demo asks when no --query is given (two cities: two parallel calls).
DEMO_QUERY: Final = "今天北京和上海的天气怎么样？"
#: Rounds the demo allows: the weather question needs one, so a loop shows up fast.
DEMO_MAX_ROUNDS: Final = 4
#: The demo's local "weather station": fixed readings, so the demo is reproducible.
_READINGS: dict[str, tuple[float, str]] = {
    "北京": (25.0, "晴"),
    "上海": (28.0, "多云"),
    "广州": (31.0, "阵雨"),
    "深圳": (30.0, "多云"),
    "杭州": (27.0, "小雨"),
    "beijing": (25.0, "sunny"),
    "shanghai": (28.0, "cloudy"),
    "tokyo": (10.0, "clear"),
    "paris": (22.0, "cloudy"),
}


def get_current_weather(
    location: str, unit: Literal["celsius", "fahrenheit"] = "celsius"
) -> dict[str, Any]:
    """获取指定城市的当前天气 (current weather of a city).

    Args:
        location: 城市名，例如：北京 (a city name, e.g. Beijing).
        unit: 温度单位 (temperature unit), celsius or fahrenheit.

    Returns:
        The reading: city, temperature, unit and sky.
    """
    celsius, sky = _READINGS.get(location.strip().lower(), (20.0, "unknown"))
    temperature = celsius if unit == "celsius" else round(celsius * 9 / 5 + 32, 1)
    return {"location": location, "temperature": temperature, "unit": unit, "sky": sky}


def _at_least_one(text: str) -> int:
    """Parse ``--max-rounds``; argparse reports the message with the option's name."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _not_blank(text: str) -> str:
    """Parse ``--query``: the agent needs something to answer."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty: ask the agent something")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the demo's options to its sub-parser."""
    parser.add_argument(
        "--query", type=_not_blank, default=DEMO_QUERY, help="what to ask the agent"
    )
    parser.add_argument("--no-color", action="store_true", help="plain text output")
    parser.add_argument(
        "--no-stream", action="store_true", help="wait for whole answers instead of streaming"
    )
    parser.add_argument(
        "--max-rounds",
        type=_at_least_one,
        default=DEMO_MAX_ROUNDS,
        help=f"tool rounds allowed, at least 1 (default {DEMO_MAX_ROUNDS})",
    )


_COLORS: Final = {"dim": "2", "bold": "1", "agent": "36", "local": "33", "good": "32", "bad": "31"}


def _styler(args: argparse.Namespace, out: TextIO) -> Callable[[str, str], str]:
    """``style("bold", text)``: ANSI colours unless off (--no-color, NO_COLOR, not a terminal)."""
    if args.no_color or os.environ.get("NO_COLOR") or not out.isatty():
        return lambda kind, text: text
    return lambda kind, text: f"\x1b[{_COLORS[kind]}m{text}\x1b[0m"


def _milliseconds(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


class _Printer:
    """Turns loop events into readable lines."""

    def __init__(self, out: TextIO, style: Callable[[str, str], str]) -> None:
        self.out = out
        self.style = style
        self.in_answer = False

    def write(self, text: str = "", *, end: str = "\n") -> None:
        self.out.write(text + end)
        self.out.flush()

    def _end_answer(self) -> None:
        if self.in_answer:
            self.write()
            self.in_answer = False

    def __call__(self, event: LoopEvent) -> None:
        style = self.style
        if isinstance(event, TextDelta):
            if not self.in_answer:
                self.write(style("agent", "agent> "), end="")
                self.in_answer = True
            self.write(event.text, end="")
        elif isinstance(event, ToolCallStarted):
            self._end_answer()
            arguments = json.dumps(dict(event.arguments), ensure_ascii=False)
            self.write(
                f"{style('agent', 'agent  ->')} calls {style('bold', event.name)} {arguments}  "
                + style("dim", f"(round {event.round}, id {event.id})")
            )
        elif isinstance(event, ToolCallFinished):
            record = event.record
            mark = style("bad", "x") if record.is_error else style("good", "ok")
            self.write(
                f"{style('local', 'local  <-')} {mark} {record.name} ran in "
                f"{_milliseconds(record.duration)}: {record.output}"
            )
        elif isinstance(event, RoundFinished):
            sent = f"{len(event.round.tool_calls)} output(s) of round {event.round.index}"
            self.write(style("dim", f"         sending {sent} back"))
        elif isinstance(event, AnswerDone):
            self._end_answer()


def run(args: argparse.Namespace) -> int:
    """Run the demo: 0 when the agent answered, 1 on an error (printed to standard error)."""
    from .testing import ReferenceServer  # the server is only needed by the demo

    style = _styler(args, sys.stdout)
    printer = _Printer(sys.stdout, style)
    registry = ToolRegistry([get_current_weather])
    with ReferenceServer() as server:
        printer.write(
            style("bold", "appclient demo") + style("dim", f"  embedded server {server.url}")
        )
        printer.write(
            style("dim", "local tools: ")
            + ", ".join(registry.names())
            + style("dim", "  (they run here, on this machine)")
        )
        printer.write(f"{style('bold', 'you>')} {args.query}")
        started = time.perf_counter()
        try:
            with AppClient(server.app_id, token=server.token, base_url=server.url) as client:
                result = client.run_until_answer(
                    query=args.query,
                    tools=registry,
                    stream=not args.no_stream,
                    on_event=printer,
                    max_rounds=args.max_rounds,
                )
        except AppClientError as exc:
            printer.write()  # end a half-streamed answer line
            print(_styler(args, sys.stderr)("bad", f"error: {exc}"), file=sys.stderr, flush=True)
            return 1
        wall = time.perf_counter() - started
    failed = sum(call.is_error for call in result.tool_calls)
    printer.write(
        style(
            "dim",
            f"summary: {len(result.rounds)} round(s), {len(result.tool_calls)} local tool call(s)"
            f"{f' ({failed} failed)' if failed else ''}, {len(result.runs)} run(s); "
            f"{_milliseconds(wall)} total, {_milliseconds(result.tool_time)} in local tools; "
            f"conversation {result.conversation_id}",
        )
    )
    return 0
