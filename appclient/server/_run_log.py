"""What each run of a conversation did, kept for the run inspector (pure, no I/O).

A conversation's state keeps its latest runs as JSON-ready records: what came in (the query,
or the tool outputs), the cloud component steps, the local tool calls the run ended with,
the answer or the error, the model's usage, and when and how long. Texts are clipped and
only the latest :data:`MAX_RUNS_KEPT` runs are kept, so a long conversation's state (and the
memory and SQLite rows it takes) stays bounded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from .._models import ToolOutput
from ._run_engine import RunOutcome

__all__ = ["MAX_RUNS_KEPT", "MAX_TEXT_CHARS", "record_run"]

#: Runs a conversation keeps for the inspector; older ones are dropped first.
MAX_RUNS_KEPT: Final = 20
#: The longest text kept in a run record (a query, an output, an answer); longer ones are cut.
MAX_TEXT_CHARS: Final = 2000


def _clip(text: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    return text[:MAX_TEXT_CHARS] + f"… ({len(text) - MAX_TEXT_CHARS:,} more characters)"


def _arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        key: _clip(value) if isinstance(value, str) else value for key, value in arguments.items()
    }


def record_run(
    outcome: RunOutcome,
    *,
    request_id: str,
    query: str,
    outputs: Sequence[ToolOutput],
    stream: bool,
    started: float,
    seconds: float,
) -> dict[str, Any]:
    """Return the record of one run, ready to keep in the conversation's state.

    Args:
        outcome: What the run did.
        request_id: The request's id.
        query: The query the run was asked ("" for a tool-outputs run).
        outputs: The tool outputs the run was sent.
        stream: Whether the client asked for a stream.
        started: When the run started, in seconds since the epoch.
        seconds: How long the run took.
    """
    events: list[dict[str, Any]] = [
        {
            "kind": "component",
            "name": step.name,
            "call_id": step.call_id,
            "arguments": _arguments(step.arguments),
            "output": _clip(step.output),
        }
        for step in outcome.cloud_steps
    ]
    if outcome.calls:
        events.append(
            {
                "kind": "tool_calls",
                "thought": _clip(outcome.thought),
                "calls": [
                    {"id": call.call_id, "name": call.name, "arguments": _arguments(call.arguments)}
                    for call in outcome.calls
                ],
            }
        )
    elif outcome.failure is not None:
        events.append(
            {
                "kind": "error",
                "code": outcome.failure.code,
                "message": _clip(outcome.failure.message),
            }
        )
    else:
        events.append({"kind": "answer", "text": _clip(outcome.answer)})
    record: dict[str, Any] = {
        "message_id": outcome.message_id,
        "request_id": request_id,
        "started": round(started, 3),
        "seconds": round(seconds, 4),
        "stream": stream,
        "query": _clip(query),
        "outputs": [{"tool_call_id": o.tool_call_id, "output": _clip(o.output)} for o in outputs],
        "events": events,
        "ending": outcome.ending,
        "usage": outcome.usage,
    }
    # Its size, computed once: the memory store weighs every state it keeps.
    record["chars"] = len(str(record))
    return record
