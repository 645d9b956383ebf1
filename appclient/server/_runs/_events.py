"""Wire events and run messages, built from a :class:`RunOutcome` (docs/protocol.md sections 4-6).

Pure functions through :class:`JsonTemplate` shapes encoded once (a run's answer is on every
request's hot path). The same outcome renders as one non-stream body or as SSE messages; a
tool round is ONE message, because the official Go and Java examples read ``tool_calls`` of
the last event of every message. No promised field is ever ``null``.
"""

from __future__ import annotations

import functools
import math
import time
from typing import Any

from .._http._responses import serial_id
from .._settings import DEFAULT_ANSWER_DELTA_CHARS, MAX_ANSWER_DELTAS
from .._state._state import RunFailure, RunResult
from ._json_template import Hole, JsonTemplate, json_text, string_text
from ._run_engine import RunOutcome

#: The ``usage.name`` the reference agent reports (its figures are character counts).
USAGE_MODEL_NAME = "appclient-reference-agent"

_AGENT_EVENT_TYPE = "ChatAgent"
_AGENT_NAME_TEXT = string_text(_AGENT_EVENT_TYPE)


def utc_date(now: float | None = None) -> str:
    """Return the protocol's ``date`` text, e.g. ``2024-09-23T08:05:00Z``."""
    return _date_of(int(time.time() if now is None else now))


@functools.lru_cache(maxsize=1)  # every run asks, mostly within the same second
def _date_of(second: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))


def split_answer(text: str, *, max_chars: int = DEFAULT_ANSWER_DELTA_CHARS) -> list[str]:
    """Split an answer into a stream's deltas of nearly equal size; joined they give it back.

    At most ``MAX_ANSWER_DELTAS`` deltas (longer ones then), and at least two for a text of
    two or more characters, so clients see a real stream.
    """
    if not text:
        return []
    count = math.ceil(len(text) / max(max_chars, 1))
    count = max(min(count, MAX_ANSWER_DELTAS), 2 if len(text) > 1 else 1)
    size = math.ceil(len(text) / count)
    return [text[start : start + size] for start in range(0, len(text), size)]


def _event_shape(
    event_type: str | Hole,
    status: str | Hole,
    content_type: str,
    outputs: dict[str, Any],
    **extra: Any,
) -> JsonTemplate:
    """Return the template of one event (``extra`` adds or replaces fields, in place)."""
    return JsonTemplate(
        {
            "event_code": 0,
            "event_message": "",
            "event_type": event_type,
            "event_id": Hole("event_id"),
            "event_status": status,
            "content_type": content_type,
            "outputs": outputs,
            **extra,
        }
    )


# The reference agent has no tokenizer: its usage figures count characters.
_USAGE = {
    "prompt_tokens": Hole("prompt_tokens"),
    "completion_tokens": Hole("completion_tokens"),
    "total_tokens": Hole("total_tokens"),
    "name": USAGE_MODEL_NAME,
}
_FUNCTION_CALL_EVENT = _event_shape(
    "function_call",
    "done",
    "function_call",
    {
        "text": {
            "arguments": Hole("arguments"),
            "component_code": Hole("name"),
            "component_name": Hole("name"),
        }
    },
)
_COMPONENT_RESULT_EVENT = _event_shape(Hole("name"), "done", "text", {"text": Hole("text")})
_INTERRUPT_EVENT = _event_shape(
    "Interrupt",
    "interrupt",
    "contexts",
    {
        "text": {
            "function_call": {
                "thought": Hole("thought"),
                "name": Hole("name"),
                "arguments": Hole("arguments"),
                "usage": {**_USAGE, "type": "plan"},
                "tool_call_id": Hole("call_id"),
            },
            "used_tool": [],
        }
    },
    tool_calls=Hole("tool_calls"),
)
_TOOL_CALL = JsonTemplate(
    {
        "id": Hole("call_id"),
        "type": "function",
        "function": {"name": Hole("name"), "arguments": Hole("arguments")},
    }
)
_STATUS_EVENT = _event_shape(Hole("name"), Hole("status"), "status", {})
_ERROR_EVENT = _event_shape(
    _AGENT_EVENT_TYPE, "error", "status", {}, event_code=Hole("code"), event_message=Hole("message")
)
_DELTA_EVENT = _event_shape(_AGENT_EVENT_TYPE, "running", "text", {"text": Hole("text")})
_DONE_EVENT = _event_shape(_AGENT_EVENT_TYPE, "done", "text", {"text": Hole("text")}, usage=_USAGE)
_MESSAGE = JsonTemplate(
    {
        "request_id": Hole("request_id"),
        "date": Hole("date"),
        "answer": Hole("answer"),
        "conversation_id": Hole("conversation_id"),
        "message_id": Hole("message_id"),
        "is_completion": Hole("is_completion"),
        "content": Hole("content"),
    }
)


def _event_id() -> str:
    return string_text(serial_id())


def _usage(prompt: str, completion: str, reported: dict[str, int] | None = None) -> dict[str, str]:
    """Return the usage holes' texts: the model's reported figures, else character counts."""
    counted = {"prompt_tokens": len(prompt), "completion_tokens": len(completion)}
    counts = reported or {**counted, "total_tokens": len(prompt) + len(completion)}
    return {key: str(int(counts.get(key, 0))) for key in _USAGE if key != "name"}


def _function_call_event(name: str, arguments: str) -> str:
    return _FUNCTION_CALL_EVENT.fill(event_id=_event_id(), name=name, arguments=arguments)


def _status_event(status: str, name: str = _AGENT_NAME_TEXT) -> str:
    return _STATUS_EVENT.fill(event_id=_event_id(), name=name, status=string_text(status))


def _delta_event(text: str) -> str:
    return _DELTA_EVENT.fill(event_id=_event_id(), text=string_text(text))


def _done_event(run: RunResult, text: str) -> str:
    usage = _usage(run.query, run.answer, run.usage)
    return _DONE_EVENT.fill(event_id=_event_id(), text=string_text(text), **usage)


def _error_event(failure: RunFailure) -> str:
    return _ERROR_EVENT.fill(
        event_id=_event_id(), code=str(int(failure.code)), message=string_text(failure.message)
    )


def _cloud_events(run: RunResult, *, hosted: bool = False) -> list[str]:
    """Each cloud step's function_call and result.

    ``hosted`` adds each component's own ``preparing`` and ``success``, as the hosted service
    streams them (its recording, docs/protocol.md section 10).
    """
    events = []
    for step in run.cloud_steps:
        name = string_text(step.name)
        events.append(_function_call_event(name, json_text(step.arguments)))
        if hosted:
            events.append(_status_event("preparing", name))
        output = string_text(step.output)
        events.append(_COMPONENT_RESULT_EVENT.fill(event_id=_event_id(), name=name, text=output))
        if hosted:
            events.append(_status_event("success", name))
    return events


def _tool_round(run: RunResult) -> list[str]:
    # Each call's values are encoded once for the three events that repeat them.
    calls = [
        (string_text(call.call_id), string_text(call.name), json_text(call.arguments))
        for call in run.calls
    ]
    events = _cloud_events(run)
    events += [_function_call_event(name, arguments) for _, name, arguments in calls]
    tool_calls = ",".join(
        _TOOL_CALL.fill(call_id=call_id, name=name, arguments=arguments)
        for call_id, name, arguments in calls
    )
    call_id, name, arguments = calls[0]
    interrupt = _INTERRUPT_EVENT.fill(
        event_id=_event_id(),
        thought=string_text(run.thought),
        name=name,
        arguments=arguments,
        call_id=call_id,
        tool_calls=f"[{tool_calls}]",
        **_usage(run.query, run.thought, run.usage),
    )
    return [*events, interrupt]


def message_head(
    conversation_id: str, message_id: str, request_id: str, date: str
) -> dict[str, str]:
    """Return the JSON texts every message of one run repeats (for :func:`live_message`)."""
    return {
        "request_id": string_text(request_id),
        "date": string_text(date),
        "conversation_id": string_text(conversation_id),
        "message_id": string_text(message_id),
    }


def _message(head: dict[str, str], events: list[str], answer: str, is_completion: bool) -> str:
    return _MESSAGE.fill(
        **head,
        answer=string_text(answer),
        is_completion="true" if is_completion else "false",
        content=f"[{','.join(events)}]",
    )


def live_message(
    text: str, head: dict[str, str], *, first: bool = False, failure: RunFailure | None = None
) -> str:
    """One SSE message of a run still at work: an answer delta, or ``failure``'s last message.

    The ``first`` delta opens the run with its ``preparing`` status too: nothing is sent live
    before the first delta, so a run that ends in a tool round stays one message.
    """
    if failure is not None:
        events = [_error_event(failure)]
    else:
        events = [_status_event("preparing")] if first else []
        events.append(_delta_event(text))
    return _message(head, events, text, failure is not None)


def _round_or_failure(run: RunResult) -> list[str] | None:
    """The events of a run that ends in a tool round or an error (one message); None else."""
    if run.failure is not None:
        return [*_cloud_events(run), _error_event(run.failure)]
    return _tool_round(run) if run.calls else None


def render_body(outcome: RunOutcome, *, request_id: str, date: str) -> str:
    """Return the non-stream body of a run as JSON text: every event, the whole answer."""
    run = outcome.run
    events = _round_or_failure(run)
    if events is None:
        events = [
            _status_event("preparing"),
            *_cloud_events(run),
            _done_event(run, run.answer),
            _status_event("success"),
        ]
    head = message_head(outcome.state.conversation_id, run.message_id, request_id, date)
    answer = run.answer if run.ending == "answer" else ""
    return _message(head, events, answer, run.ending != "interrupt")


def render_stream(
    outcome: RunOutcome,
    *,
    request_id: str,
    date: str,
    max_delta_chars: int = DEFAULT_ANSWER_DELTA_CHARS,
    sent: str | None = None,
) -> list[str]:
    """Return the SSE messages of a run as JSON texts, in order; the last is the completion.

    ``sent`` is the answer text already streamed live (:func:`live_message`, whose first
    message opened the run): only the rest of the answer follows.
    """
    run = outcome.run
    head = message_head(outcome.state.conversation_id, run.message_id, request_id, date)
    early = _round_or_failure(run)
    if early is not None:  # one message; an interrupt is no completion, plain or streamed
        return [_message(head, early, "", run.failure is not None)]
    hosted = bool(run.cloud_steps) and not sent
    if hosted:  # as the hosted service streams cloud steps: one event a message
        origin = json_text({"origin_query": run.query})
        opening = [
            *_cloud_events(run, hosted=True),
            _function_call_event(_AGENT_NAME_TEXT, origin),
            _status_event("preparing"),
        ]
        groups = [([event], "") for event in opening]
    else:
        opening = _cloud_events(run) if sent else [_status_event("preparing")]
        groups = [(opening, "")] if opening else []
    rest = run.answer
    if sent:  # the deltas sent live end where the answer's rest begins
        rest = rest[len(sent) :] if rest.startswith(sent) else ""
    for delta in split_answer(rest, max_chars=max_delta_chars):
        groups.append(([_delta_event(delta)], delta))
    groups.append(([_done_event(run, "")], ""))
    groups.append(([_status_event("success")], ""))
    if hosted:
        groups.append(([], ""))  # the hosted service ends such a stream with an empty message
    last = len(groups) - 1
    return [
        _message(head, events, answer, index == last)
        for index, (events, answer) in enumerate(groups)
    ]
