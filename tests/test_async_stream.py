"""AsyncRunStream: closing and cancelling streams read from asyncio."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator

import pytest

from appclient import AsyncAppClient, TransportError
from appclient.testing import ReferenceServer
from appclient.types import AsyncRunStream
from tests.async_support import (
    FINAL,
    FIRST,
    SECOND,
    run_scenario,
    until,
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


def test_cancelling_a_waiting_read_closes_the_stream() -> None:
    """Cancelling a task waiting for the next message releases the response."""
    gate = threading.Event()
    with FakeGateway().add(Reply(sse=[FIRST, SECOND, FINAL], gate=gate)) as gateway:
        client = AsyncAppClient("app", token="tok-async-1", base_url=gateway.url, timeout=30)

        async def scenario() -> AsyncRunStream:
            stream = await client.run("c1", "hi", stream=True)
            assert (await anext(stream)).answer == "北京"
            reader = asyncio.create_task(stream.collect())
            await _turns()  # the reader waits for the held message
            assert not reader.done()
            reader.cancel()
            with pytest.raises(asyncio.CancelledError):
                await reader
            return stream

        try:
            stream = run_scenario(scenario)
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


def test_a_run_cancelled_while_the_server_holds_it_leaves_the_client_usable(
    server: ReferenceServer,
) -> None:
    """Cancelled before its answer arrives, a streamed run raises; the next request works."""
    server.faults.reset()

    async def scenario() -> str:
        client = AsyncAppClient(server.app_id, token=server.token, base_url=server.url)
        conversation_id = await client.create_conversation()
        held = server.faults.injected + 1
        server.faults.delay_next(1, seconds=60)
        opening = asyncio.create_task(client.run(conversation_id, "你好", stream=True))
        await until(lambda: server.faults.injected >= held)
        opening.cancel()
        with pytest.raises(asyncio.CancelledError):
            await opening
        server.faults.release()
        async with client:
            stream = await client.run(conversation_id, "你好", stream=True)
            return (await stream.collect()).answer

    assert run_scenario(scenario)


def test_asyncio_run_ends_while_a_task_still_reads_a_held_stream() -> None:
    """asyncio.run ending with a reader still waiting closes the stream."""
    gate = threading.Event()
    with FakeGateway().add(Reply(sse=[FIRST, SECOND, FINAL], gate=gate)) as gateway:
        client = AsyncAppClient("app", token="tok-async-6", base_url=gateway.url, timeout=30)
        streams: list[AsyncRunStream] = []

        async def scenario() -> None:
            stream = await client.run("c1", "hi", stream=True)
            streams.append(stream)
            await anext(stream)
            asyncio.create_task(stream.collect())  # noqa: RUF006 - left running on purpose
            await _turns()

        try:
            run_scenario(scenario)  # cancels the reader as it ends
        finally:
            gate.set()
    assert streams[0].closed


class _HeldChunks:
    """A body whose reads wait until a chunk is given; closing wakes a waiting read."""

    def __init__(self) -> None:
        self.chunks: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.waiting = False

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[bytes]:
        while True:
            self.waiting = True
            chunk = await self.chunks.get()
            self.waiting = False
            if chunk is None:
                raise TransportError("the response was closed", method="POST", url="/runs")
            yield chunk

    def close(self) -> None:
        self.chunks.put_nowait(None)


def test_aclose_from_the_loop_ends_a_waiting_read_every_time() -> None:
    """Two hundred times: aclose while a read waits for bytes ends that read, no error."""

    async def one_round() -> bool:
        body = _HeldChunks()
        stream = AsyncRunStream(body, close=body.close)
        body.chunks.put_nowait(sse_bytes(FIRST))
        await anext(stream)
        reader = asyncio.create_task(anext(stream))
        await until(lambda: body.waiting)
        await stream.aclose()
        with pytest.raises(StopAsyncIteration):
            await reader
        return stream.closed and not stream.finished

    async def scenario() -> list[bool]:
        return [await one_round() for _ in range(200)]

    assert all(run_scenario(scenario))


async def _turns(count: int = 5) -> None:
    """Let the loop turn a few times (no real time passes)."""
    for _ in range(count):
        await asyncio.sleep(0)
