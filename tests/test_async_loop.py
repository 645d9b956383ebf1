"""AsyncRoundTripMixin: the round trip awaited on the loop, its tools in a thread of its own."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from concurrent.futures import CancelledError

import aiohttp
import pytest

from appclient import (
    AnswerDone,
    AppClientError,
    ApprovalRequest,
    AsyncAppClient,
    LoopEvent,
    RoundFinished,
    ServerEvent,
    TextDelta,
    ToolCallFinished,
    ToolRegistry,
)
from appclient._tools._async_loop import _Approvals
from appclient.testing import ReferenceServer
from tests.async_support import (
    FINAL,
    FIRST,
    QUERY,
    SECOND,
    get_current_weather,
    recording_session,
    round_trips_end,
    run_scenario,
    until,
)
from tests.client_fake_gateway import FakeGateway, Reply
from tests.gc_support import frames_left_in_cycles


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


def test_a_failed_round_trip_is_freed_at_once(
    server: ReferenceServer, client: AsyncAppClient
) -> None:
    """A round trip ended by an error leaves no reference cycle keeping it until a GC."""

    async def scenario() -> list[str]:
        await client.run_until_answer(query=QUERY, tools=[get_current_weather])
        server.faults.fail_next(1, status=400)
        with frames_left_in_cycles() as frames:
            try:
                await client.run_until_answer(query=QUERY, tools=[get_current_weather])
            except AppClientError:
                pass
            else:
                pytest.fail("the round trip did not fail")
        return frames

    assert run_scenario(scenario) == []


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
    """Cancelling a task waiting on iter_until_answer ends it; nothing more is sent."""
    gate = threading.Event()
    with FakeGateway().add(Reply(sse=[FIRST, SECOND, FINAL], gate=gate)) as gateway:
        client = AsyncAppClient("app", token="tok-async-3", base_url=gateway.url, timeout=30)

        async def scenario() -> LoopEvent:
            events = client.iter_until_answer("c1", "hi", tools=[get_current_weather])
            first = await anext(events)
            assert isinstance(await anext(events), ServerEvent)  # the rest needs a read
            waiting = asyncio.create_task(anext(events))
            for _ in range(5):  # the task starts its read of the held stream
                await asyncio.sleep(0)
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            assert await round_trips_end()
            return first

        try:
            first = run_scenario(scenario)
        finally:
            gate.set()
    assert isinstance(first, TextDelta)
    assert first.text == "北京"
    assert len(gateway.requests) == 1


# --- approval -------------------------------------------------------------------------------


def test_an_async_approval_callback_runs_on_the_callers_loop(client: AsyncAppClient) -> None:
    """An async approve is awaited on the caller's loop, so it may use that loop's objects."""

    async def scenario() -> tuple[bool, str]:
        loops: list[asyncio.AbstractEventLoop] = []

        async def approve(request: ApprovalRequest) -> bool:
            loops.append(asyncio.get_running_loop())
            return request.tool_name == "get_current_weather"

        registry = ToolRegistry()
        registry.add(get_current_weather, requires_approval=True)
        result = await client.run_until_answer(query=QUERY, tools=registry, approve=approve)
        return loops == [asyncio.get_running_loop()], result.answer

    on_callers_loop, answer = run_scenario(scenario)
    assert on_callers_loop
    assert "北京今天25度" in answer


def test_cancelling_during_an_async_approval_frees_the_worker_and_sends_nothing(
    server: ReferenceServer,
) -> None:
    """Cancelled while its async approve waits, a round trip sends no outputs; no thread hangs."""
    paths: list[str] = []
    asked = asyncio.Event()

    async def approve(request: ApprovalRequest) -> bool:
        asked.set()
        await asyncio.Event().wait()  # the user never answers
        return True

    async def scenario() -> None:
        client = _recording_client(server, await recording_session(paths))
        registry = ToolRegistry()
        registry.add(get_current_weather, requires_approval=True)
        trip = asyncio.create_task(
            client.run_until_answer(query=QUERY, tools=registry, approve=approve)
        )
        await asked.wait()
        trip.cancel()
        with pytest.raises(asyncio.CancelledError):
            await trip
        assert await round_trips_end()

    run_scenario(scenario)
    assert paths == ["/v2/app/conversation", "/v2/app/conversation/runs"]


def test_cancelling_between_rounds_sends_no_outputs(server: ReferenceServer) -> None:
    """Cancelled while on_event holds the finished round, the tool outputs are never sent."""
    paths: list[str] = []
    held = asyncio.Event()

    async def on_event(event: LoopEvent) -> None:
        if isinstance(event, RoundFinished):
            held.set()
            await asyncio.Event().wait()  # the app never lets the loop go on

    async def scenario() -> None:
        client = _recording_client(server, await recording_session(paths))
        trip = asyncio.create_task(
            client.run_until_answer(query=QUERY, tools=[get_current_weather], on_event=on_event)
        )
        await held.wait()
        trip.cancel()
        with pytest.raises(asyncio.CancelledError):
            await trip
        assert await round_trips_end()

    run_scenario(scenario)
    assert paths == ["/v2/app/conversation", "/v2/app/conversation/runs"]


def test_cancelling_while_a_tool_runs_sends_no_outputs(server: ReferenceServer) -> None:
    """Cancelled while its tool runs, the round trip lets it finish but sends nothing more."""
    paths: list[str] = []
    running, release = threading.Event(), threading.Event()

    def get_current_weather(location: str) -> str:
        """Weather of a city.

        Args:
            location: The city.
        """
        running.set()
        release.wait(timeout=5)
        return f"{location}今天25度"

    async def scenario() -> None:
        client = _recording_client(server, await recording_session(paths))
        trip = asyncio.create_task(
            client.run_until_answer(query=QUERY, tools=[get_current_weather])
        )
        await until(running.is_set)
        trip.cancel()
        with pytest.raises(asyncio.CancelledError):
            await trip
        release.set()
        assert await round_trips_end()

    try:
        run_scenario(scenario)
    finally:
        release.set()
    assert paths == ["/v2/app/conversation", "/v2/app/conversation/runs"]


def test_an_async_approval_may_use_the_default_executor_while_the_trip_waits(
    client: AsyncAppClient,
) -> None:
    """An async approve that runs blocking work in the (one-thread) default executor answers."""

    async def approve(request: ApprovalRequest) -> bool:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, lambda: True)  # e.g. a prompt or a lookup

    async def scenario() -> str:
        registry = ToolRegistry()
        registry.add(get_current_weather, requires_approval=True)
        trip = client.run_until_answer(query=QUERY, tools=registry, approve=approve)
        # A bound for the failure case only: the trip would wait for its own worker forever.
        return (await asyncio.wait_for(trip, timeout=5)).answer

    assert "北京今天25度" in run_scenario(scenario)


def _recording_client(server: ReferenceServer, session: aiohttp.ClientSession) -> AsyncAppClient:
    return AsyncAppClient(server.app_id, token=server.token, base_url=server.url, session=session)


def test_an_approval_left_waiting_when_the_loop_has_closed_is_refused_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A round trip stopped after its event loop closed refuses the call, logging no error."""
    loop = asyncio.new_event_loop()
    runner = threading.Thread(target=loop.run_forever)
    runner.start()
    asked = threading.Event()

    async def approve(request: object) -> bool:
        asked.set()
        await asyncio.Event().wait()  # never answers
        return True

    approvals = _Approvals(loop)
    ask = approvals.wrap(approve)
    assert ask is not None
    outcome: list[str] = []

    def tool_thread() -> None:
        try:
            ask(None)  # type: ignore[arg-type]
        except CancelledError:
            outcome.append("refused")

    tool = threading.Thread(target=tool_thread)
    tool.start()
    assert asked.wait(timeout=10)
    loop.call_soon_threadsafe(loop.stop)
    runner.join()
    loop.close()
    with caplog.at_level(logging.ERROR, logger="concurrent.futures"):
        approvals.stop()
        tool.join(timeout=10)
    assert outcome == ["refused"]
    assert caplog.records == []
