"""Streamed runs over a real socket: incremental delivery, framings, cuts and timeouts."""

from __future__ import annotations

import threading

import pytest

from appclient import AppClient, AuthenticationError, RunError
from appclient.errors import ServerError, StreamInterruptedError
from tests.client_fake_gateway import FakeGateway, Reply

TOKEN = "tok-stream-test-1618"
PREPARING = {"answer": "", "content": [{"event_status": "preparing"}]}
FIRST = {"answer": "北京", "content": [{"event_status": "running"}]}
SECOND = {"answer": "25度", "content": [{"event_status": "running"}]}
FINAL = {
    "answer": "",
    "message_id": "m1",
    "is_completion": True,
    "content": [{"event_status": "success"}],
}


def _client(gateway: FakeGateway, **options: float) -> AppClient:
    return AppClient("app", token=TOKEN, base_url=gateway.url, sleep=lambda _: None, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("chunked", [False, True], ids=["close-delimited", "chunked"])
def test_messages_arrive_before_the_stream_ends(chunked: bool) -> None:
    """The first message is delivered while the server still holds the rest back."""
    gate = threading.Event()
    reply = Reply(sse=[FIRST, SECOND, FINAL], chunked=chunked, gate=gate)
    with FakeGateway().add(reply) as gateway:
        stream = _client(gateway).run("c1", "hi", stream=True)
        try:
            assert next(stream).answer == "北京"
        finally:
            gate.set()
        assert stream.collect().answer == "北京25度"
    assert gateway.gate_waits == [True, True]


@pytest.mark.parametrize("chunked", [False, True], ids=["close-delimited", "chunked"])
def test_a_complete_stream_is_collected(chunked: bool) -> None:
    """Both transfer framings give the whole answer and release the connection."""
    reply = Reply(sse=[PREPARING, FIRST, SECOND, FINAL], chunked=chunked)
    with FakeGateway().add(reply) as gw, _client(gw).run("c1", "hi", stream=True) as stream:
        answer = stream.collect()
    assert answer.answer == "北京25度"
    assert answer.is_completion
    assert stream.closed


def test_stream_body_is_the_official_run_body() -> None:
    """The stream request carries stream: true and the other 12 keys."""
    with FakeGateway().add(Reply(sse=[FINAL])) as gateway:
        _client(gateway).run("c1", "hi", stream=True).collect()
    body = gateway.requests[0].json()
    assert body["stream"] is True
    assert len(body) == 13


@pytest.mark.parametrize("chunked", [False, True], ids=["close-delimited", "chunked"])
def test_stream_cut_before_the_final_event_raises(chunked: bool) -> None:
    """A connection closed after two messages raises StreamInterruptedError."""
    reply = Reply(sse=[FIRST, SECOND, FINAL], chunked=chunked, cut_after=2)
    with FakeGateway().add(reply) as gateway:
        stream = _client(gateway).run("c1", "hi", stream=True)
        with pytest.raises(StreamInterruptedError) as caught:
            stream.collect()
    assert stream.answer == "北京25度"
    assert stream.closed
    assert caught.value.conversation_id == "c1"


def test_cut_inside_a_message_raises() -> None:
    """A connection closed in the middle of a line raises StreamInterruptedError."""
    half = b'data: {"answer": "trunc'
    reply = Reply(sse=[FIRST, half])
    with FakeGateway().add(reply) as gateway:
        stream = _client(gateway).run("c1", "hi", stream=True)
        with pytest.raises(StreamInterruptedError, match="after 1 message"):
            stream.collect()


def test_silent_stream_raises_after_the_read_timeout() -> None:
    """A stream that stops sending raises StreamInterruptedError once the read timeout passes."""
    gate = threading.Event()
    reply = Reply(sse=[FIRST, FINAL], chunked=True, gate=gate)
    with FakeGateway().add(reply) as gateway:
        stream = _client(gateway, timeout=0.2).run("c1", "hi", stream=True)
        try:
            assert next(stream).answer == "北京"
            with pytest.raises(StreamInterruptedError, match="read timeout"):
                next(stream)
        finally:
            gate.set()
    assert len(gateway.requests) == 1


def test_closing_a_stream_early_releases_it() -> None:
    """Leaving a with block mid-stream closes the response without an error."""
    gate = threading.Event()
    reply = Reply(sse=[FIRST, SECOND, FINAL], gate=gate)
    with FakeGateway().add(reply) as gateway:
        try:
            with _client(gateway).run("c1", "hi", stream=True) as stream:
                assert next(stream).answer == "北京"
        finally:
            gate.set()
    assert stream.closed
    assert list(stream) == []


@pytest.mark.parametrize("chunked", [False, True], ids=["close-delimited", "chunked"])
def test_close_from_another_thread_ends_a_blocked_read_quietly(chunked: bool) -> None:
    """close() (a UI's stop button) wakes a reader blocked on the socket; it just stops."""
    gate = threading.Event()
    reply = Reply(sse=[FIRST, SECOND, FINAL], chunked=chunked, gate=gate)
    outcome: list[object] = []
    with FakeGateway().add(reply) as gateway:
        stream = _client(gateway, timeout=30).run("c1", "hi", stream=True)
        first = next(stream)

        def read_rest() -> None:
            try:
                outcome.append(list(stream))
            except Exception as exc:  # the test reports whatever was raised
                outcome.append(exc)

        reader = threading.Thread(target=read_rest)
        try:
            reader.start()
            while not reader.is_alive():  # pragma: no cover - the thread starts at once
                pass
            stream.close()
            reader.join(5)
        finally:
            gate.set()
    assert first.answer == "北京"
    assert not reader.is_alive()
    assert outcome == [[]]


def test_stream_request_refused_raises_the_status_error() -> None:
    """A 401 to a stream request raises AuthenticationError from run() itself."""
    reply = Reply(status=401, body={"code": "Unauthorized", "message": "bad token"})
    with (
        FakeGateway().add(reply) as gateway,
        pytest.raises(AuthenticationError, match="bad token"),
    ):
        _client(gateway).run("c1", "hi", stream=True)


def test_stream_refused_with_a_broken_body_raises_the_status_error() -> None:
    """A 503 to a stream request whose body breaks still raises ServerError, not requests'."""
    reply = Reply(status=503, sse=[b"data: x\n\n", b"data: y\n\n"], chunked=True, cut_after=1)
    with FakeGateway().add(reply) as gateway, pytest.raises(ServerError, match="HTTP 503"):
        _client(gateway, max_retries=0).run("c1", "hi", stream=True)


def test_stream_answered_with_json_error_raises_run_error() -> None:
    """The hosted service's HTTP 200 JSON error to a stream request raises RunError."""
    reply = Reply(body={"request_id": "r", "code": "AppNotPublished", "message": "publish it"})
    with FakeGateway().add(reply) as gateway:
        stream = _client(gateway).run("c1", "hi", stream=True)
        with pytest.raises(RunError, match="AppNotPublished: publish it"):
            stream.collect()


def test_stream_error_event_raises_run_error() -> None:
    """An error event mid-stream raises RunError (not an interruption)."""
    error = {"content": [{"event_status": "error", "event_code": 7, "event_message": "failed"}]}
    with FakeGateway().add(Reply(sse=[FIRST, error])) as gateway:
        stream = _client(gateway).run("c1", "hi", stream=True)
        with pytest.raises(RunError, match="7: failed") as caught:
            stream.collect()
    assert not isinstance(caught.value, StreamInterruptedError)
