"""AppClient: construction, headers, the four endpoints, tools, lifecycle and logging."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import responses

from appclient import (
    APIStatusError,
    AppClient,
    InvalidRequestError,
    Message,
    Timeout,
    Tool,
    ToolRegistry,
)
from appclient._version import __version__
from appclient.errors import ResponseDecodeError
from appclient.types import RunStream

BASE = "http://127.0.0.1:8931"
TOKEN = "tok-client-test-4711"
CONV = f"{BASE}/v2/app/conversation"
RUNS = f"{BASE}/v2/app/conversation/runs"
UPLOAD = f"{BASE}/v2/app/conversation/file/upload"
FEEDBACK = f"{BASE}/v2/app/conversation/feedback"
FINAL = {
    "request_id": "r2",
    "answer": "晴",
    "conversation_id": "c1",
    "message_id": "m1",
    "is_completion": True,
    "content": [{"event_status": "success", "event_type": "ChatAgent", "outputs": {}}],
}
INTERRUPT = {
    "request_id": "r1",
    "answer": "",
    "conversation_id": "c1",
    "message_id": "m1",
    "content": [
        {
            "event_status": "interrupt",
            "event_type": "Interrupt",
            "content_type": "contexts",
            "tool_calls": [
                {
                    "id": "call-1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": {"city": "北京"}},
                }
            ],
        }
    ],
}
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather of a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}


@pytest.fixture
def mock() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        yield rsps


@pytest.fixture
def client() -> Iterator[AppClient]:
    with AppClient("app-1", token=TOKEN, base_url=BASE, sleep=lambda _: None) as c:
        yield c


def _sent(mock: responses.RequestsMock, index: int = -1) -> Any:
    return json.loads(mock.calls[index].request.body)


# --- construction -------------------------------------------------------------------------


def test_token_and_base_url_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """APPBUILDER_TOKEN and GATEWAY_URL_V2 are the defaults, as in the official SDKs."""
    monkeypatch.setenv("APPBUILDER_TOKEN", "env-token")
    monkeypatch.setenv("GATEWAY_URL_V2", "http://127.0.0.1:9/")
    client = AppClient("app")
    assert client.base_url == "http://127.0.0.1:9"
    assert client._transport._authorization.reveal() == "Bearer env-token"


def test_arguments_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Explicit token and base_url override the environment."""
    monkeypatch.setenv("APPBUILDER_TOKEN", "env-token")
    monkeypatch.setenv("GATEWAY_URL_V2", "http://127.0.0.1:9")
    client = AppClient("app", token="arg-token", base_url="http://127.0.0.1:10")
    assert client.base_url == "http://127.0.0.1:10"
    assert client._transport._authorization.reveal() == "Bearer arg-token"


def test_default_base_url_is_the_hosted_service() -> None:
    """Without GATEWAY_URL_V2 the hosted gateway is used."""
    assert AppClient("app", token="t").base_url == "https://qianfan.baidubce.com"


def test_missing_token_is_a_clear_error() -> None:
    """No token anywhere raises InvalidRequestError naming the variable."""
    with pytest.raises(InvalidRequestError, match="APPBUILDER_TOKEN"):
        AppClient("app")


@pytest.mark.parametrize("app_id", ["", "  ", None])
def test_empty_app_id_is_refused(app_id: Any) -> None:
    """The app id must be a non-empty string."""
    with pytest.raises(InvalidRequestError, match="app_id"):
        AppClient(app_id, token="t")


@pytest.mark.parametrize("base_url", ["ftp://127.0.0.1", "http://", "http://exa mple.com"])
def test_base_url_must_be_http(base_url: str) -> None:
    """A base URL with another scheme, no host or a host with blanks is refused."""
    with pytest.raises(InvalidRequestError, match="base_url"):
        AppClient("app", token="t", base_url=base_url)


def test_base_url_with_credentials_is_refused() -> None:
    """Credentials in the URL would leak into errors; they are refused."""
    with pytest.raises(InvalidRequestError, match="credentials"):
        AppClient("app", token="t", base_url="http://user:pw@127.0.0.1:1")


def test_base_url_can_be_reassigned(mock: responses.RequestsMock) -> None:
    """A new base_url (as users of the official SDK set it) is checked and used."""
    client = AppClient("app", token="t", base_url="http://127.0.0.1:1")
    client.base_url = BASE + "/"
    mock.post(CONV, json={"conversation_id": "c1"})
    assert client.create_conversation() == "c1"
    assert client.base_url == BASE
    with pytest.raises(InvalidRequestError, match="base_url"):
        client.base_url = "not a url"


def test_default_timeouts_bound_the_whole_call() -> None:
    """Without timeout, 10 s to connect, 120 s per read and 600 s for the whole call apply."""
    assert AppClient("app", token="t").timeout == Timeout(connect=10, read=120, total=600)


def test_single_timeout_applies_to_connect_and_read() -> None:
    """A number sets both waits, as in requests; the total keeps its default."""
    assert AppClient("app", token="t", timeout=3).timeout == Timeout(3, 3, 600)


def test_a_triple_sets_the_total_timeout() -> None:
    """A (connect, read, total) triple sets all three; total may be None."""
    assert AppClient("app", token="t", timeout=(1, 2, 3)).timeout == Timeout(1, 2, 3)
    assert AppClient("app", token="t", timeout=(1, 2, None)).timeout.total is None


@pytest.mark.parametrize(
    "timeout", [0, -1, (1, 2, 3, 4), (1,), (1, "2"), True, float("inf"), (1, 2, 0)]
)
def test_bad_timeouts_are_refused(timeout: Any) -> None:
    """Non-positive, non-finite or badly shaped timeouts are refused."""
    with pytest.raises(InvalidRequestError, match="timeout"):
        AppClient("app", token="t", timeout=timeout)


@pytest.mark.parametrize("max_retries", [-1, True, 1.0])
def test_bad_max_retries_are_refused(max_retries: Any) -> None:
    """max_retries must be an int of at least 0."""
    with pytest.raises(InvalidRequestError, match="max_retries"):
        AppClient("app", token="t", max_retries=max_retries)


def test_max_retries_is_exposed() -> None:
    """The configured number of retries can be read back."""
    assert AppClient("app", token="t", max_retries=5).max_retries == 5


# --- headers ------------------------------------------------------------------------------


def test_headers_of_a_request(client: AppClient, mock: responses.RequestsMock) -> None:
    """Every request carries Bearer auth, the User-Agent, a request id and an idempotency key."""
    mock.post(CONV, json={"request_id": "r", "conversation_id": "c1"})
    client.create_conversation()
    headers = mock.calls[0].request.headers
    assert headers["Authorization"] == f"Bearer {TOKEN}"
    assert headers["User-Agent"] == f"appclient/{__version__}"
    assert headers["Content-Type"] == "application/json"
    assert uuid.UUID(headers["X-Appbuilder-Request-Id"]).version == 4
    assert uuid.UUID(headers["Idempotency-Key"]).version == 4


def test_bearer_prefixed_token_is_sent_as_is(mock: responses.RequestsMock) -> None:
    """A token that already starts with Bearer is not prefixed twice."""
    mock.post(CONV, json={"conversation_id": "c1"})
    AppClient("app", token="Bearer already-prefixed", base_url=BASE).create_conversation()
    assert mock.calls[0].request.headers["Authorization"] == "Bearer already-prefixed"


def test_each_call_gets_new_ids(client: AppClient, mock: responses.RequestsMock) -> None:
    """Two logical requests have different request ids and idempotency keys."""
    mock.post(CONV, json={"conversation_id": "c1"})
    client.create_conversation()
    client.create_conversation()
    first, second = (call.request.headers for call in mock.calls)
    assert first["Idempotency-Key"] != second["Idempotency-Key"]
    assert first["X-Appbuilder-Request-Id"] != second["X-Appbuilder-Request-Id"]


# --- endpoints ----------------------------------------------------------------------------


def test_create_conversation(client: AppClient, mock: responses.RequestsMock) -> None:
    """create_conversation posts the app id and returns the new conversation id."""
    mock.post(CONV, json={"request_id": "r", "conversation_id": "c-42"})
    assert client.create_conversation() == "c-42"
    assert _sent(mock) == {"app_id": "app-1"}


def test_create_conversation_without_id_raises(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """An answer without conversation_id raises ResponseDecodeError naming the field."""
    mock.post(CONV, json={"request_id": "r-x"})
    with pytest.raises(ResponseDecodeError, match=r"'conversation_id'.*r-x"):
        client.create_conversation()


def test_create_conversation_with_top_level_error_raises(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """An HTTP 200 error body is reported with its code and message, not swallowed."""
    mock.post(CONV, json={"request_id": "r", "code": "AppNotFound", "message": "no such app"})
    with pytest.raises(ResponseDecodeError, match="AppNotFound: no such app"):
        client.create_conversation()


def test_run_returns_a_message_the_seed_code_can_read(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """A non-stream run returns Message(content=RunAnswer), readable as in the seed docs."""
    mock.post(RUNS, json=INTERRUPT)
    message = client.run(conversation_id="c1", query="今天北京天气怎么样？", tools=[WEATHER])
    assert isinstance(message, Message)
    tool_call = message.content.events[-1].tool_calls[-1]  # type: ignore[index]
    assert (tool_call.id, tool_call.function.name) == ("call-1", "get_weather")
    assert tool_call.function.arguments == {"city": "北京"}
    assert json.loads(message.model_dump_json(indent=4))["content"]["answer"] == ""


def test_run_with_tool_outputs(client: AppClient, mock: responses.RequestsMock) -> None:
    """Posting tool outputs without a query returns the final answer."""
    mock.post(RUNS, json=FINAL)
    message = client.run("c1", tool_outputs=[{"tool_call_id": "call-1", "output": "25度"}])
    assert message.content.answer == "晴"
    body = _sent(mock)
    assert (body["query"], body["tools"]) == ("", [])
    assert body["tool_outputs"] == [{"tool_call_id": "call-1", "output": "25度"}]


def test_run_accepts_tool_models(client: AppClient, mock: responses.RequestsMock) -> None:
    """Tool models are sent as their wire dicts."""
    mock.post(RUNS, json=INTERRUPT)
    client.run("c1", "hi", tools=[Tool.model_validate(WEATHER)])
    assert _sent(mock)["tools"] == [WEATHER]


def test_run_accepts_plain_functions(client: AppClient, mock: responses.RequestsMock) -> None:
    """A plain function is described by appclient.Manifest and sent as a tool."""

    def get_weather(city: str) -> str:
        """Weather of a city.

        Args:
            city: The city name.
        """
        return city

    mock.post(RUNS, json=INTERRUPT)
    client.run("c1", "hi", tools=[get_weather])
    (tool,) = _sent(mock)["tools"]
    assert tool["type"] == "function"
    assert tool["function"]["name"] == "get_weather"
    assert "city" in tool["function"]["parameters"]["properties"]


def test_run_accepts_a_tool_registry(client: AppClient, mock: responses.RequestsMock) -> None:
    """A ToolRegistry (or its tools() list) supplies the tools."""

    def get_weather(city: str) -> str:
        """Weather of a city."""
        return city

    registry = ToolRegistry()
    registry.add(get_weather)
    mock.post(RUNS, json=INTERRUPT)
    client.run("c1", "hi", tools=registry)
    client.run("c1", "hi", tools=registry.tools())
    assert _sent(mock, 0)["tools"] == _sent(mock, 1)["tools"]
    assert _sent(mock, 0)["tools"][0]["function"]["name"] == "get_weather"


def test_invalid_run_sends_nothing(client: AppClient, mock: responses.RequestsMock) -> None:
    """Client-side validation fails before any request is made."""
    with pytest.raises(InvalidRequestError, match="conversation_id"):
        client.run("", "hi")
    with pytest.raises(InvalidRequestError, match="a query, tool_outputs or a forced"):
        client.run("c1")
    with pytest.raises(InvalidRequestError, match="tool_choice"):
        client.run("c1", "hi", tool_choice={"type": "sometimes"})
    assert len(mock.calls) == 0


def test_invalid_requests_are_value_errors(client: AppClient) -> None:
    """Validation errors can be caught as ValueError."""
    with pytest.raises(ValueError, match="conversation_id"):
        client.run("  ", "hi")


def test_run_stream_returns_a_run_stream(client: AppClient, mock: responses.RequestsMock) -> None:
    """stream=True returns a RunStream over the SSE body."""
    body = "".join(
        f"data: {json.dumps(m, ensure_ascii=False)}\n\n"
        for m in ({**FINAL, "answer": "晴", "content": []}, FINAL | {"answer": "天"})
    )
    mock.post(RUNS, body=body.encode(), content_type="text/event-stream")
    stream = client.run("c1", "hi", stream=True)
    assert isinstance(stream, RunStream)
    assert stream.collect().answer == "晴天"
    assert _sent(mock)["stream"] is True
    assert stream.closed


def test_stream_request_answered_with_json(client: AppClient, mock: responses.RequestsMock) -> None:
    """A JSON answer to a stream request is read as one message."""
    mock.post(RUNS, json=FINAL)
    assert client.run("c1", "hi", stream=True).collect().answer == "晴"


def test_upload_file_by_path(
    client: AppClient, mock: responses.RequestsMock, tmp_path: Path
) -> None:
    """A local file is sent as multipart 'file' under its base name; the file id is returned."""
    path = tmp_path / "hello 测试.txt"
    path.write_bytes(b"hello\n")
    mock.post(UPLOAD, json={"request_id": "r", "id": "file-1", "conversation_id": "c1"})
    assert client.upload_file("c1", file_path=path) == "file-1"
    request = mock.calls[0].request
    assert request.headers["Content-Type"].startswith("multipart/form-data; boundary=")
    assert 'filename="hello 测试.txt"'.encode() in request.body
    assert str(tmp_path).encode() not in request.body


def test_upload_file_takes_the_path_by_position(
    client: AppClient, mock: responses.RequestsMock, tmp_path: Path
) -> None:
    """upload_file(cid, path) uploads the file, as the official client's positional call does."""
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello\n")
    mock.post(UPLOAD, json={"id": "file-3"})
    assert client.upload_file("c1", path) == "file-3"
    assert b'filename="a.txt"' in mock.calls[0].request.body


def test_upload_local_file_is_the_official_spelling(
    client: AppClient, mock: responses.RequestsMock, tmp_path: Path
) -> None:
    """upload_local_file(cid, path), the official client's method, uploads the file."""
    path = tmp_path / "hello 测试.txt"
    path.write_bytes(b"hello\n")
    mock.post(UPLOAD, json={"id": "file-4"})
    assert client.upload_local_file("c1", str(path)) == "file-4"
    assert 'filename="hello 测试.txt"'.encode() in mock.calls[0].request.body


def test_upload_file_by_url(client: AppClient, mock: responses.RequestsMock) -> None:
    """A URL is sent as the multipart text field file_url."""
    mock.post(UPLOAD, json={"id": "file-2"})
    assert client.upload_file("c1", file_url="https://example.com/a.pdf") == "file-2"
    body = mock.calls[0].request.body
    assert b'name="file_url"' in body
    assert b"https://example.com/a.pdf" in body


@pytest.mark.parametrize(
    "arguments", [{}, {"file_path": "a.txt", "file_url": "https://example.com/a"}]
)
def test_upload_needs_exactly_one_source(client: AppClient, arguments: dict[str, str]) -> None:
    """Both or neither of file_path and file_url are refused."""
    with pytest.raises(InvalidRequestError, match="exactly one"):
        client.upload_file("c1", **arguments)


def test_upload_of_a_missing_file_is_refused(client: AppClient, tmp_path: Path) -> None:
    """A path that is not a readable file is refused before sending."""
    with pytest.raises(InvalidRequestError, match="not a readable file"):
        client.upload_file("c1", file_path=tmp_path / "missing.txt")


def test_upload_without_file_id_raises(client: AppClient, mock: responses.RequestsMock) -> None:
    """An upload answer without id raises ResponseDecodeError."""
    mock.post(UPLOAD, json={"request_id": "r"})
    with pytest.raises(ResponseDecodeError, match="'id'"):
        client.upload_file("c1", file_url="https://example.com/a")


def test_feedback_returns_the_request_id(client: AppClient, mock: responses.RequestsMock) -> None:
    """The feedback call posts the rating and returns the server's request id."""
    mock.post(FEEDBACK, json={"request_id": "fb-1"})
    result = client.feedback(conversation_id="c1", message_id="m1", type="upvote")
    assert result == "fb-1"
    assert _sent(mock) == {
        "app_id": "app-1",
        "conversation_id": "c1",
        "message_id": "m1",
        "type": "upvote",
    }


def test_feedback_falls_back_to_the_header_request_id(
    client: AppClient, mock: responses.RequestsMock
) -> None:
    """Without request_id in the body, the response header's id is returned."""
    mock.post(FEEDBACK, json={}, headers={"X-Appbuilder-Request-Id": "hdr-1"})
    assert client.feedback(conversation_id="c1", message_id="m1", type="cancel") == "hdr-1"


def test_non_200_success_is_an_error(client: AppClient, mock: responses.RequestsMock) -> None:
    """HTTP 201 is not success in this protocol."""
    mock.post(CONV, json={"conversation_id": "c1"}, status=201)
    with pytest.raises(APIStatusError, match="201") as caught:
        client.create_conversation()
    assert caught.value.status_code == 201


def test_redirects_are_not_followed(client: AppClient, mock: responses.RequestsMock) -> None:
    """A redirect is reported, not followed (requests would turn the POST into a GET)."""
    mock.post(CONV, status=302, headers={"Location": "http://127.0.0.1:1/elsewhere"})
    with pytest.raises(APIStatusError) as caught:
        client.create_conversation()
    assert caught.value.status_code == 302
    assert len(mock.calls) == 1


# --- lifecycle, repr, logging -------------------------------------------------------------


class _RecordingSession(requests.Session):
    closed = 0

    def close(self) -> None:
        self.closed += 1
        super().close()


def test_close_closes_an_own_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client closes the session it created."""
    monkeypatch.setattr(requests, "Session", _RecordingSession)
    client = AppClient("app", token="t")
    client.close()
    session = client._transport._session
    assert isinstance(session, _RecordingSession)
    assert session.closed == 1


def test_close_leaves_a_given_session_open() -> None:
    """A session passed by the caller stays theirs to close."""
    session = _RecordingSession()
    with AppClient("app", token="t", session=session):
        pass
    assert session.closed == 0


def test_given_session_is_used(mock: responses.RequestsMock) -> None:
    """Requests go through the caller's session (its headers included)."""
    session = requests.Session()
    session.headers["X-Extra"] = "1"
    mock.post(CONV, json={"conversation_id": "c1"})
    AppClient("app", token="t", base_url=BASE, session=session).create_conversation()
    assert mock.calls[0].request.headers["X-Extra"] == "1"


def test_repr_shows_app_and_url_only() -> None:
    """The repr names the app and base URL and never the token."""
    client = AppClient("app", token=TOKEN, base_url=BASE)
    assert repr(client) == f"AppClient(app_id='app', base_url='{BASE}')"


def test_requests_are_logged_at_debug(
    client: AppClient, mock: responses.RequestsMock, caplog: pytest.LogCaptureFixture
) -> None:
    """Each attempt is logged with its path and status, under 0.1's logger name."""
    mock.post(CONV, json={"conversation_id": "c1"})
    with caplog.at_level(logging.DEBUG, logger="appclient"):
        client.create_conversation()
    messages = [record.getMessage() for record in caplog.records]
    assert any("POST /v2/app/conversation request_id=" in m for m in messages)
    assert any("-> HTTP 200" in m for m in messages)
    assert {record.name for record in caplog.records} == {"appclient._http_transport"}


def test_package_logger_has_a_null_handler() -> None:
    """The appclient logger has a NullHandler, so libraries users see no warnings."""
    handlers = logging.getLogger("appclient").handlers
    assert any(isinstance(handler, logging.NullHandler) for handler in handlers)


def test_the_app_id_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """AppClient() with no app id reads $APPBUILDER_APP_ID, as it reads the token."""
    monkeypatch.setenv("APPBUILDER_APP_ID", "app-from-env")
    assert AppClient(token="t").app_id == "app-from-env"


def test_no_app_id_anywhere_is_a_clear_error() -> None:
    """Without an app id or $APPBUILDER_APP_ID, the error names both."""
    with pytest.raises(InvalidRequestError, match=r"pass app_id=\.\.\. or set \$APPBUILDER_APP_ID"):
        AppClient(token="t")


def test_run_with_a_misspelt_tool_choice_sends_nothing() -> None:
    """run(tool_choice="name") checks the name against the run's tools before sending."""

    def get_weather(city: str) -> str:
        """Get the weather.

        Args:
            city: The city.
        """
        return city

    client = AppClient("app", token="t", base_url="http://127.0.0.1:9", max_retries=0)
    with pytest.raises(InvalidRequestError, match="did you mean 'get_weather'"):
        client.run("c1", "hi", tools=[get_weather], tool_choice="get_wheather")
