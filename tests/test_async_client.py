"""AsyncAppClient against the reference server (and the fake gateway for held streams)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import pytest
import requests

from appclient import (
    AnswerDone,
    AppClient,
    AsyncAppClient,
    AsyncRunStream,
    AuthenticationError,
    InvalidRequestError,
    LoopEvent,
    NotFoundError,
    ServerEvent,
    TextDelta,
    ToolCallFinished,
)
from appclient.testing import ReferenceServer
from tests.client_fake_gateway import FakeGateway, Reply
from tests.seed import SEED_WEATHER_TOOL

T = TypeVar("T")
QUERY = "今天北京天气怎么样？"
FIRST = {"answer": "北京", "content": [{"event_status": "running"}]}
SECOND = {"answer": "25度", "content": [{"event_status": "running"}]}
FINAL = {"answer": "", "is_completion": True, "content": [{"event_status": "success"}]}


def get_current_weather(location: str, unit: str = "celsius") -> str:
    """Weather of a city.

    Args:
        location: The city.
        unit: The unit.
    """
    return f"{location}今天25度"


class _OneWorker(ThreadPoolExecutor):
    """A default executor of one thread that counts the calls it has started."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.started = 0

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        def counted() -> T:
            self.started += 1
            return fn(*args, **kwargs)

        return super().submit(counted)


def _run(scenario: Callable[[], Awaitable[T]], *, executor: _OneWorker | None = None) -> T:
    """Run a scenario with a one-thread default executor, so a blocked worker is visible."""

    async def main() -> T:
        asyncio.get_running_loop().set_default_executor(executor or _OneWorker())
        return await scenario()

    return asyncio.run(main())


async def _worker_is_free() -> bool:
    """Whether the one worker thread can take new work (it is not stuck on a socket)."""
    loop = asyncio.get_running_loop()
    # A bound for the failure case only, below the fake gateway's 10 s gate timeout.
    await asyncio.wait_for(loop.run_in_executor(None, lambda: None), timeout=5)
    return True


async def _until(condition: Callable[[], bool]) -> int:
    """Let the loop turn until ``condition`` holds; return how many turns it took."""
    turns = 0
    while not condition():
        turns += 1
        assert turns < 1_000_000, "the condition never held"
        await asyncio.sleep(0)
    return turns


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
    assert _run(client.create_conversation)


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

    assert "35度" in _run(scenario)


def test_upload_and_positional_feedback(client: AsyncAppClient, tmp_path: Any) -> None:
    """A file uploads, and an answer is rated with ids and type by position."""
    notes = tmp_path / "notes.txt"
    notes.write_text("北京", encoding="utf-8")

    async def scenario() -> tuple[str, str]:
        async with client:
            conversation_id = await client.create_conversation()
            file_id = await client.upload_file(conversation_id, file_path=notes)
            answer = await client.run(conversation_id, "总结文件", file_ids=[file_id])
            rated = await client.feedback(conversation_id, answer.content.message_id, "upvote")
            return file_id, rated

    file_id, rated = _run(scenario)
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

    deltas, stream = _run(scenario)
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

    assert "北京今天25度" in _run(scenario)


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

    assert shape(_run(scenario)) == expected
    assert len(expected) > 1


def test_the_loop_runs_while_a_request_is_held(
    client: AsyncAppClient, server: ReferenceServer
) -> None:
    """Another coroutine makes progress while the server holds the request."""
    held = server.faults.injected + 1
    server.faults.delay_next(1, seconds=60)

    async def scenario() -> tuple[int, str]:
        request = asyncio.create_task(client.create_conversation())
        turns = await _until(lambda: server.faults.injected >= held)
        assert not request.done()
        server.faults.release()
        return turns, await request

    turns, conversation_id = _run(scenario)
    assert turns > 0
    assert conversation_id


# --- errors ---------------------------------------------------------------------------------


def test_unknown_conversation_is_not_found(client: AsyncAppClient) -> None:
    """A 404 raises NotFoundError in the awaiting task, as with AppClient."""
    with pytest.raises(NotFoundError):
        _run(lambda: client.run("no-such-conversation", "hi"))


def test_wrong_token_is_an_authentication_error(server: ReferenceServer) -> None:
    """A 401 raises AuthenticationError in the awaiting task."""
    client = AsyncAppClient(server.app_id, token="not-the-token", base_url=server.url)
    with pytest.raises(AuthenticationError):
        _run(client.create_conversation)


def test_bad_arguments_are_refused_like_the_sync_client(client: AsyncAppClient) -> None:
    """A run without query or outputs raises InvalidRequestError."""
    with pytest.raises(InvalidRequestError):
        _run(lambda: client.run("c1"))


def test_missing_token_is_refused_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without token or $APPBUILDER_TOKEN the constructor raises InvalidRequestError."""
    monkeypatch.delenv("APPBUILDER_TOKEN", raising=False)
    with pytest.raises(InvalidRequestError, match="token"):
        AsyncAppClient("app", base_url="http://127.0.0.1:9")


def test_token_is_not_in_reprs(client: AsyncAppClient, server: ReferenceServer) -> None:
    """Neither the client's nor a stream's repr shows the token."""

    async def scenario() -> str:
        conversation_id = await client.create_conversation()
        async with await client.run(conversation_id, "你好", stream=True) as stream:
            return repr(stream)

    assert server.token not in repr(client) + _run(scenario)
    assert repr(client).startswith("AsyncAppClient(app_id=")


# --- closing and cancelling streams ---------------------------------------------------------


def test_leaving_async_with_mid_stream_closes_it(client: AsyncAppClient) -> None:
    """Exiting async with after one message releases the response."""

    async def scenario() -> AsyncRunStream:
        conversation_id = await client.create_conversation()
        async with await client.run(conversation_id, "你好", stream=True) as stream:
            await anext(stream)
        return stream

    stream = _run(scenario)
    assert stream.closed
    assert not stream.finished


def test_breaking_out_of_async_for_closes_the_stream(client: AsyncAppClient) -> None:
    """Leaving async for early closes the stream once the loop finalises the iteration."""

    async def scenario() -> AsyncRunStream:
        conversation_id = await client.create_conversation()
        stream = await client.run(conversation_id, "你好", stream=True)
        async for _ in stream:
            break
        await _until(lambda: stream.closed)
        return stream

    assert not _run(scenario).finished


def test_cancelling_a_blocked_read_closes_the_stream_and_frees_the_thread() -> None:
    """Cancelling a task waiting for the next message wakes the worker and releases it."""
    gate = threading.Event()
    with FakeGateway().add(Reply(sse=[FIRST, SECOND, FINAL], gate=gate)) as gateway:
        client = AsyncAppClient("app", token="tok-async-1", base_url=gateway.url, timeout=30)
        worker = _OneWorker()

        async def scenario() -> AsyncRunStream:
            stream = await client.run("c1", "hi", stream=True)
            assert (await anext(stream)).answer == "北京"
            reads = worker.started + 1
            reader = asyncio.create_task(stream.collect())
            await _until(lambda: worker.started >= reads)  # the worker thread is reading
            reader.cancel()
            with pytest.raises(asyncio.CancelledError):
                await reader
            assert await _worker_is_free()
            return stream

        try:
            stream = _run(scenario, executor=worker)
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
            _run(scenario)
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
        await _until(lambda: server.faults.injected >= held)
        opening.cancel()
        with pytest.raises(asyncio.CancelledError):
            await opening
        server.faults.release()
        assert await _worker_is_free()

    _run(scenario)
    late = session.responses[-1]
    assert late.headers["Content-Type"].startswith("text/event-stream")
    assert late.raw.closed


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

    answer, loop_thread = _run(scenario)
    assert "北京今天25度" in answer
    assert len(threads) == 1
    assert threads[0] != loop_thread


def test_iter_until_answer_yields_the_loop_events(client: AsyncAppClient) -> None:
    """Streamed deltas, the finished call, then AnswerDone whose answer joins the deltas."""

    async def scenario() -> list[LoopEvent]:
        iterator = client.iter_until_answer(query=QUERY, tools=[get_current_weather])
        return [event async for event in iterator]

    events = _run(scenario)
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

    _run(
        lambda: client.run_until_answer(query=QUERY, tools=[get_current_weather], on_event=on_event)
    )
    assert seen[-1] == "AnswerDone"
    assert "ToolCallFinished" in seen


def test_cancelling_the_round_trip_closes_its_stream() -> None:
    """Cancelling a task waiting on iter_until_answer wakes the worker blocked on the stream."""
    gate = threading.Event()
    with FakeGateway().add(Reply(sse=[FIRST, SECOND, FINAL], gate=gate)) as gateway:
        client = AsyncAppClient("app", token="tok-async-3", base_url=gateway.url, timeout=30)
        worker = _OneWorker()

        async def scenario() -> LoopEvent:
            events = client.iter_until_answer("c1", "hi", tools=[get_current_weather])
            first = await anext(events)
            assert isinstance(await anext(events), ServerEvent)  # the rest needs a read
            steps = worker.started + 1
            waiting = asyncio.create_task(anext(events))
            await _until(lambda: worker.started >= steps)  # the worker thread is reading
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            assert await _worker_is_free()
            return first

        try:
            first = _run(scenario, executor=worker)
        finally:
            gate.set()
    assert isinstance(first, TextDelta)
    assert first.text == "北京"
    assert len(gateway.requests) == 1
