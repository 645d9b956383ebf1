"""The client stays bounded against a hostile server: sizes, events, memory and time."""

from __future__ import annotations

import asyncio
import gzip
import itertools
import json
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from appclient import AppClient, AsyncAppClient, InvalidRequestError, Limits, Timeout
from appclient._clients import _transport_base
from appclient.errors import (
    DeadlineExceededError,
    ResponseTooLargeError,
    ServerError,
    StreamInterruptedError,
)
from appclient.types import RunStream
from tests.client_fake_gateway import FakeGateway, Reply, sse_bytes

MIB = 1024 * 1024
DELTA = {"answer": "x" * 200, "content": [{"event_status": "running", "outputs": {}}]}
SSE = {"Content-Type": "text/event-stream"}


def _client(gateway: FakeGateway, **options: object) -> AppClient:
    return AppClient("app", token="tok-limits", base_url=gateway.url, max_retries=0, **options)  # type: ignore[arg-type]


def _messages(*messages: dict[str, object]) -> list[bytes]:
    return [sse_bytes(message) for message in messages]


def test_an_endless_stream_ends_at_max_stream_bytes() -> None:
    """A server that never ends its stream gets a clear error at the stream byte limit."""
    reply = Reply(endless=sse_bytes(DELTA), headers=SSE)
    with FakeGateway().add(reply) as gateway:
        client = _client(gateway, limits=Limits(max_stream_bytes=MIB))
        stream = client.run("c1", "hi", stream=True)
        with pytest.raises(ResponseTooLargeError, match="1,048,576 bytes"):
            for _ in stream:
                pass
        assert stream.closed


def test_an_iterated_stream_holds_constant_memory() -> None:
    """Iterating a stream far larger than max_collected_bytes keeps memory near that limit."""
    reply = Reply(endless=sse_bytes(DELTA), headers=SSE)
    limits = Limits(max_stream_bytes=8 * MIB, max_collected_bytes=64 * 1024)
    with FakeGateway().add(reply) as gateway:
        stream = _client(gateway, limits=limits).run("c1", "hi", stream=True)
        tracemalloc.start()
        try:
            with pytest.raises(ResponseTooLargeError):
                for _ in stream:
                    pass
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 2 * MIB, f"peak {peak:,} bytes while reading 8 MiB"


def test_collect_after_outgrowing_the_limit_names_it() -> None:
    """collect() on a stream that outgrew max_collected_bytes says so instead of lying."""
    chunks = _messages(*[DELTA] * 20, {"content": [{"event_status": "success"}]})
    stream = RunStream(chunks, limits=Limits(max_collected_bytes=1000))
    with pytest.raises(ResponseTooLargeError, match="iterate it instead"):
        stream.collect()


def test_tool_calls_are_kept_past_the_collect_limit() -> None:
    """The interrupt's tool calls stay available when the text before them was not kept."""
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    interrupt = {"content": [{"event_status": "interrupt", "tool_calls": [call]}]}
    stream = RunStream(_messages(*[DELTA] * 20, interrupt), limits=Limits(max_collected_bytes=500))
    for _ in stream:
        pass
    assert [tool_call.id for tool_call in stream.tool_calls] == ["call_1"]
    assert stream.finished


def test_too_many_events_end_the_stream() -> None:
    """More events than max_stream_events raise while iterating."""
    stream = RunStream(_messages(*[DELTA] * 6), limits=Limits(max_stream_events=5))
    with pytest.raises(ResponseTooLargeError, match="more than 5 events"):
        for _ in stream:
            pass


def test_a_huge_plain_body_is_refused_and_not_retried() -> None:
    """A non-stream body over max_body_bytes raises at the limit, once."""
    reply = Reply(endless=b'{"conversation_id": "' + b"x" * 4096)
    with FakeGateway().add(reply) as gateway:
        client = AppClient(
            "app", token="tok", base_url=gateway.url, limits=Limits(max_body_bytes=MIB)
        )
        with pytest.raises(ResponseTooLargeError, match="larger than 1,048,576 bytes"):
            client.create_conversation()
        assert len(gateway.requests) == 1


def _create_conversation(kind: str, gateway: FakeGateway, **options: object) -> str:
    """create_conversation with the sync client, or with the async one on a fresh loop."""
    if kind == "sync":
        return _client(gateway, **options).create_conversation()
    client = AsyncAppClient(
        "app", token="tok-limits", base_url=gateway.url, max_retries=0, **options
    )  # type: ignore[arg-type]
    return asyncio.run(client.create_conversation())


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_gzip_bomb_is_refused_without_inflating_it(kind: str) -> None:
    """A small gzip body that inflates past the limit stops there, in bounded memory."""
    bomb = gzip.compress(b"{" + b" " * (64 * MIB))
    reply = Reply(body=bomb, headers={"Content-Encoding": "gzip"})
    with FakeGateway().add(reply) as gateway:
        tracemalloc.start()
        try:
            with pytest.raises(ResponseTooLargeError):
                _create_conversation(kind, gateway, limits=Limits(max_body_bytes=MIB))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 8 * MIB, f"peak {peak:,} bytes for a 64 MiB bomb"


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_gzip_bomb_in_an_error_answer_is_not_inflated(kind: str) -> None:
    """An error status whose gzip body inflates past 64 KiB is that status, in bounded memory."""
    bomb = gzip.compress(b"{" + b" " * (64 * MIB))
    reply = Reply(status=503, body=bomb, headers={"Content-Encoding": "gzip"})
    with FakeGateway().add(reply) as gateway:
        tracemalloc.start()
        try:
            with pytest.raises(ServerError, match="HTTP 503"):
                _create_conversation(kind, gateway)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 8 * MIB, f"peak {peak:,} bytes for a 64 MiB bomb"


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("encoding", ["br", "gzip"])
def test_an_error_answer_with_an_unreadable_body_is_its_status(kind: str, encoding: str) -> None:
    """An error body in an unsupported or corrupt encoding still gives the status's error."""
    reply = Reply(status=503, body=b"not compressed", headers={"Content-Encoding": encoding})
    with FakeGateway().add(reply) as gateway, pytest.raises(ServerError, match="HTTP 503"):
        _create_conversation(kind, gateway)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_gzip_body_within_the_limit_is_read(kind: str) -> None:
    """An ordinary gzip-encoded answer is decoded."""
    body = gzip.compress(json.dumps({"conversation_id": "c-gz"}).encode())
    reply = Reply(body=body, headers={"Content-Encoding": "gzip"})
    with FakeGateway().add(reply) as gateway:
        assert _create_conversation(kind, gateway) == "c-gz"


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_gzip_body_of_several_members_is_read_whole(kind: str) -> None:
    """A gzip body of two members (RFC 1952 allows several) is decoded to its end."""
    body = gzip.compress(b'{"conversation_id": ') + gzip.compress(b'"c-two"}')
    reply = Reply(body=body, headers={"Content-Encoding": "gzip"})
    with FakeGateway().add(reply) as gateway:
        assert _create_conversation(kind, gateway) == "c-two"


def _ticking(step: float) -> Iterator[float]:
    return itertools.count(start=1000.0, step=step)


def test_a_dripping_body_cannot_outlast_the_total_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A body that keeps coming, a little at a time, ends at Timeout.total, unretried."""
    # Every look at the clock is 100 s later: the deadline falls after about 30 reads, and the
    # socket waits it sets (the time left, at least 100 real seconds) never end a read first,
    # however slowly a loaded machine drips.
    clock = _ticking(100.0)
    monkeypatch.setattr(_transport_base, "now", lambda: next(clock))
    reply = Reply(endless=b" ")
    with FakeGateway().add(reply) as gateway:
        client = AppClient(
            "app", token="tok", base_url=gateway.url, timeout=Timeout(total=3000), max_retries=2
        )
        with pytest.raises(DeadlineExceededError, match="total timeout"):
            client.create_conversation()
        assert len(gateway.requests) == 1


def test_a_dripping_stream_cannot_outlast_the_total_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stream of endless deltas is cut at Timeout.total, saying so."""
    clock = _ticking(100.0)  # as above: real socket waits of at least 100 s
    monkeypatch.setattr(_transport_base, "now", lambda: next(clock))
    reply = Reply(endless=sse_bytes(DELTA), headers=SSE)
    with FakeGateway().add(reply) as gateway:
        stream = _client(gateway, timeout=Timeout(total=3000)).run("c1", "hi", stream=True)
        with pytest.raises(StreamInterruptedError, match="total timeout") as caught:
            for _ in stream:
                pass
    assert isinstance(caught.value.__cause__, DeadlineExceededError)


@pytest.mark.parametrize(
    "limits",
    [
        {"max_body_bytes": 0},
        {"max_stream_bytes": -1},
        {"max_stream_events": 1.5},
        {"max_collected_bytes": True},
    ],
)
def test_bad_limits_are_refused(limits: dict[str, object]) -> None:
    """Limits take positive whole numbers (None where a limit may be lifted)."""
    with pytest.raises(InvalidRequestError, match="limits: max_"):
        Limits(**limits)  # type: ignore[arg-type]


class _KeepingSession(requests.Session):
    """A session that keeps every response, so none is closed by the garbage collector."""

    def __init__(self) -> None:
        super().__init__()
        self.kept: list[requests.Response] = []

    def post(self, *args: Any, **kwargs: Any) -> requests.Response:
        response = super().post(*args, **kwargs)
        self.kept.append(response)
        return response


def test_bodies_read_within_the_limits_keep_the_connection_alive() -> None:
    """Reading a body to its end hands the connection back: three calls, one connection."""
    created = Reply(body={"request_id": "r", "conversation_id": "c1"})
    session = _KeepingSession()
    with (
        FakeGateway().add(created, created, created) as gateway,
        _client(gateway, session=session) as client,
    ):
        for _ in range(3):
            client.create_conversation()
    assert len(gateway.requests) == 3
    assert len({request.port for request in gateway.requests}) == 1
