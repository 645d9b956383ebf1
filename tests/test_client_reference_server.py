"""AppClient against the reference server: the seed round trips and injected faults, end to end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from appclient import AppClient, AuthenticationError
from appclient.errors import (
    BadRequestError,
    NotFoundError,
    RequestTimeoutError,
    StreamInterruptedError,
)
from appclient.testing import ReferenceServer
from tests.seed import SEED_WEATHER_TOOL

WEATHER_TOOL = SEED_WEATHER_TOOL


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with ReferenceServer() as running:
        yield running


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def client(server: ReferenceServer, sleeps: list[float]) -> Iterator[AppClient]:
    server.faults.reset()
    with AppClient(
        server.app_id, token=server.token, base_url=server.url, sleep=sleeps.append
    ) as client:
        yield client


def test_seed_round_trip(client: AppClient) -> None:
    """The docs' round trip: query with a tool, read the call, post its output, get the answer."""
    conversation_id = client.create_conversation()
    message = client.run(
        conversation_id=conversation_id, query="今天北京天气怎么样？", tools=[WEATHER_TOOL]
    )
    tool_call = message.content.events[-1].tool_calls[-1]  # type: ignore[index]
    assert tool_call.function.name == "get_current_weather"
    assert tool_call.function.arguments["location"] == "北京"
    final = client.run(
        conversation_id=conversation_id,
        tool_outputs=[{"tool_call_id": tool_call.id, "output": "北京今天35度"}],
    )
    assert "35度" in final.content.answer
    assert final.content.events[-1].event_status == "success"


def test_streamed_round_trip(client: AppClient) -> None:
    """The same round trip streamed: the interrupt, then the answer in several deltas."""
    conversation_id = client.create_conversation()
    with client.run(
        conversation_id, "上海天气怎么样？", tools=[WEATHER_TOOL], stream=True
    ) as first:
        first.collect()
    (tool_call,) = first.tool_calls
    outputs = [{"tool_call_id": tool_call.id, "output": "上海今天20度"}]
    second = client.run(conversation_id, tool_outputs=outputs, stream=True)
    deltas = [message.answer for message in second.content if message.answer]
    assert len(deltas) > 1
    assert "20度" in "".join(deltas)
    assert second.finished


def test_upload_and_feedback(client: AppClient, tmp_path: Path) -> None:
    """A file uploaded by path gives an id usable in file_ids; feedback is acknowledged."""
    conversation_id = client.create_conversation()
    path = tmp_path / "笔记.txt"
    path.write_text("hello", encoding="utf-8")
    file_id = client.upload_file(conversation_id, file_path=path)
    message = client.run(conversation_id, "总结一下这个文件", file_ids=[file_id])
    assert client.feedback(
        conversation_id=conversation_id, message_id=message.content.message_id, type="upvote"
    )


def test_503_then_success_is_retried(
    client: AppClient, server: ReferenceServer, sleeps: list[float]
) -> None:
    """An injected 503 with Retry-After is waited out (via the injected sleep) and retried."""
    server.faults.fail_next(1, status=503, retry_after=2)
    assert client.create_conversation()
    assert sleeps == [2.0]


def test_hung_request_times_out_then_retry_succeeds(server: ReferenceServer) -> None:
    """A held non-stream request times out on the client and the retry gets the answer."""
    server.faults.reset()
    server.faults.hang_next(1)
    client = AppClient(
        server.app_id, token=server.token, base_url=server.url, timeout=0.3, sleep=lambda _: None
    )
    assert client.create_conversation()
    server.faults.release()


def test_hung_request_without_retries_raises_timeout(server: ReferenceServer) -> None:
    """With retries off, a held request raises RequestTimeoutError."""
    server.faults.reset()
    server.faults.hang_next(1)
    client = AppClient(
        server.app_id, token=server.token, base_url=server.url, timeout=0.3, max_retries=0
    )
    try:
        with pytest.raises(RequestTimeoutError):
            client.create_conversation()
    finally:
        server.faults.release()


def test_cut_stream_raises_interrupted_without_retries(server: ReferenceServer) -> None:
    """With max_retries=0, a stream the server cuts after two messages raises."""
    client = AppClient(server.app_id, token=server.token, base_url=server.url, max_retries=0)
    conversation_id = client.create_conversation()
    first = client.run(conversation_id, "北京天气", tools=[WEATHER_TOOL])
    (tool_call,) = first.content.tool_calls
    server.faults.cut_stream_after(2)
    stream = client.run(
        conversation_id, tool_outputs=[{"tool_call_id": tool_call.id, "output": "晴"}], stream=True
    )
    with pytest.raises(StreamInterruptedError):
        stream.collect()


def test_cut_tool_outputs_stream_is_recovered(client: AppClient, server: ReferenceServer) -> None:
    """Tool outputs whose streamed answer is cut after delivery began are answered once."""
    conversation_id = client.create_conversation()
    first = client.run(conversation_id, "北京天气", tools=[WEATHER_TOOL])
    (tool_call,) = first.content.tool_calls
    outputs = [{"tool_call_id": tool_call.id, "output": "北京今天晴"}]
    server.faults.cut_stream_after(2)
    answer = client.run(conversation_id, tool_outputs=outputs, stream=True).collect()
    assert "北京今天晴" in answer.answer
    assert answer.events[-1].event_status == "success"


def test_wrong_token_is_an_authentication_error(server: ReferenceServer) -> None:
    """Another token gets 401 as AuthenticationError, never retried."""
    client = AppClient(server.app_id, token="not-the-token", base_url=server.url)
    with pytest.raises(AuthenticationError):
        client.create_conversation()


def test_unknown_conversation_is_not_found(client: AppClient) -> None:
    """A conversation id the server never issued is a 404."""
    with pytest.raises(NotFoundError):
        client.run("no-such-conversation", "hi")


def test_unknown_tool_call_id_is_a_bad_request(client: AppClient) -> None:
    """Outputs for a tool call that was never made are a 400 naming it."""
    conversation_id = client.create_conversation()
    with pytest.raises(BadRequestError, match="call-unknown"):
        client.run(conversation_id, tool_outputs=[{"tool_call_id": "call-unknown", "output": "x"}])


def test_official_run_extras_are_accepted(client: AppClient) -> None:
    """action, parameters, custom_metadata and mcp_authorization reach the server and pass."""
    conversation_id = client.create_conversation()
    message = client.run(
        conversation_id,
        "你好",
        action={"action_type": "resume"},
        parameters={"temperature": 0.1},
        custom_metadata={"override_role_instruction": "简短回答"},
        mcp_authorization=[{"type": "netdisk", "access_token": "at"}],
    )
    assert message.content.answer
