"""Wire events and run messages, built from a :class:`RunOutcome` (PROTOCOL sections 4-6).

Pure functions from what a run did to the JSON-ready dicts the protocol sends. The same
outcome renders as one non-stream body or as a list of SSE messages:

- a run that ends with local calls: ``function_call``/``done`` events (cloud components
  first, each followed by its result event), one per local call, then the ``Interrupt``
  event, last, carrying ``tool_calls``. In a stream that is ONE message, because the
  official Go and Java examples read ``tool_calls`` of the last event of every message;
- a run that ends with an answer: a ``preparing`` status, the cloud component events, the
  answer (in a stream several ``running`` text deltas, each message carrying its delta as
  ``answer``, then an empty ``done`` text event; non-stream one ``done`` event with the
  whole text), and a final ``success`` status on a message with ``is_completion: true``;
- a run that fails: the events so far and an ``error`` event with a non-zero code.

No field the protocol promises is ever ``null``; ``usage`` and ``tool_calls`` are left out
where there is nothing to say, as the recorded hosted responses do.
"""

from __future__ import annotations

import math
import time
from typing import Any

from .._constants import DEFAULT_ANSWER_DELTA_CHARS
from ._responses import serial_id
from ._run_engine import CloudStep, RunFailure, RunOutcome
from ._state import PendingCall

__all__ = [
    "USAGE_MODEL_NAME",
    "render_body",
    "render_stream",
    "split_answer",
    "utc_date",
]

#: The ``usage.name`` the reference agent reports (its figures are character counts).
USAGE_MODEL_NAME = "appclient-reference-agent"

_AGENT_EVENT_TYPE = "ChatAgent"


def utc_date(now: float | None = None) -> str:
    """Return the protocol's ``date`` text, e.g. ``2024-09-23T08:05:00Z``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))


def split_answer(text: str, *, max_chars: int = DEFAULT_ANSWER_DELTA_CHARS) -> list[str]:
    """Split an answer into the deltas of a stream: several, of nearly equal size.

    Args:
        text: The whole answer.
        max_chars: The largest delta; a text of two or more characters always gives at
            least two deltas, so clients see a real stream.

    Returns:
        The deltas; joined they give ``text`` back. Empty for an empty text.
    """
    if not text:
        return []
    count = max(math.ceil(len(text) / max(max_chars, 1)), 2 if len(text) > 1 else 1)
    size = math.ceil(len(text) / count)
    return [text[start : start + size] for start in range(0, len(text), size)]


def _usage(prompt: str, completion: str) -> dict[str, Any]:
    prompt_tokens = len(prompt)
    completion_tokens = len(completion)
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "name": USAGE_MODEL_NAME,
    }


def _event(
    event_type: str,
    status: str,
    content_type: str,
    outputs: dict[str, Any],
    *,
    code: int = 0,
    message: str = "",
    usage: dict[str, Any] | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "event_code": code,
        "event_message": message,
        "event_type": event_type,
        "event_id": serial_id(),
        "event_status": status,
        "content_type": content_type,
        "outputs": outputs,
    }
    if usage is not None:
        event["usage"] = usage
    if tool_calls is not None:
        event["tool_calls"] = tool_calls
    return event


def _function_call_event(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    text = {"arguments": arguments, "component_code": name, "component_name": name}
    return _event("function_call", "done", "function_call", {"text": text})


def _cloud_events(step: CloudStep) -> list[dict[str, Any]]:
    return [
        _function_call_event(step.name, step.arguments),
        _event(step.name, "done", "text", {"text": step.output}),
    ]


def _interrupt_event(outcome: RunOutcome) -> dict[str, Any]:
    calls: tuple[PendingCall, ...] = outcome.calls
    first = calls[0]
    plan_usage = {**_usage(outcome.query, outcome.thought), "type": "plan"}
    function_call = {
        "thought": outcome.thought,
        "name": first.name,
        "arguments": first.arguments,
        "usage": plan_usage,
        "tool_call_id": first.call_id,
    }
    tool_calls = [
        {
            "id": call.call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments},
        }
        for call in calls
    ]
    return _event(
        "Interrupt",
        "interrupt",
        "contexts",
        {"text": {"function_call": function_call, "used_tool": []}},
        tool_calls=tool_calls,
    )


def _error_event(failure: RunFailure) -> dict[str, Any]:
    return _event(
        _AGENT_EVENT_TYPE, "error", "status", {}, code=failure.code, message=failure.message
    )


def _status_event(status: str) -> dict[str, Any]:
    return _event(_AGENT_EVENT_TYPE, status, "status", {})


def _text_event(status: str, text: str, *, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return _event(_AGENT_EVENT_TYPE, status, "text", {"text": text}, usage=usage)


def _cloud_part(outcome: RunOutcome) -> list[dict[str, Any]]:
    return [event for step in outcome.cloud_steps for event in _cloud_events(step)]


def _tool_round(outcome: RunOutcome) -> list[dict[str, Any]]:
    events = _cloud_part(outcome)
    events.extend(_function_call_event(call.name, call.arguments) for call in outcome.calls)
    events.append(_interrupt_event(outcome))
    return events


def _message(
    outcome: RunOutcome,
    events: list[dict[str, Any]],
    *,
    answer: str,
    is_completion: bool,
    request_id: str,
    date: str,
) -> dict[str, Any]:
    return {
        "request_id": request_id,
        "date": date,
        "answer": answer,
        "conversation_id": outcome.state.conversation_id,
        "message_id": outcome.message_id,
        "is_completion": is_completion,
        "content": events,
    }


def render_body(outcome: RunOutcome, *, request_id: str, date: str) -> dict[str, Any]:
    """Return the non-stream body of a run: every event in order, the whole answer.

    Args:
        outcome: What the run did.
        request_id: The request id (also sent as the header).
        date: The response date (see :func:`utc_date`).
    """
    ending = outcome.ending
    if ending == "interrupt":
        events = _tool_round(outcome)
    elif ending == "error":
        assert outcome.failure is not None  # noqa: S101 - guaranteed by ending == "error"
        events = [*_cloud_part(outcome), _error_event(outcome.failure)]
    else:
        usage = _usage(outcome.query, outcome.answer)
        events = [
            _status_event("preparing"),
            *_cloud_part(outcome),
            _text_event("done", outcome.answer, usage=usage),
            _status_event("success"),
        ]
    return _message(
        outcome,
        events,
        answer=outcome.answer if ending == "answer" else "",
        is_completion=ending != "interrupt",
        request_id=request_id,
        date=date,
    )


def render_stream(
    outcome: RunOutcome,
    *,
    request_id: str,
    date: str,
    max_delta_chars: int = DEFAULT_ANSWER_DELTA_CHARS,
) -> list[dict[str, Any]]:
    """Return the SSE messages of a run, in order; the last one has ``is_completion``.

    Args:
        outcome: What the run did.
        request_id: The request id (repeated in every message).
        date: The response date.
        max_delta_chars: The largest answer delta.
    """
    ending = outcome.ending
    if ending == "interrupt":
        groups: list[tuple[list[dict[str, Any]], str]] = [(_tool_round(outcome), "")]
    elif ending == "error":
        assert outcome.failure is not None  # noqa: S101 - guaranteed by ending == "error"
        groups = [([*_cloud_part(outcome), _error_event(outcome.failure)], "")]
    else:
        groups = [([_status_event("preparing"), *_cloud_part(outcome)], "")]
        for delta in split_answer(outcome.answer, max_chars=max_delta_chars):
            groups.append(([_text_event("running", delta)], delta))
        usage = _usage(outcome.query, outcome.answer)
        groups.append(([_text_event("done", "", usage=usage)], ""))
        groups.append(([_status_event("success")], ""))
    last = len(groups) - 1
    return [
        _message(
            outcome,
            events,
            answer=answer,
            is_completion=index == last,
            request_id=request_id,
            date=date,
        )
        for index, (events, answer) in enumerate(groups)
    ]
