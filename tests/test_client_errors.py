"""AppClient failures: status classes, run errors in HTTP 200, transport errors, no token leaks."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import responses

from appclient import (
    APIStatusError,
    AppClient,
    AppClientError,
    AuthenticationError,
    RateLimitError,
    RunError,
)
from appclient.errors import (
    BadRequestError,
    ConflictError,
    ConnectError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RequestTimeoutError,
    ResponseDecodeError,
    ServerError,
    UnprocessableEntityError,
)
from tests.client_fake_gateway import FakeGateway, Reply

BASE = "http://127.0.0.1:8932"
RUNS = f"{BASE}/v2/app/conversation/runs"
CONV = f"{BASE}/v2/app/conversation"
TOKEN = "tok-errors-test-0815"


@pytest.fixture
def mock() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        yield rsps


@pytest.fixture
def client() -> AppClient:
    return AppClient("app", token=TOKEN, base_url=BASE, max_retries=0)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (403, PermissionDeniedError),
        (404, NotFoundError),
        (409, ConflictError),
        (413, PayloadTooLargeError),
        (422, UnprocessableEntityError),
        (429, RateLimitError),
        (500, ServerError),
        (502, ServerError),
        (503, ServerError),
        (504, ServerError),
        (418, APIStatusError),
    ],
)
def test_each_status_maps_to_its_class(
    client: AppClient, mock: responses.RequestsMock, status: int, cls: type[APIStatusError]
) -> None:
    """Each HTTP error status raises its own class carrying the protocol's error fields."""
    body = {"request_id": "rq-1", "code": "SomeCode", "message": "what went wrong"}
    mock.post(RUNS, json=body, status=status)
    with pytest.raises(APIStatusError) as caught:
        client.run("c1", "hi")
    error = caught.value
    assert type(error) is cls
    assert (error.status_code, error.code, error.message, error.request_id) == (
        status,
        "SomeCode",
        "what went wrong",
        "rq-1",
    )
    assert error.body == body
    assert "what went wrong" in str(error)


def test_status_errors_are_app_client_errors(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """Every status error can be caught as AppClientError."""
    mock.post(CONV, json={}, status=404)
    with pytest.raises(AppClientError):
        client.create_conversation()


def test_html_error_page_keeps_its_text(client: AppClient, mock: responses.RequestsMock) -> None:
    """A non-JSON error body (a proxy's page) becomes the message and the body."""
    mock.post(RUNS, body=b"<h1>502 Bad Gateway</h1>", status=502)
    with pytest.raises(ServerError, match="502 Bad Gateway") as caught:
        client.run("c1", "hi")
    assert caught.value.body == "<h1>502 Bad Gateway</h1>"


def test_top_level_error_in_200_raises_run_error(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """HTTP 200 with a top-level code/message raises RunError (the official client is silent)."""
    mock.post(RUNS, json={"request_id": "r-7", "code": "InvalidQuota", "message": "no quota"})
    with pytest.raises(RunError) as caught:
        client.run("c1", "hi")
    assert (caught.value.code, caught.value.message, caught.value.request_id) == (
        "InvalidQuota",
        "no quota",
        "r-7",
    )
    assert caught.value.conversation_id == "c1"


def test_error_event_raises_run_error(client: AppClient, mock: responses.RequestsMock) -> None:
    """An error event in a non-stream answer raises RunError with its code and message."""
    body = {
        "request_id": "r",
        "content": [
            {"event_status": "running"},
            {"event_status": "error", "event_code": 31, "event_message": "component crashed"},
        ],
    }
    mock.post(RUNS, json=body)
    with pytest.raises(RunError, match="31: component crashed"):
        client.run("c1", "hi")


def test_error_event_in_stream_raises_run_error(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """An error event in a stream raises RunError while iterating."""
    event = {"event_status": "error", "event_code": 5, "event_message": "boom"}
    body = f"data: {json.dumps({'content': [event]})}\n\n".encode()
    mock.post(RUNS, body=body, content_type="text/event-stream")
    stream = client.run("c1", "hi", stream=True)
    with pytest.raises(RunError, match="boom"):
        stream.collect()
    assert stream.closed


def test_non_json_200_raises_decode_error(client: AppClient, mock: responses.RequestsMock) -> None:
    """A 200 body that is not JSON raises ResponseDecodeError naming the request id."""
    mock.post(RUNS, body=b"<html>ok</html>", headers={"X-Appbuilder-Request-Id": "r-h"})
    with pytest.raises(ResponseDecodeError, match="r-h"):
        client.run("c1", "hi")


def test_200_json_array_raises_decode_error(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """A JSON value that is not an object is not a valid answer."""
    mock.post(CONV, json=[1, 2])
    with pytest.raises(ResponseDecodeError, match="not a JSON object"):
        client.create_conversation()


def test_refused_connection_raises_connect_error() -> None:
    """Nothing listening on the port raises ConnectError (a TransportError)."""
    url = f"http://127.0.0.1:{_free_port()}"
    client = AppClient("app", token=TOKEN, base_url=url, max_retries=0)
    with pytest.raises(ConnectError, match="connection failed") as caught:
        client.create_conversation()
    assert caught.value.url == f"{url}/v2/app/conversation"
    assert caught.value.method == "POST"


def test_hung_server_raises_request_timeout() -> None:
    """A server that never answers raises RequestTimeoutError after the read timeout."""
    with FakeGateway().add(Reply(hang=True)) as gateway:
        client = AppClient("app", token=TOKEN, base_url=gateway.url, timeout=0.2, max_retries=0)
        with pytest.raises(RequestTimeoutError, match=r"0\.2 s \(read timeout\)"):
            client.create_conversation()


def test_connect_timeout_raises_request_timeout(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """A connect timeout from requests is wrapped as RequestTimeoutError."""
    mock.post(CONV, body=requests.ConnectTimeout("timed out"))
    with pytest.raises(RequestTimeoutError, match="connect timeout"):
        client.create_conversation()


def test_transport_errors_chain_nothing_secret(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """Wrapped transport errors drop requests' exception (which can hold the request)."""
    mock.post(CONV, body=requests.ConnectionError("refused"))
    with pytest.raises(ConnectError) as caught:
        client.create_conversation()
    assert caught.value.__cause__ is None
    assert caught.value.__suppress_context__


# --- the token never leaks ----------------------------------------------------------------


def _everything_said(client: AppClient, errors: list[BaseException], log_text: str) -> str:
    dumps = [
        repr(client),
        str(client),
        repr(vars(client)),
        json.dumps(vars(client), default=repr),
        log_text,
    ]
    for error in errors:
        dumps.extend([str(error), repr(error), repr(vars(error)), repr(error.args)])
    return "\n".join(dumps)


def test_token_never_leaks(mock: responses.RequestsMock, caplog: pytest.LogCaptureFixture) -> None:
    """repr, vars(), exceptions and DEBUG logs of a failing session never show the token."""
    client = AppClient("app", token=TOKEN, base_url=BASE, max_retries=1, sleep=lambda _: None)
    echo = {"code": "AuthFailed", "message": f"token {TOKEN} is invalid", "token": TOKEN}
    mock.post(CONV, json=echo, status=401)
    mock.post(RUNS, body=requests.ConnectionError(f"header Authorization: Bearer {TOKEN}"))
    mock.post(f"{BASE}/v2/app/conversation/feedback", json=echo, status=503)
    errors: list[BaseException] = []
    with caplog.at_level(logging.DEBUG):
        for call in (
            client.create_conversation,
            lambda: client.run("c1", "hi"),
            lambda: client.feedback(conversation_id="c", message_id="m", type="upvote"),
        ):
            with pytest.raises(AppClientError) as caught:
                call()
            errors.append(caught.value)
    assert len(mock.calls) == 5
    said = _everything_said(client, errors, caplog.text)
    assert TOKEN not in said
    assert "***" in said


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    "body",
    [
        {"code": "AuthFailed", "message": f"token {TOKEN} is invalid"},
        {"content": [{"event_status": "error", "event_code": 7, "event_message": f"bad {TOKEN}"}]},
    ],
    ids=["top-level", "error-event"],
)
def test_run_errors_in_200_answers_hide_an_echoed_token(
    client: AppClient, mock: responses.RequestsMock, body: dict[str, Any], stream: bool
) -> None:
    """A RunError built from a 200 answer that echoes the token does not show it."""
    if stream:
        sse = f"data: {json.dumps(body)}\n\n"
        mock.post(RUNS, body=sse, content_type="text/event-stream")
    else:
        mock.post(RUNS, json=body)

    def read() -> None:
        answer = client.run("c1", "hi", stream=stream)
        if stream:
            answer.collect()

    with pytest.raises(RunError) as caught:
        read()
    assert TOKEN not in str(caught.value)
    assert TOKEN not in caught.value.message


@pytest.mark.parametrize("endpoint", [CONV, RUNS])
def test_undecodable_200_bodies_hide_an_echoed_token(
    client: AppClient, mock: responses.RequestsMock, endpoint: str
) -> None:
    """The body snippet in a ResponseDecodeError has the token scrubbed."""
    mock.post(endpoint, body=f"<html>bad token {TOKEN}</html>")
    call = client.create_conversation if endpoint == CONV else lambda: client.run("c1", "hi")
    with pytest.raises(ResponseDecodeError) as caught:
        call()
    assert TOKEN not in str(caught.value)


def test_token_not_in_request_records_kept_by_errors(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """Status errors keep the body, not the response or request objects."""
    mock.post(CONV, json={"code": "x"}, status=400)
    with pytest.raises(BadRequestError) as caught:
        client.create_conversation()
    kept: dict[str, Any] = vars(caught.value)
    assert not any(
        isinstance(value, (requests.Response, requests.PreparedRequest)) for value in kept.values()
    )


def test_token_with_line_break_is_refused_without_echo() -> None:
    """A token that cannot be a header value is refused and not repeated."""
    with pytest.raises(AppClientError) as caught:
        AppClient("app", token="tok\r\nX-Evil: 1", base_url=BASE)
    assert "X-Evil" not in str(caught.value)
