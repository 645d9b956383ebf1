"""What the automatic round trip reports: progress events and the final result.

The last event is always :class:`AnswerDone`, holding the result.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from .._core._models import Event, RunAnswer, ToolCall
from ._dispatch import ToolCallRecord


@dataclass(frozen=True)
class RoundRecord:
    """One round: the agent asked for tool calls and the program answered them.

    Attributes:
        index: The round number, from 1.
        tool_calls: The calls of the round, in call order, with outputs and durations.
        duration: Seconds spent running the round's tools locally.
        thought: The agent's stated reason for the calls, when it gave one.
    """

    index: int
    tool_calls: tuple[ToolCallRecord, ...]
    duration: float = 0.0
    thought: str = ""


@dataclass(frozen=True)
class RoundTripResult:
    """The outcome of the automatic round trip.

    Attributes:
        answer: The agent's final answer text.
        conversation_id: The conversation used (created when none was given).
        message_id: The id of the final run's message.
        tool_calls: Every local tool call made, across all rounds, in order.
        rounds: The rounds, in order.
        runs: Each run's response (streamed runs accumulated into one answer each).
        duration: Seconds from the first request to the answer.
        completed: False for a partial result: a loop stopped by ``max_rounds``, or the
            ``partial_result`` of an error that ended it.
        pending_tool_calls: Calls the agent asked for that were not made (partial result).
    """

    answer: str
    conversation_id: str
    message_id: str = ""
    tool_calls: tuple[ToolCallRecord, ...] = ()
    rounds: tuple[RoundRecord, ...] = ()
    runs: tuple[RunAnswer, ...] = ()
    duration: float = 0.0
    completed: bool = True
    pending_tool_calls: tuple[ToolCall, ...] = field(default=(), repr=False)

    @property
    def events(self) -> list[Event]:
        """Every event of every run, in order."""
        return [event for run in self.runs for event in run.events]

    @property
    def tool_time(self) -> float:
        """Seconds spent running local tools, over all rounds."""
        return sum(round_.duration for round_ in self.rounds)

    def __str__(self) -> str:
        return self.answer


@dataclass(frozen=True)
class TextDelta:
    """A piece of the agent's answer ``text`` as it arrives, in ``run`` (from 1)."""

    text: str
    run: int


@dataclass(frozen=True)
class ServerEvent:
    """An ``event`` of a ``run`` (from 1) as the server sent it (status, cloud components...)."""

    event: Event
    run: int


@dataclass(frozen=True)
class ToolCallStarted:
    """A local tool call of ``round`` (from 1) is about to be checked and run."""

    round: int
    id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class ToolCallFinished:
    """A local tool call of ``round`` has finished (or failed); ``record`` has its output."""

    round: int
    record: ToolCallRecord


@dataclass(frozen=True)
class RoundFinished:
    """All calls of a round are done; their outputs are being sent in one request."""

    round: RoundRecord


@dataclass(frozen=True)
class AnswerDone:
    """The agent answered; the last event of the loop, with the full ``result``."""

    result: RoundTripResult


#: Any event of the automatic round trip.
LoopEvent = (
    TextDelta | ServerEvent | ToolCallStarted | ToolCallFinished | RoundFinished | AnswerDone
)


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class EventPrinter:
    """Shows a round trip in a terminal: the answer as it streams, each tool call on a line.

    Pass an instance as ``on_event``: it prints ``→ get_weather(location='北京')`` when a call
    starts, ``← get_weather 12 ms: 北京今天25度`` (or ``✗`` and the error) when it ends, and
    the answer text.

    Args:
        file: Where to write; standard output when ``None``.
        width: Longest argument or output text shown.
    """

    def __init__(self, *, file: TextIO | None = None, width: int = 100) -> None:
        self._file = file
        self._width = width
        self._streamed = False  # answer text of the current run was printed

    def __call__(self, event: LoopEvent) -> None:
        """Print one event."""
        out = self._file if self._file is not None else sys.stdout
        if isinstance(event, TextDelta):
            out.write(event.text)
            self._streamed = self._streamed or bool(event.text)
        elif isinstance(event, ToolCallStarted):
            shown = ", ".join(
                f"{key}={json.dumps(value, ensure_ascii=False, default=str)}"
                for key, value in event.arguments.items()
            )
            newline = "\n" if self._streamed else ""  # end the streamed text's line
            self._streamed = False
            out.write(f"{newline}→ {event.name}({_short(shown, self._width)})\n")
        elif isinstance(event, ToolCallFinished):
            record = event.record
            mark = "✗" if record.is_error else "←"
            took = f"{record.duration * 1000:.0f} ms"
            out.write(f"{mark} {record.name} {took}: {_short(record.output, self._width)}\n")
        elif isinstance(event, AnswerDone):
            if not self._streamed:  # a plain (non-stream) run: the answer comes whole
                out.write(event.result.answer)
            out.write("\n")
            self._streamed = False
        out.flush()
