"""AppClient retries: what is retried, the shared Idempotency-Key, waits, and stream limits."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import responses

from appclient import AppClient, AuthenticationError, RateLimitError
from appclient._core._constants import DEFAULT_BACKOFF_INITIAL, DEFAULT_BACKOFF_MAX
from appclient.errors import (
    BadRequestError,
    ConnectError,
    NotFoundError,
    RequestTimeoutError,
    ServerError,
    StreamInterruptedError,
)
from tests.client_fake_gateway import FakeGateway, Reply

BASE = "http://127.0.0.1:8933"
CONV = f"{BASE}/v2/app/conversation"
RUNS = f"{BASE}/v2/app/conversation/runs"
UPLOAD = f"{BASE}/v2/app/conversation/file/upload"
TOKEN = "tok-retries-test-2718"
FINAL = {"answer": "ok", "content": [{"event_status": "success"}], "is_completion": True}
RUNNING = {"answer": "part", "content": [{"event_status": "running"}]}


@pytest.fixture
def mock() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        yield rsps


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def client(sleeps: list[float]) -> AppClient:
    return AppClient("app", token=TOKEN, base_url=BASE, max_retries=2, sleep=sleeps.append)


def _header(mock: responses.RequestsMock, name: str) -> list[str]:
    return [call.request.headers[name] for call in mock.calls]


def test_503_then_200_succeeds_with_one_idempotency_key(
    client: AppClient, mock: responses.RequestsMock, sleeps: list[float]
) -> None:
    """A 503 is retried; both attempts share the Idempotency-Key but not the request id."""
    mock.post(RUNS, json={"code": "Busy", "message": "try later"}, status=503)
    mock.post(RUNS, json=FINAL)
    message = client.run("c1", tool_outputs=[{"tool_call_id": "t1", "output": "25"}])
    assert message.content.answer == "ok"
    assert len(mock.calls) == 2
    keys = _header(mock, "Idempotency-Key")
    assert keys[0] == keys[1]
    request_ids = _header(mock, "X-Appbuilder-Request-Id")
    assert request_ids[0] != request_ids[1]
    assert mock.calls[0].request.body == mock.calls[1].request.body
    assert len(sleeps) == 1


def test_busy_409_waits_as_told_and_retries_with_the_same_key(
    client: AppClient, mock: responses.RequestsMock, sleeps: list[float]
) -> None:
    """A 409 with Retry-After (run or key still in progress) is retried after that wait."""
    busy = {"code": "IdempotencyKeyInUse", "message": "still running"}
    mock.post(RUNS, json=busy, status=409, headers={"Retry-After": "1"})
    mock.post(RUNS, json=FINAL)
    client.run("c1", tool_outputs=[{"tool_call_id": "t1", "output": "25"}])
    keys = _header(mock, "Idempotency-Key")
    assert (len(keys), keys[0] == keys[1], sleeps) == (2, True, [1.0])


@pytest.mark.parametrize(
    ("status", "cls"), [(400, BadRequestError), (401, AuthenticationError), (404, NotFoundError)]
)
def test_client_errors_are_never_retried(
    client: AppClient,
    mock: responses.RequestsMock,
    sleeps: list[float],
    status: int,
    cls: type[Exception],
) -> None:
    """400, 401 and 404 are raised after one request and no wait."""
    mock.post(RUNS, json={"code": "No", "message": "no"}, status=status)
    mock.post(RUNS, json=FINAL)
    with pytest.raises(cls):
        client.run("c1", "hi")
    assert len(mock.calls) == 1
    assert sleeps == []


@pytest.mark.parametrize("status", [408, 429, 500, 502, 504])
def test_other_retryable_statuses(
    client: AppClient, mock: responses.RequestsMock, status: int
) -> None:
    """408, 429 and 5xx are retried like 503."""
    mock.post(CONV, json={}, status=status)
    mock.post(CONV, json={"conversation_id": "c9"})
    assert client.create_conversation() == "c9"
    assert len(mock.calls) == 2


def test_retry_after_seconds_is_honoured(
    client: AppClient, mock: responses.RequestsMock, sleeps: list[float]
) -> None:
    """Retry-After in seconds is the wait before the next attempt."""
    mock.post(CONV, json={}, status=429, headers={"Retry-After": "3"})
    mock.post(CONV, json={"conversation_id": "c1"})
    client.create_conversation()
    assert sleeps == [3.0]


def test_retry_after_http_date_is_honoured(
    client: AppClient, mock: responses.RequestsMock, sleeps: list[float]
) -> None:
    """Retry-After as an HTTP date waits until that date (by the server's Date header)."""
    headers = {
        "Date": "Fri, 02 Jan 2026 03:04:05 GMT",
        "Retry-After": "Fri, 02 Jan 2026 03:04:17 GMT",
    }
    mock.post(CONV, json={}, status=503, headers=headers)
    mock.post(CONV, json={"conversation_id": "c1"})
    client.create_conversation()
    assert sleeps == [12.0]


def test_retry_after_ms_is_honoured(
    client: AppClient, mock: responses.RequestsMock, sleeps: list[float]
) -> None:
    """retry-after-ms wins over Retry-After."""
    mock.post(CONV, json={}, status=429, headers={"retry-after-ms": "1500", "Retry-After": "9"})
    mock.post(CONV, json={"conversation_id": "c1"})
    client.create_conversation()
    assert sleeps == [1.5]


def test_retry_after_beyond_the_cap_raises_at_once(
    client: AppClient, mock: responses.RequestsMock, sleeps: list[float]
) -> None:
    """A server wait over the cap is not waited for: the error is raised with retry_after."""
    mock.post(CONV, json={}, status=429, headers={"Retry-After": "3600"})
    mock.post(CONV, json={"conversation_id": "c1"})
    with pytest.raises(RateLimitError) as caught:
        client.create_conversation()
    assert caught.value.retry_after == 3600.0
    assert len(mock.calls) == 1
    assert sleeps == []


def test_backoff_waits_are_jittered_within_bounds(
    client: AppClient, mock: responses.RequestsMock, sleeps: list[float]
) -> None:
    """Without Retry-After the waits stay within the exponential ceiling."""
    mock.post(CONV, json={}, status=503)
    with pytest.raises(ServerError):
        client.create_conversation()
    assert len(sleeps) == 2
    for attempt, wait in enumerate(sleeps, start=1):
        assert 0 <= wait <= min(DEFAULT_BACKOFF_MAX, DEFAULT_BACKOFF_INITIAL * 2 ** (attempt - 1))


@pytest.mark.parametrize("max_retries", [0, 1, 4])
def test_max_retries_bounds_the_attempts(
    mock: responses.RequestsMock, sleeps: list[float], max_retries: int
) -> None:
    """At most 1 + max_retries requests are sent, then the last error is raised."""
    client = AppClient(
        "app", token=TOKEN, base_url=BASE, max_retries=max_retries, sleep=sleeps.append
    )
    mock.post(CONV, json={}, status=502)
    with pytest.raises(ServerError):
        client.create_conversation()
    assert len(mock.calls) == max_retries + 1
    assert len(sleeps) == max_retries
    assert len(set(_header(mock, "Idempotency-Key"))) == 1


def test_connection_errors_are_retried(client: AppClient, mock: responses.RequestsMock) -> None:
    """A failed connection is retried, then succeeds."""
    mock.post(CONV, body=requests.ConnectionError("refused"))
    mock.post(CONV, json={"conversation_id": "c1"})
    assert client.create_conversation() == "c1"


def test_connection_errors_give_up_as_connect_error(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """When every attempt fails to connect, ConnectError is raised."""
    mock.post(CONV, body=requests.ConnectionError("refused"))
    with pytest.raises(ConnectError):
        client.create_conversation()
    assert len(mock.calls) == 3


def test_read_timeouts_are_retried_without_stream(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """A non-stream run that timed out is retried with the same Idempotency-Key."""
    mock.post(RUNS, body=requests.ReadTimeout("slow"))
    mock.post(RUNS, json=FINAL)
    assert client.run("c1", "hi").content.answer == "ok"
    assert len(set(_header(mock, "Idempotency-Key"))) == 1


def test_read_timeouts_are_not_retried_for_streams(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """A stream request that timed out is raised at once (the run may be under way)."""
    mock.post(RUNS, body=requests.ReadTimeout("slow"))
    with pytest.raises(RequestTimeoutError):
        client.run("c1", "hi", stream=True)
    assert len(mock.calls) == 1


def test_a_streams_read_timeout_is_not_retried_after_an_earlier_retry(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """After a retried 503, a stream request's read timeout is still raised, not retried."""
    mock.post(RUNS, json={}, status=503)
    mock.post(RUNS, body=requests.ReadTimeout("slow"))
    mock.post(RUNS, json=FINAL)
    with pytest.raises(RequestTimeoutError):
        client.run("c1", "hi", stream=True)
    assert len(mock.calls) == 2


def test_stream_is_retried_before_its_first_byte(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """A 503 answer to a stream request is retried, with the same Idempotency-Key."""
    mock.post(RUNS, json={}, status=503)
    body = f"data: {json.dumps(FINAL)}\n\n".encode()
    mock.post(RUNS, body=body, content_type="text/event-stream")
    assert client.run("c1", "hi", stream=True).collect().answer == "ok"
    assert len(mock.calls) == 2
    assert len(set(_header(mock, "Idempotency-Key"))) == 1


def test_stream_cut_mid_way_is_resent_and_its_replay_read_on() -> None:
    """A stream cut after two messages is sent again with its key; the replay's rest is read."""
    cut = Reply(sse=[RUNNING, RUNNING, FINAL], cut_after=2)
    replay = Reply(sse=[RUNNING, RUNNING, FINAL])
    with FakeGateway().add(cut, replay) as gateway:
        client = AppClient("app", token=TOKEN, base_url=gateway.url, sleep=lambda _: None)
        answer = client.run("c1", "hi", stream=True).collect()
        keys = [request.headers["Idempotency-Key"] for request in gateway.requests]
    assert answer.answer == "partpartok"
    assert len(keys) == 2
    assert len(set(keys)) == 1


def test_a_resent_stream_that_differs_is_not_spliced(sleeps: list[float]) -> None:
    """When the resent run answers differently (no replay), the cut is reported, once."""
    reply = Reply(sse=[RUNNING, RUNNING, FINAL], cut_after=2)
    with FakeGateway(fallback=Reply(sse=[FINAL])).add(reply) as gateway:
        client = AppClient("app", token=TOKEN, base_url=gateway.url, sleep=sleeps.append)
        stream = client.run("c1", "hi", stream=True)
        assert next(stream).answer == "part"
        with pytest.raises(StreamInterruptedError, match="answered differently"):
            stream.collect()
        assert stream.answer == "partpart"
        assert len(gateway.requests) == 2


def test_a_cut_stream_is_not_resent_without_retries() -> None:
    """With max_retries=0 a cut stream is reported at once, never sent again."""
    reply = Reply(sse=[RUNNING, RUNNING, FINAL], cut_after=2)
    with FakeGateway(fallback=Reply(sse=[FINAL])).add(reply) as gateway:
        client = AppClient("app", token=TOKEN, base_url=gateway.url, max_retries=0)
        with pytest.raises(StreamInterruptedError, match="after 2 message"):
            client.run("c1", "hi", stream=True).collect()
        assert len(gateway.requests) == 1


def test_upload_retry_sends_the_whole_file_again(
    client: AppClient, mock: responses.RequestsMock, tmp_path: Path
) -> None:
    """A retried upload re-reads the file from its first byte."""
    path = tmp_path / "report.txt"
    path.write_bytes(b"line one\nline two\n")
    mock.post(UPLOAD, json={}, status=500)
    mock.post(UPLOAD, json={"id": "file-1"})
    assert client.upload_file("c1", file_path=path) == "file-1"
    first, second = (call.request.body for call in mock.calls)
    assert b"line one\nline two\n" in first
    assert b"line one\nline two\n" in second


def test_retries_are_logged_without_the_token(
    client: AppClient, mock: responses.RequestsMock, caplog: pytest.LogCaptureFixture
) -> None:
    """Each retry is logged at INFO with the path, the wait and the failure."""
    mock.post(CONV, json={"code": "Busy"}, status=503, headers={"Retry-After": "2"})
    mock.post(CONV, json={"conversation_id": "c1"})
    with caplog.at_level(logging.INFO, logger="appclient"):
        client.create_conversation()
    (record,) = [r for r in caplog.records if r.levelno == logging.INFO]
    message = record.getMessage()
    assert "retrying POST /v2/app/conversation in 2.00 s" in message
    assert "attempt 1 of 3" in message
    assert "HTTP 503" in message
    assert TOKEN not in caplog.text
