"""What both senders share (:class:`TransportBase`), and :class:`Transport`, over ``requests``.

Every request of a client goes through its transport's ``send``, which sets the headers,
applies the timeouts, retries what is safe to retry, and turns HTTP failures into the
exception tree:

- ``Authorization: Bearer <token>`` (a token already starting with ``Bearer`` is sent as is);
- ``User-Agent: appclient/<version>``;
- ``Idempotency-Key``: one uuid per logical request (one client method call), identical on
  every retry, so a server can answer a repeated attempt with its first answer;
- ``X-Appbuilder-Request-Id``: a fresh uuid per *attempt*, so server logs can tell the
  attempts of one logical request apart.

Retries cover a request up to its response headers; a streamed run cut after that is sent
again by the stream itself, with the same key.
"""

from __future__ import annotations

import contextlib
import http.client
import logging
import os
import re
import socket
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final
from urllib.parse import urlsplit

import requests
import tenacity
import urllib3

from .._core._body import BodyReader
from .._core._constants import (
    DEFAULT_BASE_URL,
    ENV_BASE_URL,
    HEADER_IDEMPOTENCY_KEY,
    HEADER_REQUEST_ID,
    HTTP_POOL_MAXSIZE,
    STREAM_CHUNK_BYTES,
)
from .._core._errors import (
    APIStatusError,
    ConnectError,
    ConnectTimeoutError,
    DeadlineExceededError,
    InvalidRequestError,
    RequestTimeoutError,
    ResponseTooLargeError,
    Secret,
    TransportError,
    redact,
)
from .._core._http_answers import status_error_for
from .._core._limits import Limits, Timeout
from .._core._retry import RetryPolicy
from .._tools._tracing import note
from .._version import __version__
from ._stream import RunStream, StreamState

# Both transports log here, under the name 0.1 used (a logging config naming it keeps working).
_logger = logging.getLogger("appclient._http_transport")

USER_AGENT: Final = f"appclient/{__version__}"
#: An error response's body is read up to this many bytes: enough for any error message.
ERROR_BODY_LIMIT: Final = 64 * 1024
#: A scheme followed by ":/" without the second slash (or a host with an empty port).
_SCHEME_TYPO: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:/")


def parse_base_url(base_url: str | None) -> str:
    """Return the base URL without trailing slash; ``$GATEWAY_URL_V2`` or the hosted default.

    A host without a scheme (``qianfan.baidubce.com``) means HTTPS, as in the official SDKs,
    so a ``$GATEWAY_URL_V2`` written for them works unchanged.

    Raises:
        InvalidRequestError: Not an http(s) URL with a host and a valid port, or it carries
            credentials.
    """
    name, value = "base_url", base_url
    if value is None:
        name, value = f"${ENV_BASE_URL}", os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL
    if not isinstance(value, str):
        raise InvalidRequestError(f"{name} must be a string, got {type(value).__name__}")
    value = value.strip()
    if value and "://" not in value:
        if _SCHEME_TYPO.match(value):  # "http:/host" would become host "http", no port
            raise InvalidRequestError(
                f"{name} {value!r} is malformed: write the scheme as 'http://' or 'https://'"
            )
        value = f"https://{value}"
    try:  # what requests and urllib3 would otherwise fail on at every call, with their errors
        parts = urlsplit(value)
        parts.port  # noqa: B018 - reading it checks the port
        (parts.hostname or "").encode("idna")  # empty or over-long labels
    except ValueError as exc:  # UnicodeError is a ValueError
        raise InvalidRequestError(f"{name} {value!r} is malformed: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidRequestError(f"{name} must be an http(s) URL, got {value!r}")
    if any(character.isspace() for character in parts.netloc):
        raise InvalidRequestError(f"{name} {value!r} is malformed: the host has blanks")
    if parts.username or parts.password:
        raise InvalidRequestError(f"{name} must not carry credentials; pass token= instead")
    return value.rstrip("/")


def authorization_value(token: str) -> str:
    """Return the ``Authorization`` header value for a token (``Bearer`` added when missing).

    Raises:
        InvalidRequestError: The token is empty or holds characters a header cannot carry
            (the message never repeats the token).
    """
    if not isinstance(token, str):
        raise InvalidRequestError(f"the token must be a string, got {type(token).__name__}")
    if not token.strip():
        raise InvalidRequestError("the token is empty; pass token= or set APPBUILDER_TOKEN")
    token = token.strip()
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in token) or not token.isascii():
        raise InvalidRequestError(
            "the token holds line breaks, control or non-ASCII characters; check its value"
        )
    return token if token.startswith("Bearer") else f"Bearer {token}"


def is_json_answer(headers: Any) -> bool:
    """Whether a stream request was answered with JSON (one message) instead of events."""
    content_type = headers.get("Content-Type", "")
    return "json" in content_type and "event-stream" not in content_type


# --- deadlines and failures, in the words of both transports ---------------------------------


def now() -> float:
    """The monotonic clock deadlines are measured on (a seam for tests)."""
    return time.monotonic()


def deadline_after(seconds: float | None) -> float | None:
    """The :func:`now` instant ``seconds`` from now, or ``None`` for no deadline."""
    return None if seconds is None else now() + seconds


def time_left(deadline: float | None) -> float | None:
    """Seconds until ``deadline`` (at least 1 ms, so a wait is never zero), or None."""
    return None if deadline is None else max(deadline - now(), 0.001)


def check_deadline(deadline: float | None, *, url: str) -> None:
    """Raise :class:`DeadlineExceededError` when ``deadline`` has passed."""
    if deadline is not None and now() >= deadline:
        raise _past_deadline(url)


def _past_deadline(url: str) -> DeadlineExceededError:
    return DeadlineExceededError(
        f"POST {url}: the answer did not arrive in full within the total timeout (Timeout.total)",
        method="POST",
        url=url,
    )


def transport_failure(
    kind: str, *, reason: str, url: str, timeout: tuple[float, float], secrets: Iterable[str]
) -> TransportError:
    """The error of a failed exchange, by kind, with the ``(connect, read)`` waits that applied.

    ``kind`` is ``"connect_timeout"``, ``"read_timeout"``, ``"tls"``, ``"connect"`` or
    anything else (the base :class:`TransportError`).
    """
    where = f"POST {url}"
    cls: type[TransportError] = ConnectError
    if kind == "connect_timeout":  # a ConnectTimeoutError is both a connect error and a timeout
        text = f"{where}: no connection within {timeout[0]:g} s (connect timeout)"
        cls = ConnectTimeoutError
    elif kind == "read_timeout":
        text = f"{where}: no answer within {timeout[1]:g} s (read timeout)"
        cls = RequestTimeoutError
    elif kind == "tls":
        text = (
            f"{where}: TLS failed: {reason}; if the server speaks plain HTTP, write "
            f"http:// in base_url=... or ${ENV_BASE_URL} (a gateway without a scheme means "
            "https://)"
        )
    elif kind == "connect":
        text = (
            f"{where}: connection failed: {reason}; is the server running? "
            f"(check base_url=... or ${ENV_BASE_URL})"
        )
    else:
        text = f"{where}: the HTTP exchange failed: {reason}"
        cls = TransportError
    return cls(redact(text, secrets), method="POST", url=url)


def read_failure(
    reason: str, *, timed_out: bool, read_timeout: float, deadline: float | None, url: str
) -> TransportError:
    """The error of a body that stalled (``timed_out``) or broke while it was read."""
    if not timed_out:
        message = f"the connection broke while reading the answer: {reason}"
        return TransportError(message, method="POST", url=url)
    if deadline is not None and now() >= deadline:
        return _past_deadline(url)
    message = f"no data for {read_timeout:g} s while reading the answer (read timeout)"
    return RequestTimeoutError(message, method="POST", url=url)


# --- what both transports share --------------------------------------------------------------


class TransportBase:
    """What both transports share: the token, the base URL, the limits and the retry loop.

    Args:
        token: The secret key (kept in a :class:`~appclient._core._errors.Secret`).
        base_url: A checked base URL (see :func:`parse_base_url`).
        timeout: How long a call may take.
        limits: How much an answer may bring.
        max_retries: Retries after the first attempt.
        session: The HTTP library's session, or ``None`` for the transport's own.
        sleep: Called with each retry wait (awaited by the asyncio transport).

    Raises:
        InvalidRequestError: ``max_retries`` is not an int of 0 or more.
    """

    #: Whether the retry loop awaits (tenacity's ``AsyncRetrying``).
    _asynchronous = False
    #: The streamed runs this transport returns.
    _stream_type: type[StreamState] = RunStream

    def __init__(
        self,
        *,
        token: str,
        base_url: str,
        timeout: Timeout,
        limits: Limits,
        max_retries: int,
        session: Any,
        sleep: Callable[[float], Any],
    ) -> None:
        self._authorization = Secret(authorization_value(token))
        # The key itself, also when given as "Bearer <key>": a server may echo it bare.
        self._token = Secret(token.strip().removeprefix("Bearer").strip())
        self.base_url = base_url
        self.timeout = timeout
        self.limits = limits
        try:  # the policy owns the rule; the caller gets the error of a bad argument
            self.retry_policy = RetryPolicy(max_retries=max_retries)
        except (TypeError, ValueError):
            raise InvalidRequestError(
                f"max_retries must be an int >= 0, got {max_retries!r}"
            ) from None
        self._retrying: Any = self.retry_policy.retrying(
            sleep=sleep, before_sleep=self._log_retry, asynchronous=self._asynchronous
        )
        self._session = session if session is not None else self._new_session()
        self._owns_session = session is None

    def _new_session(self) -> Any:  # the session of a transport given none
        raise NotImplementedError

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}(base_url={self.base_url!r}, max_retries={self.retry_policy.max_retries})"

    def secrets(self) -> tuple[str, ...]:
        """The values to scrub from any text that leaves the client."""
        return (self._token.reveal(), self._authorization.reveal())

    def _headers(self, path: str, idempotency_key: str, *, json: bool, stream: bool) -> Any:
        """The headers of one attempt (a fresh request id each), logged at DEBUG."""
        request_id = str(uuid.uuid4())
        headers = {
            "User-Agent": USER_AGENT,
            # The codings the client inflates itself, within its limits (see BodyReader).
            "Accept-Encoding": "gzip, deflate",
            HEADER_REQUEST_ID: request_id,
            HEADER_IDEMPOTENCY_KEY: idempotency_key,
        }
        if json:
            headers["Content-Type"] = "application/json"
        _logger.debug(
            "POST %s request_id=%s idempotency_key=%s stream=%s",
            path,
            request_id,
            idempotency_key,
            stream,
        )
        return headers

    def _log_retry(self, state: tenacity.RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        _logger.info(
            "retrying POST %s in %.2f s (attempt %d of %d failed: %s)",
            state.args[0] if state.args else "?",
            wait,
            state.attempt_number,
            self.retry_policy.max_retries + 1,
            error,
        )
        note(retries=state.attempt_number)  # on the run's span, when tracing

    @staticmethod
    def _log_answer(path: str, status: int, started: float) -> None:
        elapsed = (time.perf_counter() - started) * 1000
        _logger.debug("POST %s -> HTTP %d in %.1f ms", path, status, elapsed)

    def _first_failure_retryable(self, error: BaseException, *, stream: bool) -> bool:
        policy = self.retry_policy
        return bool(policy.max_retries) and policy.is_retryable(error, stream=stream)

    def _run_stream(self, response: Any, conversation_id: str, chunks: Any, **reading: Any) -> Any:
        """The streamed run of ``response`` over ``chunks`` (``close``, ``reopen`` given).

        ``chunks`` as bytes: a JSON answer to the stream request, a stream of one message.
        """
        ids = {
            "conversation_id": conversation_id,
            "request_id": response.headers.get(HEADER_REQUEST_ID, ""),
            "secrets": self.secrets(),
        }
        if isinstance(chunks, bytes):
            return self._stream_type.from_body(chunks, **ids)
        return self._stream_type(
            chunks, limits=self.limits, max_reopens=self.retry_policy.max_retries, **ids, **reading
        )


# --- requests --------------------------------------------------------------------------------


def _reason(error: BaseException) -> str:
    # requests nests urllib3's MaxRetryError(reason=NewConnectionError(...)); show the cause.
    reason: object = error.args[0] if error.args else error
    reason = getattr(reason, "reason", reason)
    text = str(reason) or type(reason).__name__
    return text.rsplit(">: ", 1)[-1]  # drop "<HTTPConnection object at 0x...>: "


def transport_error(
    error: requests.RequestException,
    *,
    url: str,
    timeout: tuple[float, float],
    secrets: Iterable[str] = (),
) -> TransportError:
    """Map a requests failure to :class:`ConnectError`, :class:`RequestTimeoutError` or the base.

    A connect timeout becomes :class:`ConnectTimeoutError`, which is both of the first two.
    """
    if isinstance(error, requests.ConnectTimeout):
        kind = "connect_timeout"
    elif isinstance(error, requests.Timeout) or (
        # requests reports a body that stalls as ConnectionError(ReadTimeoutError)
        error.args and isinstance(error.args[0], urllib3.exceptions.ReadTimeoutError)
    ):
        kind = "read_timeout"
    elif isinstance(error, requests.exceptions.SSLError):
        kind = "tls"
    elif isinstance(error, requests.ConnectionError):
        kind = "connect"
    else:
        kind = "other"
    return transport_failure(kind, reason=_reason(error), url=url, timeout=timeout, secrets=secrets)


def status_error(response: requests.Response, *, secrets: Iterable[str] = ()) -> APIStatusError:
    """Build the :class:`APIStatusError` subclass for an HTTP error response.

    The body is read up to 64 KiB (a broken, stalled or larger one counts as empty: the
    status alone still says what happened); :func:`status_error_for` reads the rest.
    """
    try:
        reader = BodyReader("", max_bytes=ERROR_BODY_LIMIT)  # requests has decoded it
        content = b"".join(b"".join(reader.feed(c)) for c in response.iter_content(16 * 1024))
    except (*_READ_ERRORS, ResponseTooLargeError):
        content = b""
    return status_error_for(
        response.status_code,
        reason=response.reason or "",
        headers=response.headers,
        content=content,
        secrets=secrets,
    )


# Every timeout here is also one of the read errors.
_READ_ERRORS: Final = (
    requests.RequestException,
    urllib3.exceptions.HTTPError,
    http.client.HTTPException,
    OSError,
)
_READ_TIMEOUTS: Final = (TimeoutError, urllib3.exceptions.ReadTimeoutError, requests.Timeout)


def abort_response(response: requests.Response) -> None:
    """Close a streamed response, waking a read blocked on its socket in another thread.

    ``response.close()`` alone leaves such a read waiting until the read timeout; shutting the
    socket down first ends it at once. The connection is not reusable either way.
    """
    sock = _socket_of(response)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    response.close()


def _socket_of(response: requests.Response) -> socket.socket | None:
    # The connection holds the socket of a chunked body; for a close-delimited one
    # http.client drops it there, and only the body's reader (fp -> SocketIO) still holds it.
    for path in (("connection", "sock"), ("_fp", "fp", "raw", "_sock")):
        sock: Any = response.raw
        for name in path:
            sock = getattr(sock, name, None)
        if isinstance(sock, socket.socket):
            return sock
    return None


def _raw_chunks(response: requests.Response, chunk_size: int) -> Iterator[bytes]:
    """Yield the body's bytes as sent (still compressed), each as soon as it arrives."""
    raw: Any = response.raw
    if callable(getattr(raw, "read1", None)):
        # urllib3 >= 2: read1 returns as soon as any bytes arrive.
        while chunk := raw.read1(chunk_size, decode_content=False):
            yield chunk
    elif getattr(raw, "chunked", False) and raw.supports_chunked_reads():
        # urllib3 1.26, chunked transfer: one HTTP chunk (one SSE flush) at a time.
        yield from raw.read_chunked(chunk_size, decode_content=False)
    elif callable(getattr(getattr(raw, "_fp", None), "read1", None)):
        # urllib3 1.26, length- or close-delimited: its read(n) blocks until n bytes, which
        # would hold back every message of a slow stream; http.client's read1 does not.
        while chunk := raw._fp.read1(chunk_size):
            yield chunk
    else:  # pragma: no cover - exotic adapters; correct, but may buffer a slow stream
        yield from response.iter_content(chunk_size)


def iter_body_chunks(
    response: requests.Response,
    *,
    chunk_size: int,
    read_timeout: float,
    deadline: float | None = None,
    max_bytes: int | None = None,
) -> Iterator[bytes]:
    """Yield the decoded bytes of a ``stream=True`` response as they arrive.

    Each read waits at most ``read_timeout``, and never past ``deadline`` (a :func:`now`
    instant), so a server that drips bytes cannot outlast it; the body may hold ``max_bytes``
    (decompressed and as sent).

    Raises:
        RequestTimeoutError: No byte within ``read_timeout``, or the deadline passed.
        ResponseTooLargeError: The body is over ``max_bytes``.
        TransportError: The connection broke while reading.
    """
    url = response.url or ""
    sock = _socket_of(response) if deadline is not None else None
    try:
        reader = BodyReader(
            response.headers.get("Content-Encoding", ""), max_bytes=max_bytes, piece=chunk_size
        )
        for sent in _raw_chunks(response, chunk_size):
            yield from reader.feed(sent)
            if deadline is not None:
                left = deadline - now()
                if left <= 0:
                    raise _past_deadline(url)
                if sock is not None:
                    with contextlib.suppress(OSError):
                        sock.settimeout(min(read_timeout, left))
        if tail := reader.end():
            yield tail
    except _READ_ERRORS as exc:
        timed_out = isinstance(exc, _READ_TIMEOUTS)
        raise read_failure(
            _reason(exc), timed_out=timed_out, read_timeout=read_timeout, deadline=deadline, url=url
        ) from exc


class Transport(TransportBase):
    """Sends :class:`~appclient.AppClient`'s requests with a ``requests.Session``.

    Takes the arguments of :class:`TransportBase`; a session it makes keeps up to
    ``HTTP_POOL_MAXSIZE`` connections per host.
    """

    _session: requests.Session

    def _new_session(self) -> requests.Session:
        # requests keeps 10 connections per host; more threads sending at once would each
        # discard theirs with a warning.
        session = requests.Session()
        for prefix in ("http://", "https://"):
            session.mount(prefix, requests.adapters.HTTPAdapter(pool_maxsize=HTTP_POOL_MAXSIZE))
        return session

    def close(self) -> None:
        """Close the session if this transport created it."""
        if self._owns_session:
            self._session.close()

    def send(
        self,
        path: str,
        *,
        json_body: bytes | None = None,
        form: dict[str, str] | None = None,
        files: dict[str, Any] | None = None,
    ) -> requests.Response:
        """Send one logical request and read its answer; return the HTTP 200 response.

        Raises:
            APIStatusError: The server answered an error status (after all retries).
            TransportError: Connection failure or timeout (after all retries).
            ResponseTooLargeError: The body is over ``limits.max_body_bytes``.
        """
        data = json_body if json_body is not None else form
        deadline = deadline_after(self.timeout.total)
        return self._send(path, data, files, str(uuid.uuid4()), deadline, stream=False)

    def send_stream(self, path: str, *, json_body: bytes, conversation_id: str) -> RunStream:
        """Send a streamed run; return its :class:`RunStream` (a JSON answer: one message).

        The stream reads within the same total timeout as the request, and within the
        stream limits. When the connection breaks before the run's final event, the stream
        sends the request again with the same ``Idempotency-Key`` (up to ``max_retries``
        times): a server that keeps answers by key replays the same stream, whose messages
        already read are checked and skipped, so the run is neither lost nor applied twice.

        Raises:
            APIStatusError: The server answered an error status (after all retries).
            TransportError: Connection failure or timeout (after all retries).
        """
        deadline = deadline_after(self.timeout.total)
        request = (path, json_body, None, str(uuid.uuid4()), deadline)
        current = [self._send(*request, stream=True)]
        if is_json_answer(current[0].headers):
            body = self._read(current[0], deadline, self.limits.max_body_bytes)
            one: RunStream = self._run_stream(current[0], conversation_id, body)
            return one

        def chunks() -> Iterator[bytes]:
            return iter_body_chunks(
                current[0],
                chunk_size=STREAM_CHUNK_BYTES,
                read_timeout=self.timeout.read,
                deadline=deadline,
                max_bytes=self.limits.max_stream_bytes,
            )

        def reopen() -> Iterator[bytes]:
            abort_response(current[0])
            current[0] = self._send(*request, stream=True)
            return chunks()

        stream: RunStream = self._run_stream(
            current[0],
            conversation_id,
            chunks(),
            close=lambda: abort_response(current[0]),
            reopen=reopen,
        )
        return stream

    def _authorize(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = self._authorization.reveal()
        return request

    def _send(self, *request: Any, stream: bool) -> requests.Response:
        """Send one logical request, retrying what is safe; return the HTTP 200 response.

        The first attempt runs outside tenacity, so a request that succeeds pays nothing for
        the retry machinery (about a third of the client's own time per request). A
        retryable failure is handed to the tenacity loop as its first attempt, so waits,
        attempt numbers and logging are those of a loop that made every attempt.
        """
        try:
            return self._attempt(*request, stream=stream)
        except (TransportError, APIStatusError) as error:
            if not self._first_failure_retryable(error, stream=stream):
                raise
            first_failure: list[BaseException] = [error]

        def attempt(*request: Any, stream: bool) -> requests.Response:
            if first_failure:
                raise first_failure.pop()
            return self._attempt(*request, stream=stream)

        response: requests.Response = self._retrying(attempt, *request, stream=stream)
        return response

    def _attempt(
        self,
        path: str,
        data: bytes | dict[str, str] | None,
        files: dict[str, Any] | None,
        idempotency_key: str,
        deadline: float | None,
        *,
        stream: bool,
    ) -> requests.Response:
        url = self.base_url + path
        check_deadline(deadline, url=url)
        headers = self._headers(path, idempotency_key, json=isinstance(data, bytes), stream=stream)
        for part in (files or {}).values():  # a retry must send the file from its first byte
            if isinstance(part, tuple) and hasattr(part[1], "seek"):
                part[1].seek(0)
        waits = (self.timeout.connect, self.timeout.read)
        left = time_left(deadline)
        started = time.perf_counter()
        try:
            response = self._session.post(
                url,
                data=data,
                files=files,
                headers=headers,
                # Sets Authorization; an auth= also keeps requests from taking a ~/.netrc
                # password for the host instead (and sending it), and wins over session.auth.
                auth=self._authorize,
                timeout=waits if left is None else (min(waits[0], left), min(waits[1], left)),
                stream=True,  # every body is read here, within the limits and the deadline
                allow_redirects=False,  # requests would turn the POST into a GET
            )
        except requests.RequestException as exc:
            check_deadline(deadline, url=url)
            raise transport_error(exc, url=url, timeout=waits, secrets=self.secrets()) from None
        self._log_answer(path, response.status_code, started)
        if response.status_code != 200:
            try:
                raise status_error(response, secrets=self.secrets())
            finally:
                response.close()
        if not stream:  # read here, in the attempt, so a body that breaks or stalls is retried
            # As requests does for stream=False, so that .content is the body.
            response._content = self._read(response, deadline, self.limits.max_body_bytes)
        return response

    def _read(self, response: requests.Response, deadline: float | None, max_bytes: int) -> bytes:
        """Read a whole body within the deadline and ``max_bytes``; release the response."""
        try:
            body = b"".join(
                iter_body_chunks(
                    response,
                    chunk_size=64 * 1024,
                    read_timeout=self.timeout.read,
                    deadline=deadline,
                    max_bytes=max_bytes,
                )
            )
            # Read to its end: requests' close() then hands the connection back to the pool
            # (a body cut short closes it). http.client's own response must be closed too
            # (read1 leaves it open at the end of a Content-Length body): the connection
            # takes no next request while it is open, and would fail it with ResponseNotReady.
            finished = getattr(response.raw, "_fp", None)
            if finished is not None:
                finished.close()
            response._content_consumed = True  # type: ignore[attr-defined]  # requests keeps no stub of it
            return body
        finally:
            response.close()
