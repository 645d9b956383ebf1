"""AsyncRunStream: closing and cancelling streams read from asyncio."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from appclient import (
    AsyncAppClient,
    AsyncRunStream,
    RunStream,
    TransportError,
)
from appclient.testing import ReferenceServer
from tests.async_support import (
    FINAL,
    FIRST,
    SECOND,
    OneWorker,
    run_scenario,
    until,
    worker_is_free,
)
from tests.client_fake_gateway import FakeGateway, Reply, sse_bytes


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with ReferenceServer() as running:
        yield running


@pytest.fixture
def client(server: ReferenceServer) -> AsyncAppClient:
    server.faults.reset()
    return AsyncAppClient(server.app_id, token=server.token, base_url=server.url)


# --- closing and cancelling streams ---------------------------------------------------------


def test_leaving_async_with_mid_stream_closes_it(client: AsyncAppClient) -> None:
    """Exiting async with after one message releases the response."""

    async def scenario() -> AsyncRunStream:
        conversation_id = await client.create_conversation()
        async with await client.run(conversation_id, "你好", stream=True) as stream:
            await anext(stream)
        return stream

    stream = run_scenario(scenario)
    assert stream.closed
    assert not stream.finished


def test_breaking_out_of_async_for_closes_the_stream(client: AsyncAppClient) -> None:
    """Leaving async for early closes the stream once the loop finalises the iteration."""

    async def scenario() -> AsyncRunStream:
        conversation_id = await client.create_conversation()
        stream = await client.run(conversation_id, "你好", stream=True)
        async for _ in stream:
            break
        await until(lambda: stream.closed)
        return stream

    assert not run_scenario(scenario).finished


def test_cancelling_a_blocked_read_closes_the_stream_and_frees_the_thread() -> None:
    """Cancelling a task waiting for the next message wakes the worker and releases it."""
    gate = threading.Event()
    with FakeGateway().add(Reply(sse=[FIRST, SECOND, FINAL], gate=gate)) as gateway:
        client = AsyncAppClient("app", token="tok-async-1", base_url=gateway.url, timeout=30)
        worker = OneWorker()

        async def scenario() -> AsyncRunStream:
            stream = await client.run("c1", "hi", stream=True)
            assert (await anext(stream)).answer == "北京"
            reads = worker.started + 1
            reader = asyncio.create_task(stream.collect())
            await until(lambda: worker.started >= reads)  # the worker thread is reading
            reader.cancel()
            with pytest.raises(asyncio.CancelledError):
                await reader
            assert await worker_is_free()
            return stream

        try:
            stream = run_scenario(scenario, executor=worker)
        finally:
            gate.set()
    assert stream.closed
    assert stream.answer == "北京"


def test_a_second_concurrent_reader_is_refused() -> None:
    """While one task reads a stream, another one's read raises RuntimeError."""
    gate = threading.Event()
    with FakeGateway().add(Reply(sse=[FIRST, SECOND, FINAL], gate=gate)) as gateway:
        client = AsyncAppClient("app", token="tok-async-2", base_url=gateway.url, timeout=30)

        async def scenario() -> None:
            async with await client.run("c1", "hi", stream=True) as stream:
                await anext(stream)
                reader = asyncio.create_task(anext(stream))
                await asyncio.sleep(0)  # the first reader starts its read
                with pytest.raises(RuntimeError, match="already reading"):
                    await anext(stream)
                reader.cancel()

        try:
            run_scenario(scenario)
        finally:
            gate.set()


class _RecordingSession(requests.Session):
    """A session that keeps every response it returns."""

    def __init__(self) -> None:
        super().__init__()
        self.responses: list[requests.Response] = []

    def post(self, *args: Any, **kwargs: Any) -> requests.Response:
        response = super().post(*args, **kwargs)
        self.responses.append(response)
        return response


def test_a_stream_opened_after_its_task_was_cancelled_is_closed(server: ReferenceServer) -> None:
    """Cancelled while the server holds the request, the late stream is released on arrival."""
    server.faults.reset()
    session = _RecordingSession()
    client = AsyncAppClient(server.app_id, token=server.token, base_url=server.url, session=session)

    async def scenario() -> None:
        conversation_id = await client.create_conversation()
        held = server.faults.injected + 1
        server.faults.delay_next(1, seconds=60)
        opening = asyncio.create_task(client.run(conversation_id, "你好", stream=True))
        await until(lambda: server.faults.injected >= held)
        opening.cancel()
        with pytest.raises(asyncio.CancelledError):
            await opening
        server.faults.release()
        assert await worker_is_free()

    run_scenario(scenario)
    late = session.responses[-1]
    assert late.headers["Content-Type"].startswith("text/event-stream")
    assert late.raw.closed


def test_asyncio_run_ends_while_a_task_still_reads_a_held_stream() -> None:
    """asyncio.run ending with a reader still waiting closes the stream and frees its thread."""
    gate = threading.Event()
    with FakeGateway().add(Reply(sse=[FIRST, SECOND, FINAL], gate=gate)) as gateway:
        client = AsyncAppClient("app", token="tok-async-6", base_url=gateway.url, timeout=30)
        worker = OneWorker()
        streams: list[AsyncRunStream] = []

        async def scenario() -> None:
            stream = await client.run("c1", "hi", stream=True)
            streams.append(stream)
            await anext(stream)
            reads = worker.started + 1
            asyncio.create_task(stream.collect())  # noqa: RUF006 - left running on purpose
            await until(lambda: worker.started >= reads)

        try:
            run_scenario(scenario, executor=worker)  # returns only once its executor is shut down
        finally:
            gate.set()
    assert streams[0].closed
    assert False not in gateway.gate_waits  # no wait for the held message ran out first


class _HeldChunks:
    """A body whose reads block until a chunk is given; closing wakes a blocked read."""

    def __init__(self) -> None:
        self.chunks: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.waiting = threading.Event()

    def __iter__(self) -> Iterator[bytes]:
        while True:
            self.waiting.set()
            chunk = self.chunks.get()
            self.waiting.clear()
            if chunk is None:
                raise TransportError("the response was closed", method="POST", url="/runs")
            yield chunk

    def close(self) -> None:
        self.chunks.put(None)


def test_aclose_from_the_loop_ends_a_blocked_read_every_time() -> None:
    """Two hundred times: aclose while a worker waits for bytes ends that read, no error."""

    async def one_round() -> bool:
        body = _HeldChunks()
        stream = AsyncRunStream(RunStream(body, close=body.close))
        body.chunks.put(sse_bytes(FIRST))
        await anext(stream)
        reader = asyncio.create_task(anext(stream))
        await until(body.waiting.is_set)
        await stream.aclose()
        with pytest.raises(StopAsyncIteration):
            await reader
        return stream.closed and not stream.finished

    async def scenario() -> list[bool]:
        return [await one_round() for _ in range(200)]

    assert all(run_scenario(scenario))
