"""AsyncRoundTripMixin: the round trip run step by step in worker threads."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from appclient import (
    AnswerDone,
    AsyncAppClient,
    LoopEvent,
    ServerEvent,
    TextDelta,
    ToolCallFinished,
)
from appclient.testing import ReferenceServer
from tests.async_support import (
    FINAL,
    FIRST,
    QUERY,
    SECOND,
    OneWorker,
    get_current_weather,
    run_scenario,
    until,
    worker_is_free,
)
from tests.client_fake_gateway import FakeGateway, Reply


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with ReferenceServer() as running:
        yield running


@pytest.fixture
def client(server: ReferenceServer) -> AsyncAppClient:
    server.faults.reset()
    return AsyncAppClient(server.app_id, token=server.token, base_url=server.url)


# --- the round trip -------------------------------------------------------------------------


def test_run_until_answer_runs_a_sync_tool_off_the_loop_thread(client: AsyncAppClient) -> None:
    """The weather tool runs in a worker thread and its output reaches the answer."""
    threads: list[int] = []

    def get_current_weather(location: str, unit: str = "celsius") -> str:
        """Weather of a city.

        Args:
            location: The city.
            unit: The unit.
        """
        threads.append(threading.get_ident())
        return f"{location}今天25度"

    async def scenario() -> tuple[str, int]:
        result = await client.run_until_answer(query=QUERY, tools=[get_current_weather])
        return result.answer, threading.get_ident()

    answer, loop_thread = run_scenario(scenario)
    assert "北京今天25度" in answer
    assert len(threads) == 1
    assert threads[0] != loop_thread


def test_iter_until_answer_yields_the_loop_events(client: AsyncAppClient) -> None:
    """Streamed deltas, the finished call, then AnswerDone whose answer joins the deltas."""

    async def scenario() -> list[LoopEvent]:
        iterator = client.iter_until_answer(query=QUERY, tools=[get_current_weather])
        return [event async for event in iterator]

    events = run_scenario(scenario)
    done = events[-1]
    assert isinstance(done, AnswerDone)
    finished = [e.record.output for e in events if isinstance(e, ToolCallFinished)]
    assert finished == ["北京今天25度"]
    deltas = [e.text for e in events if isinstance(e, TextDelta) and e.run == 2]
    assert "".join(deltas) == done.result.answer


def test_on_event_may_be_a_coroutine_function(client: AsyncAppClient) -> None:
    """An async on_event is awaited on the caller's loop for every event."""
    seen: list[str] = []

    async def on_event(event: LoopEvent) -> None:
        seen.append(type(event).__name__)

    run_scenario(
        lambda: client.run_until_answer(query=QUERY, tools=[get_current_weather], on_event=on_event)
    )
    assert seen[-1] == "AnswerDone"
    assert "ToolCallFinished" in seen


def test_cancelling_the_round_trip_closes_its_stream() -> None:
    """Cancelling a task waiting on iter_until_answer wakes the worker blocked on the stream."""
    gate = threading.Event()
    with FakeGateway().add(Reply(sse=[FIRST, SECOND, FINAL], gate=gate)) as gateway:
        client = AsyncAppClient("app", token="tok-async-3", base_url=gateway.url, timeout=30)
        worker = OneWorker()

        async def scenario() -> LoopEvent:
            events = client.iter_until_answer("c1", "hi", tools=[get_current_weather])
            first = await anext(events)
            assert isinstance(await anext(events), ServerEvent)  # the rest needs a read
            steps = worker.started + 1
            waiting = asyncio.create_task(anext(events))
            await until(lambda: worker.started >= steps)  # the worker thread is reading
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            assert await worker_is_free()
            return first

        try:
            first = run_scenario(scenario, executor=worker)
        finally:
            gate.set()
    assert isinstance(first, TextDelta)
    assert first.text == "北京"
    assert len(gateway.requests) == 1
