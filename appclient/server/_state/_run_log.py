"""What each run of a conversation did, kept for the run inspector (pure, no I/O).

A :class:`RunRecord` only refers to what the run made, so keeping it costs the protocol's
path next to nothing; :func:`run_view` makes the inspector's JSON (what the SQLite store saves).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["MAX_RUNS_KEPT", "MAX_TEXT_CHARS", "RECORD_BYTES", "RunRecord", "run_view"]

#: Runs a conversation keeps for the inspector; older ones are dropped first.
MAX_RUNS_KEPT: Final = 20
#: The longest text the inspector shows of a run (a query, an output, an answer).
MAX_TEXT_CHARS: Final = 2000
RECORD_BYTES: Final = 512  # a record's own memory, besides the texts it refers to


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One run, as the inspector shows it (see :func:`run_view`); it refers to what the run made."""

    message_id: str
    request_id: str
    started: float
    seconds: float
    stream: bool
    query: str
    outputs: tuple[str, ...]  # tool call id, output, tool call id, output, ...
    cloud_steps: tuple[Any, ...]
    calls: tuple[Any, ...]
    thought: str
    answer: str
    failure: Any
    usage: dict[str, int] | None
    ending: str
    #: Roughly the characters it keeps alive (for the memory store's accounting).
    chars: int


def _clip(text: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    return text[:MAX_TEXT_CHARS] + f"… ({len(text) - MAX_TEXT_CHARS:,} more characters)"


def _arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _clip(v) if isinstance(v, str) else v for key, v in arguments.items()}


def run_view(run: RunRecord | Mapping[str, Any]) -> dict[str, Any]:
    """Return a run as the inspector's JSON (texts clipped); a view passes through as is."""
    if not isinstance(run, RunRecord):
        return dict(run)  # loaded from the SQLite store, which saves views
    ran = run
    events: list[dict[str, Any]] = [
        {
            "kind": "component",
            "name": step.name,
            "call_id": step.call_id,
            "arguments": _arguments(step.arguments),
            "output": _clip(step.output),
        }
        for step in ran.cloud_steps
    ]
    if ran.calls:
        calls = [
            {"id": call.call_id, "name": call.name, "arguments": _arguments(call.arguments)}
            for call in ran.calls
        ]
        events.append({"kind": "tool_calls", "thought": _clip(ran.thought), "calls": calls})
    elif ran.failure is not None:
        failure = ran.failure
        events.append({"kind": "error", "code": failure.code, "message": _clip(failure.message)})
    else:
        events.append({"kind": "answer", "text": _clip(ran.answer)})
    return {
        "message_id": run.message_id,
        "request_id": run.request_id,
        "started": run.started,
        "seconds": run.seconds,
        "stream": run.stream,
        "query": _clip(run.query),
        "outputs": [
            {"tool_call_id": run.outputs[i], "output": _clip(run.outputs[i + 1])}
            for i in range(0, len(run.outputs), 2)
        ],
        "events": events,
        "ending": ran.ending,
        "usage": ran.usage,
    }
