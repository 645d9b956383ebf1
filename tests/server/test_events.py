"""Run outcomes render exactly as docs/protocol.md sections 4-6 describe, stream and non-stream."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from appclient._core._models import RunAnswer
from appclient.server._agents._agent_api import ToolResult
from appclient.server._runs._events import render_body, render_stream, split_answer, utc_date
from appclient.server._runs._run_engine import RunOutcome
from appclient.server._settings import MAX_ANSWER_DELTAS
from appclient.server._state._state import ConversationState, PendingCall, RunFailure, RunResult

NEVER_NULL = (
    "event_code",
    "event_message",
    "event_type",
    "event_id",
    "event_status",
    "content_type",
    "outputs",
)
STATE = ConversationState("conv-1", "owner", "app", 0.0)
CALL = PendingCall("call-1", "get_current_weather", {"location": "北京", "unit": "celsius"})
STEP = ToolResult("cloud-1", "WeatherQuery", {"city": "北京"}, "北京 晴 25度", cloud=True)


def _outcome(**fields) -> RunOutcome:
    return RunOutcome(STATE, RunResult("msg-1", "北京天气", **fields))


def _body(outcome: RunOutcome) -> dict:
    return json.loads(render_body(outcome, request_id="r", date="d"))


def _stream(outcome: RunOutcome) -> list[dict]:
    return [json.loads(text) for text in render_stream(outcome, request_id="r", date="d")]


def _all_messages(outcome: RunOutcome) -> list[dict]:
    return [_body(outcome), *_stream(outcome)]


@pytest.mark.parametrize(
    "outcome",
    [
        _outcome(calls=(CALL,), thought="t"),
        _outcome(answer="北京今天25度，晴。", cloud_steps=(STEP,)),
        _outcome(failure=RunFailure(5001, "boom")),
    ],
    ids=["interrupt", "answer", "error"],
)
def test_no_promised_field_is_null(outcome: RunOutcome) -> None:
    """Message and event fields the protocol promises are never null."""
    for message in _all_messages(outcome):
        for key in ("request_id", "date", "answer", "conversation_id", "message_id", "content"):
            assert message[key] is not None
        for event in message["content"]:
            for key in NEVER_NULL:
                assert event[key] is not None
            assert isinstance(event["event_code"], int)
            assert "usage" not in event or event["usage"] is not None
            assert "tool_calls" not in event or event["tool_calls"]
        RunAnswer.model_validate(message)


def test_interrupt_is_last_and_carries_tool_calls() -> None:
    """A tool round ends with the Interrupt event holding the calls; arguments are objects."""
    body = _body(_outcome(calls=(CALL,), thought="需要调用"))
    last = body["content"][-1]
    assert last["event_type"] == "Interrupt"
    assert last["event_status"] == "interrupt"
    assert last["content_type"] == "contexts"
    assert last["tool_calls"] == [
        {
            "id": "call-1",
            "type": "function",
            "function": {
                "name": "get_current_weather",
                "arguments": {"location": "北京", "unit": "celsius"},
            },
        }
    ]
    function_call = last["outputs"]["text"]["function_call"]
    assert set(function_call) == {"thought", "name", "arguments", "tool_call_id", "usage"}
    assert function_call["tool_call_id"] == "call-1"
    assert last["outputs"]["text"]["used_tool"] == []
    before = body["content"][-2]
    assert (before["event_type"], before["event_status"]) == ("function_call", "done")
    assert before["outputs"]["text"]["component_name"] == "get_current_weather"
    assert body["is_completion"] is False


def test_streamed_tool_round_is_one_message() -> None:
    """A streamed tool round is ONE SSE message with the interrupt last."""
    messages = _stream(_outcome(calls=(CALL, CALL)))
    assert len(messages) == 1
    assert messages[0]["content"][-1]["tool_calls"]
    assert len(messages[0]["content"][-1]["tool_calls"]) == 2


def test_streamed_answer_has_several_running_deltas_then_done_then_success() -> None:
    """Answers stream as running deltas (each with its answer), an empty done, success."""
    answer = "北京今天25度，晴。适合出门。"
    messages = _stream(_outcome(answer=answer))
    statuses = [m["content"][-1]["event_status"] for m in messages]
    assert statuses[0] == "preparing"
    running = [m for m in messages if m["content"][-1]["event_status"] == "running"]
    assert len(running) >= 2
    assert all(m["answer"] == m["content"][-1]["outputs"]["text"] for m in running)
    assert "".join(m["answer"] for m in messages) == answer
    assert statuses[-2:] == ["done", "success"]
    assert messages[-2]["content"][-1]["outputs"] == {"text": ""}
    assert messages[-1]["content"][-1]["outputs"] == {}
    assert messages[-1]["is_completion"] is True
    assert not any(m["is_completion"] for m in messages[:-1])


def test_message_id_is_constant_within_a_run() -> None:
    """Every message of a run carries the same message_id."""
    messages = _stream(_outcome(answer="一二三四五六七八九十"))
    assert {m["message_id"] for m in messages} == {"msg-1"}


def test_non_stream_answer_has_the_whole_text() -> None:
    """A non-stream answer lists preparing, components, one done text and success."""
    body = _body(_outcome(answer="全文", cloud_steps=(STEP,)))
    assert body["answer"] == "全文"
    assert [e["event_status"] for e in body["content"]] == [
        "preparing",
        "done",
        "done",
        "done",
        "success",
    ]
    assert body["content"][1]["content_type"] == "function_call"
    assert body["content"][2]["outputs"] == {"text": "北京 晴 25度"}
    assert body["content"][3]["outputs"] == {"text": "全文"}
    assert body["is_completion"] is True


def test_error_run_ends_with_an_error_event() -> None:
    """A failed run ends with an error event with a non-zero code and a message."""
    for message in (
        _body(_outcome(failure=RunFailure(5002, "too many"))),
        _stream(_outcome(failure=RunFailure(5002, "too many")))[-1],
    ):
        last = message["content"][-1]
        assert last["event_status"] == "error"
        assert last["event_code"] == 5002
        assert last["event_message"] == "too many"


@pytest.mark.parametrize("text", ["", "a", "ab", "北京今天25度", "x" * 100])
def test_split_answer_joins_back(text: str) -> None:
    """The deltas of an answer join back to the answer; two or more when possible."""
    parts = split_answer(text, max_chars=8)
    assert "".join(parts) == text
    assert all(0 < len(p) <= 8 for p in parts)
    if len(text) >= 2:
        assert len(parts) >= 2


def test_a_very_long_answer_streams_in_a_bounded_number_of_deltas() -> None:
    """A 400,000-character answer streams in at most MAX_ANSWER_DELTAS deltas, all of it."""
    text = "北京今天25度。" * 50_000
    parts = split_answer(text, max_chars=8)
    assert len(parts) <= MAX_ANSWER_DELTAS
    assert "".join(parts) == text


def test_utc_date_format() -> None:
    """Dates look like the hosted service's: 2024-09-23T08:05:00Z."""
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", utc_date(0.0))


@given(text=st.text(), value=st.text())
def test_any_text_renders_as_valid_json_that_keeps_it(text: str, value: str) -> None:
    """Thoughts, answers, outputs, messages and arguments of any text come back intact."""
    step = ToolResult("cloud-1", "WeatherQuery", {"city": value}, text, cloud=True)
    call = PendingCall("call-1", "get_current_weather", {"location": value, text: [value]})
    outcomes = [
        _outcome(calls=(call,), thought=text, cloud_steps=(step,)),
        _outcome(answer=text + value, cloud_steps=(step,)),
        _outcome(failure=RunFailure(5001, text)),
    ]
    interrupt, answer, error = ([_body(o), *_stream(o)] for o in outcomes)
    for message in interrupt:
        last = message["content"][-1]
        assert last["outputs"]["text"]["function_call"]["thought"] == text
        assert last["tool_calls"][0]["function"]["arguments"] == call.arguments
        assert message["content"][1]["outputs"]["text"] == text
    assert answer[0]["answer"] == text + value
    assert "".join(message["answer"] for message in answer[1:]) == text + value
    assert all(message["content"][-1]["event_message"] == text for message in error)


def test_rendered_text_is_one_line() -> None:
    """Line and paragraph separators in agent text never break a body or SSE message."""
    outcome = _outcome(answer="一\n二\u2028三\u2029四")
    for text in [
        render_body(outcome, request_id="r", date="d"),
        *render_stream(outcome, request_id="r", date="d"),
    ]:
        assert len(text.splitlines()) == 1
