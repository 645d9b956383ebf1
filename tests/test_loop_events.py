"""The terminal printer of round-trip events."""

from __future__ import annotations

import io

from appclient import AnswerDone, EventPrinter, TextDelta, ToolCallStarted
from appclient._tools._dispatch import ToolCallRecord
from appclient._tools._loop_events import ToolCallFinished
from appclient.types import RoundTripResult


def _record(output: str, *, is_error: bool = False) -> ToolCallRecord:
    return ToolCallRecord(
        id="c1",
        name="get_weather",
        arguments={"city": "北京"},
        output=output,
        is_error=is_error,
        duration=0.012,
    )


def test_the_printer_shows_calls_results_and_the_streamed_answer_on_their_own_lines() -> None:
    """One line per call start and end, then the answer text as it streamed."""
    out = io.StringIO()
    printer = EventPrinter(file=out)
    printer(ToolCallStarted(round=1, id="c1", name="get_weather", arguments={"city": "北京"}))
    printer(ToolCallFinished(round=1, record=_record("北京今天35度")))
    for piece in ("北京", "今天35度"):
        printer(TextDelta(piece, 2))
    printer(AnswerDone(RoundTripResult(answer="北京今天35度", conversation_id="c")))
    assert out.getvalue() == (
        '→ get_weather(city="北京")\n← get_weather 12 ms: 北京今天35度\n北京今天35度\n'
    )


def test_the_printer_cuts_long_outputs_and_marks_failures() -> None:
    """A failed call is marked ✗ and a long output is cut to the width."""
    out = io.StringIO()
    EventPrinter(file=out, width=20)(
        ToolCallFinished(round=1, record=_record("x" * 500, is_error=True))
    )
    line = out.getvalue()
    assert line.startswith("✗ get_weather 12 ms: ")
    assert line.endswith("…\n")
    assert len(line) < 60


def test_a_plain_answer_is_printed_when_nothing_streamed() -> None:
    """Without text deltas (a plain run), the printer shows the final answer."""
    out = io.StringIO()
    EventPrinter(file=out)(AnswerDone(RoundTripResult(answer="done", conversation_id="c")))
    assert out.getvalue() == "done\n"
