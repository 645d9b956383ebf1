"""Wire events and run messages, built from a :class:`RunOutcome` (docs/protocol.md sections 4-6).

Pure functions through :class:`JsonTemplate` shapes encoded once (a run's answer is on every
request's hot path). The same outcome renders as one non-stream body or as SSE messages; a
tool round is ONE message, because the official Go and Java examples read ``tool_calls`` of
the last event of every message. No promised field is ever ``null``.
"""

from __future__ import annotations

import math
import time
from typing import Any, NamedTuple

from .._http._responses import serial_id
from .._settings import DEFAULT_ANSWER_DELTA_CHARS, MAX_ANSWER_DELTAS
from ._json_template import Hole, JsonTemplate, json_text, string_text
from ._run_engine import RunFailure, RunOutcome

#: The ``usage.name`` the reference agent reports (its figures are character counts).
USAGE_MODEL_NAME = "appclient-reference-agent"

_AGENT_EVENT_TYPE = "ChatAgent"
_AGENT_NAME_TEXT = string_text(_AGENT_EVENT_TYPE)


_last_date: tuple[int, str] = (-1, "")


def utc_date(now: float | None = None) -> str:
    """Return the protocol's ``date`` text, e.g. ``2024-09-23T08:05:00Z``."""
    global _last_date  # a one-entry cache (every run asks); a race only recomputes it
    second = int(time.time() if now is None else now)
    cached = _last_date
    if cached[0] != second:
        cached = _last_date = (second, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second)))
    return cached[1]


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
    *,
    code: int | Hole = 0,
    message: str | Hole = "",
    **extra: Any,
) -> JsonTemplate:
    """Return the template of one event; its ``event_id`` is always a hole."""
    return JsonTemplate(
        {
            "event_code": code,
            "event_message": message,
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
    _AGENT_EVENT_TYPE, "error", "status", {}, code=Hole("code"), message=Hole("message")
)
_TEXT_EVENT = _event_shape(_AGENT_EVENT_TYPE, Hole("status"), "text", {"text": Hole("text")})
_TEXT_EVENT_WITH_USAGE = _event_shape(
    _AGENT_EVENT_TYPE, Hole("status"), "text", {"text": Hole("text")}, usage=_USAGE
)
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


class _CallTexts(NamedTuple):
    """One call's values as JSON texts, encoded once for every event that repeats them."""

    call_id: str
    name: str
    arguments: str


def _function_call_event(name: str, arguments: str) -> str:
    return _FUNCTION_CALL_EVENT.fill(event_id=_event_id(), name=name, arguments=arguments)


def _result_event(name: str, output: str) -> str:
    return _COMPONENT_RESULT_EVENT.fill(event_id=_event_id(), name=name, text=string_text(output))


def _cloud_part(outcome: RunOutcome) -> list[str]:
    events = []
    for step in outcome.cloud_steps:
        name = string_text(step.name)
        events += [
            _function_call_event(name, json_text(step.arguments)),
            _result_event(name, step.output),
        ]
    return events


def _interrupt_event(outcome: RunOutcome, calls: list[_CallTexts]) -> str:
    tool_calls = ",".join(
        _TOOL_CALL.fill(call_id=call.call_id, name=call.name, arguments=call.arguments)
        for call in calls
    )
    first = calls[0]
    return _INTERRUPT_EVENT.fill(
        event_id=_event_id(),
        thought=string_text(outcome.thought),
        name=first.name,
        arguments=first.arguments,
        call_id=first.call_id,
        tool_calls=f"[{tool_calls}]",
        **_usage(outcome.query, outcome.thought, outcome.usage),
    )


def _error_event(failure: RunFailure) -> str:
    return _ERROR_EVENT.fill(
        event_id=_event_id(), code=str(int(failure.code)), message=string_text(failure.message)
    )


def _status_event(status: str, name: str = _AGENT_NAME_TEXT) -> str:
    return _STATUS_EVENT.fill(event_id=_event_id(), name=name, status=string_text(status))


def _text_event(status: str, text: str, *, usage: dict[str, str] | None = None) -> str:
    template = _TEXT_EVENT if usage is None else _TEXT_EVENT_WITH_USAGE
    return template.fill(
        event_id=_event_id(), status=string_text(status), text=string_text(text), **(usage or {})
    )


def _hosted_cloud_messages(outcome: RunOutcome) -> list[list[str]]:
    """A streamed answer's cloud steps as the hosted service streams them: one event a message.

    For each component: its function_call, its own ``preparing``, its result and its
    ``success``; then the agent's own function_call (the ``origin_query``) and ``preparing``
    (the hosted recording, docs/protocol.md section 10).
    """
    messages: list[list[str]] = []
    for step in outcome.cloud_steps:
        name = string_text(step.name)
        messages.append([_function_call_event(name, json_text(step.arguments))])
        messages.append([_status_event("preparing", name)])
        messages.append([_result_event(name, step.output)])
        messages.append([_status_event("success", name)])
    origin = json_text({"origin_query": outcome.query})
    messages.append([_function_call_event(_AGENT_NAME_TEXT, origin)])
    messages.append([_status_event("preparing")])
    return messages


def _tool_round(outcome: RunOutcome) -> list[str]:
    calls = [
        _CallTexts(string_text(call.call_id), string_text(call.name), json_text(call.arguments))
        for call in outcome.calls
    ]
    events = _cloud_part(outcome)
    events.extend(_function_call_event(call.name, call.arguments) for call in calls)
    events.append(_interrupt_event(outcome, calls))
    return events


def _fill_message(
    conversation_id: str,
    message_id: str,
    events: list[str],
    *,
    answer: str,
    is_completion: bool,
    request_id: str,
    date: str,
) -> str:
    return _MESSAGE.fill(
        request_id=string_text(request_id),
        date=string_text(date),
        answer=string_text(answer),
        conversation_id=string_text(conversation_id),
        message_id=string_text(message_id),
        is_completion="true" if is_completion else "false",
        content=f"[{','.join(events)}]",
    )


def live_message(
    text: str,
    *,
    first: bool = False,
    failure: RunFailure | None = None,
    conversation_id: str,
    message_id: str,
    request_id: str,
    date: str,
) -> str:
    """One SSE message of a run still at work: an answer delta, or ``failure``'s last message.

    The ``first`` delta opens the run with its ``preparing`` status too: nothing is sent live
    before the first delta, so a run that ends in a tool round stays one message.
    """
    if failure is not None:
        events = [_error_event(failure)]
    else:
        events = [_status_event("preparing")] if first else []
        events.append(_text_event("running", text))
    return _fill_message(
        conversation_id,
        message_id,
        events,
        answer=text,
        is_completion=failure is not None,
        request_id=request_id,
        date=date,
    )


def _round_or_failure(outcome: RunOutcome) -> list[str] | None:
    """The events of a run that ends in a tool round or an error (one message); None else."""
    if outcome.failure is not None:
        return [*_cloud_part(outcome), _error_event(outcome.failure)]
    return _tool_round(outcome) if outcome.calls else None


def render_body(outcome: RunOutcome, *, request_id: str, date: str) -> str:
    """Return the non-stream body of a run as JSON text: every event, the whole answer."""
    ending = outcome.ending
    events = _round_or_failure(outcome)
    if events is None:
        usage = _usage(outcome.query, outcome.answer, outcome.usage)
        events = [
            _status_event("preparing"),
            *_cloud_part(outcome),
            _text_event("done", outcome.answer, usage=usage),
            _status_event("success"),
        ]
    return _fill_message(
        outcome.state.conversation_id,
        outcome.message_id,
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
    sent: str | None = None,
) -> list[str]:
    """Return the SSE messages of a run as JSON texts, in order; the last is the completion.

    ``sent`` is the answer text already streamed live (:func:`live_message`, whose first
    message opened the run): only the rest of the answer follows.
    """
    ending = outcome.ending
    early = _round_or_failure(outcome)
    groups: list[tuple[list[str], str]] = [] if early is None else [(early, "")]
    if early is None:
        hosted = bool(outcome.cloud_steps) and not sent
        if hosted:
            groups = [(events, "") for events in _hosted_cloud_messages(outcome)]
        else:
            opening = [] if sent else [_status_event("preparing")]
            groups = (
                [([*opening, *_cloud_part(outcome)], "")] if opening or outcome.cloud_steps else []
            )
        rest = outcome.answer
        if sent:  # the deltas sent live end where the answer's rest begins
            rest = rest[len(sent) :] if rest.startswith(sent) else ""
        for delta in split_answer(rest, max_chars=max_delta_chars):
            groups.append(([_text_event("running", delta)], delta))
        usage = _usage(outcome.query, outcome.answer, outcome.usage)
        groups.append(([_text_event("done", "", usage=usage)], ""))
        groups.append(([_status_event("success")], ""))
        if hosted:
            groups.append(([], ""))  # the hosted service ends such a stream with an empty message
    last = len(groups) - 1
    return [
        _fill_message(
            outcome.state.conversation_id,
            outcome.message_id,
            events,
            answer=answer,
            # An interrupt is no completion, plain or streamed.
            is_completion=index == last and ending != "interrupt",
            request_id=request_id,
            date=date,
        )
        for index, (events, answer) in enumerate(groups)
    ]
