"""RunStream over plain byte chunks: messages, accumulation, final events, closing."""

from __future__ import annotations

import gc
import json
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from appclient import RunAnswer, RunError, TransportError
from appclient.errors import ResponseDecodeError, StreamInterruptedError
from appclient.types import RunStream
from tests.conftest import RESPONSE_FIXTURES

SSE_FIXTURES = sorted(RESPONSE_FIXTURES.glob("*.sse"))


def _event(status: str, **extra: Any) -> dict[str, Any]:
    return {"event_status": status, "event_type": "ChatAgent", "content_type": "text", **extra}


def _message(answer: str = "", *events: dict[str, Any], **extra: Any) -> bytes:
    body = {
        "request_id": "r1",
        "conversation_id": "c1",
        "message_id": "m1",
        "answer": answer,
        "content": list(events),
        **extra,
    }
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n".encode()


ANSWER = [
    _message("", _event("preparing")),
    _message("北京", _event("running", outputs={"text": "北京"})),
    _message("25度", _event("running", outputs={"text": "25度"})),
    _message("", _event("success"), is_completion=True),
]
TOOL_CALL = {"id": "call-1", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}


class _Closer:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1


def _stream(chunks: list[bytes], closer: _Closer | None = None) -> RunStream:
    return RunStream(chunks, close=closer, conversation_id="c1", request_id="h1")


def test_iteration_yields_one_answer_per_message() -> None:
    """Each SSE message becomes one RunAnswer carrying its delta."""
    assert [message.answer for message in _stream(ANSWER)] == ["", "北京", "25度", ""]


def test_content_iterates_like_the_official_message() -> None:
    """`for chunk in stream.content` works as for the official SDK's streamed Message."""
    stream = _stream(ANSWER)
    assert "".join(chunk.answer for chunk in stream.content) == "北京25度"


def test_collect_returns_the_accumulated_answer() -> None:
    """collect() joins the answer, keeps every event and the last message's ids."""
    answer = _stream(ANSWER).collect()
    assert isinstance(answer, RunAnswer)
    assert answer.answer == "北京25度"
    assert [event.event_status for event in answer.events] == [
        "preparing",
        "running",
        "running",
        "success",
    ]
    assert (answer.message_id, answer.conversation_id, answer.is_completion) == ("m1", "c1", True)


def test_collect_after_partial_iteration_includes_earlier_messages() -> None:
    """Messages already read still count in the collected answer."""
    stream = _stream(ANSWER)
    next(stream)
    next(stream)
    assert stream.answer == "北京"
    assert stream.collect().answer == "北京25度"


def test_messages_split_across_any_chunks() -> None:
    """The stream gives the same messages however the bytes are chunked."""
    body = b"".join(ANSWER)
    single_bytes = [body[i : i + 1] for i in range(len(body))]
    assert _stream(single_bytes).collect().answer == "北京25度"


def test_tool_calls_of_the_interrupt_are_exposed() -> None:
    """The tool calls of the last event that has any are available on the stream."""
    chunks = [
        _message("", _event("done", content_type="function_call")),
        _message("", _event("interrupt", content_type="contexts", tool_calls=[TOOL_CALL])),
    ]
    stream = _stream(chunks)
    answer = stream.collect()
    assert [call.id for call in stream.tool_calls] == ["call-1"]
    assert answer.events[-1].tool_calls is not None
    assert answer.events[-1].tool_calls[-1].function.arguments == {"x": 1}


def test_tool_calls_on_the_last_event_end_the_run() -> None:
    """A message whose last event carries tool calls is a final event (minimal fixture)."""
    stream = _stream([_message("", {"event_code": 0, "tool_calls": [TOOL_CALL]})])
    stream.collect()
    assert stream.finished


def test_is_completion_ends_the_run() -> None:
    """is_completion: true counts as the end of the run."""
    stream = _stream([_message("x", _event("done"), is_completion=True)])
    assert stream.collect().answer == "x"


def test_stream_without_final_event_raises_interrupted() -> None:
    """A stream that closes before success/interrupt/error raises StreamInterruptedError."""
    stream = _stream(ANSWER[:3])
    assert next(stream).answer == ""
    with pytest.raises(StreamInterruptedError, match="after 3 message"):
        stream.collect()
    assert stream.answer == "北京25度"


def test_broken_connection_raises_interrupted_with_the_cause() -> None:
    """A transport failure mid-stream becomes StreamInterruptedError, cause chained."""

    def chunks() -> Iterator[bytes]:
        yield ANSWER[0]
        yield ANSWER[1][:10]
        raise TransportError("connection reset")

    closer = _Closer()
    stream = RunStream(chunks(), close=closer)
    assert next(stream).answer == ""
    with pytest.raises(StreamInterruptedError, match="broke after 1 message") as caught:
        next(stream)
    assert isinstance(caught.value.__cause__, TransportError)
    assert closer.calls == 1


def test_connection_lost_after_the_final_event_ends_the_stream() -> None:
    """A reset or read timeout after the final event keeps the complete answer."""

    def chunks() -> Iterator[bytes]:
        yield from ANSWER
        raise TransportError("connection reset")

    closer = _Closer()
    stream = RunStream(chunks(), close=closer)
    assert stream.collect().answer == "北京25度"
    assert closer.calls == 1


def test_bare_json_error_body_raises_run_error() -> None:
    """An event stream that is a plain JSON error (no data: lines) raises the server's error."""
    body = b'{"request_id": "r9", "code": "InvalidAppId", "message": "no such app"}\n'
    stream = _stream([body])
    with pytest.raises(RunError, match="InvalidAppId: no such app") as caught:
        stream.collect()
    assert not isinstance(caught.value, StreamInterruptedError)


def test_error_event_raises_run_error_and_closes() -> None:
    """An error event raises RunError with its code and message, and releases the response."""
    closer = _Closer()
    chunks = [
        ANSWER[1],
        _message("", _event("error", event_code=500, event_message="component failed")),
        ANSWER[3],
    ]
    stream = _stream(chunks, closer)
    with pytest.raises(RunError, match="component failed") as caught:
        stream.collect()
    assert caught.value.code == "500"
    assert not isinstance(caught.value, StreamInterruptedError)
    assert closer.calls == 1
    assert stream.answer == "北京"
    assert list(stream) == []


def test_top_level_error_message_raises_run_error() -> None:
    """A message with a top-level code/message raises RunError."""
    stream = _stream([b'data: {"code": "Throttled", "message": "slow down"}\n\n'])
    with pytest.raises(RunError, match="Throttled: slow down"):
        next(stream)


def test_undecodable_message_raises_decode_error_and_closes() -> None:
    """A message that is not JSON raises ResponseDecodeError and releases the response."""
    closer = _Closer()
    with pytest.raises(ResponseDecodeError):
        next(_stream([b"data: {not json\n\n"], closer))
    assert closer.calls == 1


def test_exhaustion_closes_the_response_once() -> None:
    """Reading to the end releases the response exactly once."""
    closer = _Closer()
    stream = _stream(ANSWER, closer)
    stream.collect()
    stream.close()
    assert closer.calls == 1
    assert stream.closed


def test_a_read_stream_is_freed_without_the_cycle_collector() -> None:
    """Its end (a StopIteration) is not kept in a cycle, so the stream goes when dropped."""
    stream = _stream(list(ANSWER))
    stream.collect()
    gone = weakref.ref(stream)
    gc.disable()  # what a cycle would keep, only the collector could free
    try:
        del stream
        assert gone() is None
    finally:
        gc.enable()


def test_close_stops_iteration_early() -> None:
    """After close(), iteration ends without an interruption error."""
    closer = _Closer()
    stream = _stream(ANSWER, closer)
    next(stream)
    stream.close()
    assert list(stream) == []
    assert closer.calls == 1
    assert not stream.finished


def test_collect_after_an_early_close_raises_interrupted() -> None:
    """collect() never passes the part read before close() off as the complete answer."""
    stream = _stream(ANSWER)
    next(stream)
    stream.close()
    with pytest.raises(StreamInterruptedError, match="closed after 1 message"):
        stream.collect()
    assert stream.accumulated().events[0].event_status == "preparing"


def test_context_manager_closes() -> None:
    """Leaving a with block releases the response."""
    closer = _Closer()
    with _stream(ANSWER, closer) as stream:
        next(stream)
    assert closer.calls == 1


def test_from_body_treats_a_json_answer_as_one_message() -> None:
    """A JSON body sent to a stream request is read as a single message."""
    body = json.dumps({"answer": "hi", "content": [_event("success")]}, indent=2).encode()
    stream = RunStream.from_body(body)
    assert [message.answer for message in stream] == ["hi"]


def test_from_body_with_top_level_error_raises() -> None:
    """The hosted service's JSON error to a stream request raises RunError."""
    stream = RunStream.from_body(b'{"code": "InvalidApp", "message": "no such app"}')
    with pytest.raises(RunError, match="no such app"):
        stream.collect()


def test_properties_before_any_message() -> None:
    """A fresh stream reports empty results and its repr names the conversation."""
    stream = _stream(ANSWER)
    assert (stream.answer, stream.events, stream.tool_calls, stream.message_id) == ("", [], [], "")
    assert stream.accumulated().conversation_id == "c1"
    assert "c1" in repr(stream)


@pytest.mark.parametrize("path", SSE_FIXTURES, ids=lambda p: p.name)
def test_every_fixture_stream_parses(path: Path) -> None:
    """Every recorded stream yields run answers; those with a final event end cleanly."""
    stream = RunStream([path.read_bytes()])
    messages: list[RunAnswer] = []
    try:
        messages.extend(stream)
    except StreamInterruptedError:
        # The minimal final-answer fixture has no final event: appclient refuses to take it
        # for a complete answer (docs/protocol.md section 5), after parsing every message.
        assert path.name == "run_stream_final_minimal.sse"
        assert stream.answer == "北京今天25度"
        return
    assert messages
    assert stream.finished


def test_realistic_tool_call_fixture_gives_its_tool_call() -> None:
    """The realistic streamed interrupt exposes the tool call's name and dict arguments."""
    path = RESPONSE_FIXTURES / "run_stream_tool_call_realistic.sse"
    stream = RunStream([path.read_bytes()])
    answer = stream.collect()
    call = answer.events[-1].tool_calls[-1]  # type: ignore[index]
    assert call.function.name == "get_current_weather"
    assert call.function.arguments == {"location": "北京", "unit": "celsius"}


def test_the_token_it_scrubs_is_not_in_its_attributes() -> None:
    """vars() of a stream (a debugger's view) never shows the token it scrubs from errors."""
    stream = RunStream([b'data: {"answer": "a"}\n\n'], secrets=["sk-stream-token-1"])
    assert "sk-stream-token-1" not in repr(vars(stream))
    stream.close()


def test_an_echoed_token_is_still_scrubbed_from_an_error_event() -> None:
    """A run error event echoing the token does not show it."""
    event = {"event_status": "error", "event_message": "bad key sk-stream-token-1"}
    body = json.dumps({"answer": "", "content": [event]}).encode()
    stream = RunStream([b"data: " + body + b"\n\n"], secrets=["sk-stream-token-1"])
    with pytest.raises(RunError) as caught:
        stream.collect()
    assert "sk-stream-token-1" not in str(caught.value)
