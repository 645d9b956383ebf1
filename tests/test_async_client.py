"""AsyncAppClient against the reference server (and the fake gateway for held streams)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from appclient import (
    AppClient,
    AsyncAppClient,
    AuthenticationError,
    InvalidRequestError,
    ToolRegistry,
)
from appclient.errors import NotFoundError, RequestTimeoutError
from appclient.testing import ReferenceServer
from appclient.types import AsyncRunStream, RoundTripResult
from tests.async_support import (
    FINAL,
    FIRST,
    QUERY,
    round_trips_end,
    run_scenario,
    until,
)
from tests.client_fake_gateway import FakeGateway, Reply
from tests.seed import SEED_WEATHER_TOOL


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with ReferenceServer() as running:
        yield running


@pytest.fixture
def client(server: ReferenceServer) -> AsyncAppClient:
    server.faults.reset()
    return AsyncAppClient(server.app_id, token=server.token, base_url=server.url)


def _outputs(calls: Any, output: str) -> list[dict[str, str]]:
    return [{"tool_call_id": call.id, "output": output} for call in calls]


# --- the protocol ---------------------------------------------------------------------------


def test_create_conversation(client: AsyncAppClient) -> None:
    """Awaiting create_conversation gives a conversation id."""
    assert run_scenario(client.create_conversation)


def test_tool_round_trip(client: AsyncAppClient) -> None:
    """The seed's weather call and its output give the answer, without streaming."""

    async def scenario() -> str:
        async with client:
            conversation_id = await client.create_conversation()
            first = await client.run(conversation_id, QUERY, tools=[SEED_WEATHER_TOOL])
            (call,) = first.content.tool_calls
            assert (call.function.name, call.function.arguments["location"]) == (
                "get_current_weather",
                "北京",
            )
            final = await client.run(conversation_id, tool_outputs=_outputs([call], "北京35度"))
            return final.content.answer

    assert "35度" in run_scenario(scenario)


def test_upload_and_positional_feedback(client: AsyncAppClient, tmp_path: Any) -> None:
    """Files upload (path by name, by position, upload_local_file); feedback by position."""
    notes = tmp_path / "notes.txt"
    notes.write_text("北京", encoding="utf-8")

    async def scenario() -> tuple[str, str]:
        async with client:
            conversation_id = await client.create_conversation()
            file_id = await client.upload_file(conversation_id, file_path=notes)
            assert await client.upload_file(conversation_id, notes)
            assert await client.upload_local_file(conversation_id, notes)
            answer = await client.run(conversation_id, "总结文件", file_ids=[file_id])
            rated = await client.feedback(conversation_id, answer.content.message_id, "upvote")
            return file_id, rated

    file_id, rated = run_scenario(scenario)
    assert file_id
    assert rated


def test_streamed_tool_round_trip(client: AsyncAppClient) -> None:
    """Streamed: collect() gives the call, async for gives the answer in several deltas."""

    async def scenario() -> tuple[list[str], AsyncRunStream]:
        conversation_id = await client.create_conversation()
        async with await client.run(
            conversation_id, QUERY, tools=[SEED_WEATHER_TOOL], stream=True
        ) as first:
            await first.collect()
        second = await client.run(
            conversation_id, tool_outputs=_outputs(first.tool_calls, "北京20度"), stream=True
        )
        deltas = [message.answer async for message in second if message.answer]
        return deltas, second

    deltas, stream = run_scenario(scenario)
    assert len(deltas) > 1
    assert "20度" in "".join(deltas)
    assert stream.finished
    assert stream.closed


def test_official_style_async_code_runs(client: AsyncAppClient) -> None:
    """Fixture 21's AsyncAppBuilderClient code: tool_calls from content, async for on content."""

    async def scenario() -> str:
        conversation_id = await client.create_conversation()
        msg = await client.run(
            conversation_id=conversation_id, query=QUERY, tools=[SEED_WEATHER_TOOL]
        )
        tool_call = msg.content.events[-1].tool_calls[-1]
        msg = await client.run(
            conversation_id=conversation_id,
            tool_outputs=[{"tool_call_id": tool_call.id, "output": "北京今天25度"}],
            stream=True,
        )
        answer = ""
        async for ans in msg.content:
            answer += ans.answer
        return answer

    assert "北京今天25度" in run_scenario(scenario)


def test_async_iteration_gives_the_sync_clients_messages(server: ReferenceServer) -> None:
    """The messages of async for equal those of the synchronous client's stream."""

    def shape(messages: list[Any]) -> list[tuple[str, list[str]]]:
        return [(m.answer, [e.event_status for e in m.events]) for m in messages]

    with AppClient(server.app_id, token=server.token, base_url=server.url) as sync_client:
        conversation_id = sync_client.create_conversation()
        expected = shape(list(sync_client.run(conversation_id, "你好", stream=True)))

    async def scenario() -> list[Any]:
        async with AsyncAppClient(server.app_id, token=server.token, base_url=server.url) as ac:
            conversation_id = await ac.create_conversation()
            return [message async for message in await ac.run(conversation_id, "你好", stream=True)]

    assert shape(run_scenario(scenario)) == expected
    assert len(expected) > 1


def test_the_loop_runs_while_a_request_is_held(
    client: AsyncAppClient, server: ReferenceServer
) -> None:
    """Another coroutine makes progress while the server holds the request."""
    held = server.faults.injected + 1
    server.faults.delay_next(1, seconds=60)

    async def scenario() -> tuple[int, str]:
        request = asyncio.create_task(client.create_conversation())
        turns = await until(lambda: server.faults.injected >= held)
        assert not request.done()
        server.faults.release()
        return turns, await request

    turns, conversation_id = run_scenario(scenario)
    assert turns > 0
    assert conversation_id


# --- errors ---------------------------------------------------------------------------------


def test_unknown_conversation_is_not_found(client: AsyncAppClient) -> None:
    """A 404 raises NotFoundError in the awaiting task, as with AppClient."""
    with pytest.raises(NotFoundError):
        run_scenario(lambda: client.run("no-such-conversation", "hi"))


def test_wrong_token_is_an_authentication_error(server: ReferenceServer) -> None:
    """A 401 raises AuthenticationError in the awaiting task."""
    client = AsyncAppClient(server.app_id, token="not-the-token", base_url=server.url)
    with pytest.raises(AuthenticationError):
        run_scenario(client.create_conversation)


def test_bad_arguments_are_refused_like_the_sync_client(client: AsyncAppClient) -> None:
    """A run without query or outputs raises InvalidRequestError."""
    with pytest.raises(InvalidRequestError):
        run_scenario(lambda: client.run("c1"))


def test_missing_token_is_refused_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without token or $APPBUILDER_TOKEN the constructor raises InvalidRequestError."""
    monkeypatch.delenv("APPBUILDER_TOKEN", raising=False)
    with pytest.raises(InvalidRequestError, match="token"):
        AsyncAppClient("app", base_url="http://127.0.0.1:9")


def test_a_blocking_sleep_is_refused_at_construction() -> None:
    """sleep=time.sleep (it would block the event loop for the whole wait) is refused."""
    with pytest.raises(InvalidRequestError, match="sleep"):
        AsyncAppClient("app", token="tok", base_url="http://127.0.0.1:9", sleep=time.sleep)


def test_a_requests_session_is_refused_with_what_to_pass_instead() -> None:
    """session=requests.Session() names the aiohttp session the async client needs."""
    with pytest.raises(InvalidRequestError, match=r"aiohttp\.ClientSession"):
        AsyncAppClient(
            "app", token="tok", base_url="http://127.0.0.1:9", session=requests.Session()
        )


def test_token_is_not_in_reprs(client: AsyncAppClient, server: ReferenceServer) -> None:
    """Neither the client's nor a stream's repr shows the token."""

    async def scenario() -> str:
        conversation_id = await client.create_conversation()
        async with await client.run(conversation_id, "你好", stream=True) as stream:
            return repr(stream)

    assert server.token not in repr(client) + run_scenario(scenario)
    assert repr(client).startswith("AsyncAppClient(app_id=")


# --- cancelling plain requests --------------------------------------------------------------


def test_a_cancelled_request_is_not_sent_again_by_a_retry() -> None:
    """Cancelled while it waits to retry a 503, the request is not sent again."""
    sleeping = asyncio.Event()

    async def sleep(seconds: float) -> None:
        sleeping.set()
        await asyncio.Event().wait()  # cancelled here

    busy = Reply(status=503, body={"code": "Busy", "message": "busy"})
    created = Reply(body={"request_id": "r", "conversation_id": "c-late"})
    with FakeGateway().add(busy).add(created) as gateway:
        client = AsyncAppClient("app", token="tok-async-4", base_url=gateway.url, sleep=sleep)

        async def scenario() -> None:
            request = asyncio.create_task(client.create_conversation())
            await sleeping.wait()
            request.cancel()
            with pytest.raises(asyncio.CancelledError):
                await request
            await client.aclose()

        run_scenario(scenario)
    assert len(gateway.requests) == 1


def test_retries_wait_with_the_injected_sleep() -> None:
    """A 503 then an answer: one awaited wait, the second attempt answers."""
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    busy = Reply(status=503, body={"code": "Busy", "message": "busy"})
    created = Reply(body={"request_id": "r", "conversation_id": "c-2"})
    with FakeGateway().add(busy).add(created) as gateway:
        client = AsyncAppClient("app", token="tok-async-8", base_url=gateway.url, sleep=sleep)
        assert run_scenario(client.create_conversation) == "c-2"
    assert len(waits) == 1
    assert len(gateway.requests) == 2


def test_a_streams_read_timeout_is_not_retried_after_an_earlier_retry() -> None:
    """After a retried 503, a stream request's read timeout is raised, not sent a third time."""

    async def sleep(seconds: float) -> None:
        pass

    busy = Reply(status=503, body={"code": "Busy", "message": "busy"})
    with FakeGateway().add(busy).add(Reply(hang=True)).add(Reply(sse=[FINAL])) as gateway:
        client = AsyncAppClient(
            "app", token="tok-async-9", base_url=gateway.url, timeout=0.2, sleep=sleep
        )

        async def scenario() -> None:
            with pytest.raises(RequestTimeoutError):
                await client.run("c1", "hi", stream=True)
            await client.aclose()

        run_scenario(scenario)
    assert len(gateway.requests) == 2


# --- concurrency ----------------------------------------------------------------------------


def test_many_open_streams_on_one_client_each_read_their_own_answer() -> None:
    """Twenty streams open at once on one client each collect their answer."""
    with FakeGateway(fallback=Reply(sse=[FIRST, FINAL], chunked=True)) as gateway:
        client = AsyncAppClient("app", token="tok-async-5", base_url=gateway.url)

        async def scenario() -> list[str]:
            streams = [await client.run("c1", "hi", stream=True) for _ in range(20)]
            answers = [(await stream.collect()).answer for stream in streams]
            await client.aclose()
            return answers

        answers = run_scenario(scenario)
    assert answers == ["北京"] * 20


def test_concurrent_round_trips_on_one_client_keep_their_own_answers(
    client: AsyncAppClient,
) -> None:
    """Round trips gathered on one client, their tools meeting in one registry, do not mix."""
    cities = ["北京", "上海", "广州", "深圳"] * 4
    meeting = threading.Barrier(4, timeout=10)  # four tools of different trips run at once

    def get_current_weather(location: str, unit: str = "celsius") -> str:
        """Weather of a city.

        Args:
            location: The city.
            unit: The unit.
        """
        meeting.wait()
        return f"{location}今天25度"

    registry = ToolRegistry()
    registry.add(get_current_weather)

    async def scenario() -> list[RoundTripResult]:
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=8))
        trips = [
            client.run_until_answer(
                query=f"今天{city}天气怎么样？", tools=registry, stream=i % 2 == 0
            )
            for i, city in enumerate(cities)
        ]
        results = await asyncio.gather(*trips)
        assert await round_trips_end()  # each trip's own thread is gone
        return results

    results = asyncio.run(scenario())
    assert [[call.output for call in result.tool_calls] for result in results] == [
        [f"{city}今天25度"] for city in cities
    ]
    assert all(f"{city}今天25度" in r.answer for city, r in zip(cities, results, strict=True))


def test_one_sync_client_serves_threads_at_once(server: ReferenceServer) -> None:
    """Threads sharing one AppClient get their own streams."""
    start = threading.Barrier(8, timeout=10)
    pairs: list[tuple[str, str]] = []

    with AppClient(server.app_id, token=server.token, base_url=server.url) as shared:

        def ask() -> None:
            conversation_id = shared.create_conversation()
            start.wait()  # every thread sends its run at the same moment
            with shared.run(conversation_id, "你好", stream=True) as stream:
                pairs.append((conversation_id, stream.collect().conversation_id))

        threads = [threading.Thread(target=ask) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(pairs) == 8
    assert all(sent == answered for sent, answered in pairs)
    assert len({sent for sent, _ in pairs}) == 8


def test_a_request_cancelled_before_it_starts_is_never_sent() -> None:
    """A run whose task is cancelled before it first runs never reaches the server."""
    with FakeGateway() as gateway:
        client = AsyncAppClient("app", token="tok-async-7", base_url=gateway.url)

        async def scenario() -> None:
            request = asyncio.create_task(client.run("c1", "hi"))
            request.cancel()
            with pytest.raises(asyncio.CancelledError):
                await request

        run_scenario(scenario)
    assert gateway.requests == []
