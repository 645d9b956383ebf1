"""The requests-facing helpers under :class:`~appclient.AppClient`.

Everything here touches ``requests`` objects but holds no client state: the token wrapper
that keeps secrets out of reprs, the ``Authorization`` value, the mapping of requests
failures and HTTP error responses to the exception tree, and the chunk reader for streams.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import time
from collections.abc import Iterable, Iterator
from typing import Any, Final

import requests
import requests.auth
import urllib3

from .._core._body import BodyReader
from .._core._constants import ENV_BASE_URL
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
from .._version import __version__

__all__ = [
    "ERROR_BODY_LIMIT",
    "USER_AGENT",
    "BearerAuth",
    "abort_response",
    "authorization_value",
    "check_deadline",
    "deadline_after",
    "iter_body_chunks",
    "now",
    "read_body",
    "status_error",
    "time_left",
    "transport_error",
    "transport_failure",
]

USER_AGENT: Final = f"appclient/{__version__}"
#: An error response's body is read up to this many bytes: enough for any error message.
ERROR_BODY_LIMIT: Final = 64 * 1024


class BearerAuth(requests.auth.AuthBase):
    """requests' auth hook that sets ``Authorization`` from a :class:`Secret`.

    Given as ``auth=`` it also keeps requests from looking the host up in ``~/.netrc``, whose
    password would otherwise replace the token (and be sent to the gateway).
    """

    def __init__(self, value: Secret) -> None:
        self._value = value

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = self._value.reveal()
        return request

    def __repr__(self) -> str:
        return "BearerAuth('***')"


def authorization_value(token: str) -> str:
    """Return the ``Authorization`` header value for a token.

    A token that already starts with ``Bearer`` is sent as is (docs/protocol.md section 1).

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


def _reason(error: BaseException) -> str:
    # requests nests urllib3's MaxRetryError(reason=NewConnectionError(...)); show the cause.
    reason: object = error.args[0] if error.args else error
    reason = getattr(reason, "reason", reason)
    text = str(reason) or type(reason).__name__
    return text.rsplit(">: ", 1)[-1]  # drop "<HTTPConnection object at 0x...>: "


def transport_failure(
    kind: str,
    *,
    reason: str,
    method: str,
    url: str,
    timeout: tuple[float, float],
    secrets: Iterable[str] = (),
) -> TransportError:
    """The error of a failed exchange, by its kind, in the words of both transports.

    Args:
        kind: ``"connect_timeout"`` (a :class:`ConnectTimeoutError`, both a connect error
            and a timeout), ``"read_timeout"``, ``"tls"``, ``"connect"`` or anything else.
        reason: What the HTTP library said.
        method: The request's method.
        url: The request's URL.
        timeout: The ``(connect, read)`` waits that applied.
        secrets: Values to scrub from the text.

    Returns:
        The error to raise.
    """
    where = f"{method} {url}"
    cls: type[TransportError] = ConnectError
    if kind == "connect_timeout":
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
    return cls(redact(text, secrets), method=method, url=url)


def transport_error(
    error: requests.RequestException,
    *,
    method: str,
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
    return transport_failure(
        kind, reason=_reason(error), method=method, url=url, timeout=timeout, secrets=secrets
    )


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


_READ_ERRORS: Final = (
    requests.RequestException,
    urllib3.exceptions.HTTPError,
    http.client.HTTPException,
    OSError,
)
_READ_TIMEOUTS: Final = (
    TimeoutError,
    urllib3.exceptions.ReadTimeoutError,
    requests.Timeout,
)


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
        return


def iter_body_chunks(
    response: requests.Response,
    *,
    chunk_size: int,
    read_timeout: float,
    deadline: float | None = None,
    max_bytes: int | None = None,
) -> Iterator[bytes]:
    """Yield a body's bytes as they arrive, within a deadline and a size limit.

    Args:
        response: A response sent with ``stream=True``.
        chunk_size: Bytes asked of the socket per read.
        read_timeout: The longest wait for one read.
        deadline: A :func:`time.monotonic` instant the whole body must have arrived by; each
            read waits at most until then, so a server that drips bytes cannot outlast it.
        max_bytes: The most bytes the body may hold, decompressed and as sent.

    Raises:
        RequestTimeoutError: No byte arrived within ``read_timeout`` seconds, or the deadline
            passed.
        ResponseTooLargeError: The body is over ``max_bytes``.
        TransportError: The connection broke while reading.
    """
    url = response.url or ""
    method = (response.request.method if response.request is not None else None) or "POST"
    sock = _socket_of(response) if deadline is not None else None
    encoding = response.headers.get("Content-Encoding", "")
    try:
        reader = BodyReader(encoding, max_bytes=max_bytes, piece=chunk_size)
        for sent in _raw_chunks(response, chunk_size):
            yield from reader.feed(sent)
            if deadline is not None:
                left = deadline - now()
                if left <= 0:
                    raise _past_deadline(method, url)
                if sock is not None:
                    with contextlib.suppress(OSError):
                        sock.settimeout(min(read_timeout, left))
        if tail := reader.end():
            yield tail
    except _READ_TIMEOUTS as exc:
        if deadline is not None and now() >= deadline:
            raise _past_deadline(method, url) from exc
        raise RequestTimeoutError(
            f"no data for {read_timeout:g} s while reading the answer (read timeout)",
            method=method,
            url=url,
        ) from exc
    except _READ_ERRORS as exc:
        raise TransportError(
            f"the connection broke while reading the answer: {_reason(exc)}",
            method=method,
            url=url,
        ) from exc


def read_body(
    response: requests.Response,
    *,
    read_timeout: float,
    deadline: float | None,
    max_bytes: int,
) -> bytes:
    """Read a whole (non-stream) body within a deadline and a size limit; release the response.

    The connection goes back to the pool when the body was read to its end, and is closed
    when it was not (a body cut short cannot be followed by another response).

    Raises:
        RequestTimeoutError: The body stalled, or the deadline passed.
        ResponseTooLargeError: The body is over ``max_bytes``.
        TransportError: The connection broke while reading.
    """
    try:
        body = b"".join(
            iter_body_chunks(
                response,
                chunk_size=64 * 1024,
                read_timeout=read_timeout,
                deadline=deadline,
                max_bytes=max_bytes,
            )
        )
        # Read to its end: requests' close() then hands the connection back to the pool
        # instead of closing it, so the next request reuses it (keep-alive); unmarked, every
        # request paid for a new TCP connection. http.client's own response must be closed
        # too (read1 leaves it open at the end of a Content-Length body): the connection
        # takes no next request while it is open, and would fail it with ResponseNotReady.
        finished = getattr(response.raw, "_fp", None)
        if finished is not None:
            finished.close()
        response._content_consumed = True  # type: ignore[attr-defined]  # requests keeps no stub of it
        return body
    finally:
        response.close()


def _past_deadline(method: str, url: str) -> DeadlineExceededError:
    return DeadlineExceededError(
        f"{method} {url}: the answer did not arrive in full within the total timeout "
        "(Timeout.total)",
        method=method,
        url=url,
    )


def now() -> float:
    """The monotonic clock deadlines are measured on (a seam for tests)."""
    return time.monotonic()


def deadline_after(seconds: float | None) -> float | None:
    """The :func:`now` instant ``seconds`` from now, or ``None`` for no deadline."""
    return None if seconds is None else now() + seconds


def time_left(deadline: float | None) -> float | None:
    """Seconds until ``deadline`` (at least 1 ms, so a wait is never zero), or None."""
    return None if deadline is None else max(deadline - now(), 0.001)


def check_deadline(deadline: float | None, *, method: str, url: str) -> None:
    """Raise :class:`DeadlineExceededError` when ``deadline`` has passed."""
    if deadline is not None and now() >= deadline:
        raise _past_deadline(method, url)
