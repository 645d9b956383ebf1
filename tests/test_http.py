"""The requests-facing helpers: secrets, the Authorization value, error mapping, chunk reading."""

from __future__ import annotations

import gzip
import io
import pickle
from typing import Any

import pytest
import requests
import urllib3
from requests.structures import CaseInsensitiveDict

from appclient import (
    APIStatusError,
    AuthenticationError,
    InvalidRequestError,
    RateLimitError,
    TransportError,
)
from appclient._clients._http_transport import iter_body_chunks, status_error, transport_error
from appclient._clients._transport_base import USER_AGENT, authorization_value
from appclient._core._errors import Secret
from appclient._version import __version__
from appclient.errors import ConnectError, ConnectTimeoutError, RequestTimeoutError, ServerError

TIMEOUT = (2.0, 30.0)


def _response(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> Any:
    response = requests.Response()
    response.status_code = status
    response._content = body
    response._content_consumed = True  # as requests leaves a response whose body was read
    response.headers = CaseInsensitiveDict(headers or {})
    response.reason = "Reason"
    return response


def test_user_agent_names_the_package_version() -> None:
    """The User-Agent is appclient/<version>."""
    assert f"appclient/{__version__}" == USER_AGENT


def test_secret_hides_its_value() -> None:
    """Repr and str of a Secret never show the value; reveal() does."""
    secret = Secret("tok-123")
    assert "tok-123" not in repr(secret)
    assert "tok-123" not in str(secret)
    assert secret.reveal() == "tok-123"


def test_secret_has_no_instance_dict() -> None:
    """A Secret has no __dict__ for a vars() dump to show."""
    with pytest.raises(TypeError):
        vars(Secret("tok"))


def test_secret_refuses_to_be_pickled() -> None:
    """Pickling a Secret raises instead of writing the value in clear text."""
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(Secret("tok-123"), protocol=pickle.HIGHEST_PROTOCOL)


def test_authorization_adds_bearer() -> None:
    """A plain token is sent as 'Bearer <token>'."""
    assert authorization_value("bce-v3/ALTAK-x/y") == "Bearer bce-v3/ALTAK-x/y"


def test_authorization_keeps_an_existing_bearer() -> None:
    """A token already starting with Bearer is sent as is."""
    assert authorization_value("Bearer already-prefixed") == "Bearer already-prefixed"


@pytest.mark.parametrize("token", [12345, b"bytes-token"])
def test_authorization_names_a_token_of_the_wrong_type(token: object) -> None:
    """A token that is not a string is refused by its type, not called empty."""
    with pytest.raises(InvalidRequestError, match="token must be a string, got"):
        authorization_value(token)  # type: ignore[arg-type]


@pytest.mark.parametrize("token", ["", "   ", "tok\nevil: header", "tok\x00", "тoken"])
def test_authorization_refuses_unusable_tokens(token: str) -> None:
    """Empty tokens and tokens with control or non-ASCII characters are refused, unshown."""
    with pytest.raises(InvalidRequestError) as caught:
        authorization_value(token)
    if token.strip():
        assert token not in str(caught.value)


def test_connect_timeout_maps_to_request_timeout() -> None:
    """A connect timeout becomes RequestTimeoutError naming the connect limit."""
    error = transport_error(requests.ConnectTimeout("x"), url="http://h/v2", timeout=TIMEOUT)
    assert isinstance(error, RequestTimeoutError)
    assert "2 s (connect timeout)" in str(error)


def test_connect_timeout_is_also_a_connect_error() -> None:
    """A connect timeout is a ConnectTimeoutError: a timeout and a connection that never was."""
    error = transport_error(requests.ConnectTimeout("x"), url="http://h/v2", timeout=TIMEOUT)
    assert isinstance(error, ConnectTimeoutError)
    assert isinstance(error, ConnectError)


def test_read_timeout_maps_to_request_timeout() -> None:
    """A read timeout becomes RequestTimeoutError naming the read limit."""
    error = transport_error(requests.ReadTimeout("x"), url="http://h/v2", timeout=TIMEOUT)
    assert isinstance(error, RequestTimeoutError)
    assert "30 s (read timeout)" in str(error)
    assert (error.method, error.url) == ("POST", "http://h/v2")


def test_read_timeout_inside_the_body_maps_to_request_timeout() -> None:
    """A body that stalls (requests wraps that timeout in ConnectionError) is a read timeout."""
    stalled = urllib3.exceptions.ReadTimeoutError(None, "/v2", "Read timed out.")  # type: ignore[arg-type]
    error = transport_error(requests.ConnectionError(stalled), url="http://h/v2", timeout=TIMEOUT)
    assert isinstance(error, RequestTimeoutError)
    assert "30 s (read timeout)" in str(error)


def test_connection_error_maps_to_connect_error_with_the_cause() -> None:
    """A refused connection becomes ConnectError with urllib3's reason, minus the object repr."""
    reason = urllib3.exceptions.NewConnectionError(
        object(), "Failed to establish a new connection: [Errno 111] Connection refused"
    )
    wrapped = urllib3.exceptions.MaxRetryError(None, "/v2", reason)  # type: ignore[arg-type]
    error = transport_error(requests.ConnectionError(wrapped), url="http://h/v2", timeout=TIMEOUT)
    assert isinstance(error, ConnectError)
    assert "connection failed: Failed to establish a new connection: [Errno 111]" in str(error)
    assert "object at" not in str(error)


def test_refused_connection_says_to_check_the_server_and_gateway() -> None:
    """A refused connection asks whether the server runs and names the gateway setting."""
    reason = urllib3.exceptions.NewConnectionError(
        object(), "Failed to establish a new connection: [Errno 111] Connection refused"
    )
    wrapped = urllib3.exceptions.MaxRetryError(None, "/v2", reason)  # type: ignore[arg-type]
    error = transport_error(requests.ConnectionError(wrapped), url="http://h/v2", timeout=TIMEOUT)
    assert "is the server running" in str(error)
    assert "base_url=" in str(error)
    assert "$GATEWAY_URL_V2" in str(error)


def test_tls_failure_suggests_plain_http_instead_of_asking_if_the_server_runs() -> None:
    """A TLS handshake failure (an http server behind https://) names the scheme to check."""
    error = transport_error(
        requests.exceptions.SSLError("[SSL: WRONG_VERSION_NUMBER] wrong version number"),
        url="https://127.0.0.1:8765/v2",
        timeout=TIMEOUT,
    )
    assert isinstance(error, ConnectError)
    assert "http://" in str(error)
    assert "is the server running" not in str(error)


def test_other_request_failures_map_to_transport_error() -> None:
    """Other requests failures become the TransportError base class."""
    error = transport_error(
        requests.exceptions.ChunkedEncodingError("broken"), url="u", timeout=TIMEOUT
    )
    assert type(error) is TransportError


def test_transport_error_scrubs_secrets() -> None:
    """A secret inside a requests message is replaced."""
    error = transport_error(
        requests.ConnectionError("bad header Bearer tok-9"),
        url="u",
        timeout=TIMEOUT,
        secrets=["tok-9"],
    )
    assert "tok-9" not in str(error)


@pytest.mark.parametrize(
    ("status", "cls"), [(401, AuthenticationError), (429, RateLimitError), (503, ServerError)]
)
def test_status_error_class_and_fields(status: int, cls: type[APIStatusError]) -> None:
    """The error has the status's class and the body's code, message and request id."""
    body = b'{"request_id": "r1", "code": "Code", "message": "text"}'
    error = status_error(_response(status, body))
    assert type(error) is cls
    assert (error.status_code, error.code, error.message, error.request_id) == (
        status,
        "Code",
        "text",
        "r1",
    )
    assert error.body == {"request_id": "r1", "code": "Code", "message": "text"}


def test_status_error_falls_back_to_header_request_id_and_reason() -> None:
    """Without a JSON body the request id comes from the header and the code from the reason."""
    error = status_error(_response(502, b"bad gateway", {"X-Appbuilder-Request-Id": "h1"}))
    assert (error.request_id, error.code, error.message) == ("h1", "Reason", "bad gateway")


def test_status_error_reads_retry_after_seconds() -> None:
    """Retry-After seconds are kept on the error."""
    error = status_error(_response(429, b"{}", {"Retry-After": "7"}))
    assert error.retry_after == 7.0


def test_status_error_reads_retry_after_date_against_the_server_date() -> None:
    """An HTTP-date Retry-After is measured from the response's own Date header."""
    headers = {
        "Date": "Fri, 02 Jan 2026 03:04:05 GMT",
        "Retry-After": "Fri, 02 Jan 2026 03:04:35 GMT",
    }
    assert status_error(_response(503, b"{}", headers)).retry_after == 30.0


def test_status_error_scrubs_an_echoed_token() -> None:
    """A server echoing the token in its error body does not leak it into the exception."""
    body = b'{"code": "AuthFailed", "message": "token Bearer tok-7 is wrong"}'
    error = status_error(_response(401, body), secrets=["tok-7", "Bearer tok-7"])
    assert "tok-7" not in str(error)
    assert "tok-7" not in repr(error.body)
    assert "tok-7" not in error.message


@pytest.mark.parametrize("escaped", [b"bce-v3\\/ALTAK-k1\\/s2", b"bce-v3\\u002fALTAK-k1\\u002fs2"])
def test_status_error_scrubs_a_token_echoed_with_json_escapes(escaped: bytes) -> None:
    """A token echoed with JSON escapes (a slash written as an escape) is scrubbed as well."""
    body = b'{"code": "AuthFailed", "message": "token ' + escaped + b' is wrong", "x": ["'
    body += escaped + b'"]}'
    error = status_error(_response(401, body), secrets=["bce-v3/ALTAK-k1/s2"])
    assert "ALTAK-k1" not in str(error)
    assert "ALTAK-k1" not in repr(error.body)
    assert "ALTAK-k1" not in error.message


class _Raw:
    """A stand-in for urllib3's response with read1 (urllib3 2 style)."""

    def __init__(self, parts: list[bytes | BaseException]) -> None:
        self.parts = parts

    def read1(self, amount: int, decode_content: bool | None = None) -> bytes:
        part = self.parts.pop(0) if self.parts else b""
        if isinstance(part, BaseException):
            raise part
        return part


def _streamed(raw: Any) -> Any:
    response = _response(200)
    response.raw = raw
    response.url = "http://h/v2/app/conversation/runs"
    return response


def test_iter_body_chunks_yields_what_read1_returns() -> None:
    """With read1 available, chunks are passed on as they arrive."""
    chunks = iter_body_chunks(_streamed(_Raw([b"a", b"bc"])), chunk_size=8, read_timeout=1)
    assert list(chunks) == [b"a", b"bc"]


class _CompressedRaw:
    """urllib3 2's response as requests leaves it: raw bytes unless decoding is asked for."""

    decode_content = False  # requests builds its raw responses with decode_content=False

    def __init__(self, plain: bytes) -> None:
        self.plain = plain
        self.sent = False

    def read1(self, amount: int, decode_content: bool | None = None) -> bytes:
        if self.sent:
            return b""
        self.sent = True
        decode = self.decode_content if decode_content is None else decode_content
        return self.plain if decode else gzip.compress(self.plain)


def test_iter_body_chunks_decodes_a_compressed_stream_with_read1() -> None:
    """A gzip-encoded event stream (Content-Encoding) is yielded decoded on urllib3 2."""
    response = _streamed(_CompressedRaw(b"data: x\n\n"))
    response.headers["Content-Encoding"] = "gzip"
    chunks = iter_body_chunks(response, chunk_size=8, read_timeout=1)
    assert b"".join(chunks) == b"data: x\n\n"


def test_iter_body_chunks_uses_http_client_read1_on_old_urllib3() -> None:
    """Without urllib3's read1, the underlying file's read1 is used (no 16 KiB buffering)."""
    raw = urllib3.HTTPResponse(body=io.BytesIO(b"data: x\n\n"), preload_content=False)
    assert b"".join(iter_body_chunks(_streamed(raw), chunk_size=4, read_timeout=1)) == (
        b"data: x\n\n"
    )


def test_iter_body_chunks_maps_a_timeout() -> None:
    """A read timeout while streaming becomes RequestTimeoutError."""
    chunks = iter_body_chunks(_streamed(_Raw([b"a", TimeoutError()])), chunk_size=8, read_timeout=3)
    assert next(chunks) == b"a"
    with pytest.raises(RequestTimeoutError, match="no data for 3 s"):
        next(chunks)


def test_iter_body_chunks_maps_a_broken_connection() -> None:
    """A reset connection while streaming becomes TransportError."""
    chunks = iter_body_chunks(
        _streamed(_Raw([ConnectionResetError("reset by peer")])), chunk_size=8, read_timeout=3
    )
    with pytest.raises(TransportError, match="connection broke"):
        next(chunks)
