"""Every recorded response body (fixtures/responses) is read by AppClient end to end."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import responses

from appclient import AppClient
from appclient.errors import StreamInterruptedError
from tests.conftest import RESPONSE_FIXTURES

BASE = "http://127.0.0.1:8935"
PATHS = {
    "create_conversation": "/v2/app/conversation",
    "run": "/v2/app/conversation/runs",
    "upload_file": "/v2/app/conversation/file/upload",
}
JSON_FIXTURES = sorted(RESPONSE_FIXTURES.glob("*.json"))
SSE_FIXTURES = sorted(RESPONSE_FIXTURES.glob("*.sse"))


@pytest.fixture
def mock() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock() as rsps:
        yield rsps


@pytest.fixture
def client() -> AppClient:
    return AppClient("app", token="t", base_url=BASE, max_retries=0)


def _endpoint(path: Path) -> str:
    return next(PATHS[prefix] for prefix in PATHS if path.name.startswith(prefix))


def test_every_response_fixture_has_an_endpoint() -> None:
    """Each response fixture belongs to one of the protocol's endpoints."""
    assert len(JSON_FIXTURES) + len(SSE_FIXTURES) == len(list(RESPONSE_FIXTURES.iterdir()))
    for path in JSON_FIXTURES + SSE_FIXTURES:
        assert _endpoint(path)


@pytest.mark.parametrize("path", JSON_FIXTURES, ids=lambda p: p.name)
def test_every_json_response_is_read(
    path: Path, client: AppClient, mock: responses.RequestsMock
) -> None:
    """Each JSON fixture gives the endpoint's result: an id, or a Message with its content."""
    data = json.loads(path.read_bytes())
    mock.post(BASE + _endpoint(path), body=path.read_bytes(), content_type="application/json")
    if path.name.startswith("create_conversation"):
        assert client.create_conversation() == data["conversation_id"]
    elif path.name.startswith("upload_file"):
        assert client.upload_file("c", file_url="https://example.com/a") == data["id"]
    else:
        answer = client.run("c", "hi").content
        assert answer.answer == data.get("answer", "")
        assert len(answer.events) == len(data.get("content", []))
        if "tool_call" in path.name:
            tool_call = answer.events[-1].tool_calls[-1]  # type: ignore[index]
            assert tool_call.function.name == "get_current_weather"
            assert tool_call.function.arguments == {"location": "北京", "unit": "celsius"}


@pytest.mark.parametrize("path", SSE_FIXTURES, ids=lambda p: p.name)
def test_every_sse_response_is_read(
    path: Path, client: AppClient, mock: responses.RequestsMock
) -> None:
    """Each streamed fixture is read message by message into the accumulated answer."""
    mock.post(BASE + _endpoint(path), body=path.read_bytes(), content_type="text/event-stream")
    stream = client.run("c", "hi", stream=True)
    if path.name == "run_stream_final_minimal.sse":
        # Its two messages parse, but no final event follows: appclient reports the stream
        # as interrupted rather than pass a possibly cut answer off as complete.
        with pytest.raises(StreamInterruptedError, match="after 2 message"):
            stream.collect()
        assert stream.answer == "北京今天25度"
        return
    answer = stream.collect()
    if "tool_call" in path.name:
        assert [call.function.name for call in stream.tool_calls] == ["get_current_weather"]
    else:
        assert answer.answer == "北京今天25度，晴。"
        assert answer.events[-1].event_status == "success"
