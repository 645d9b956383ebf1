"""The synchronous transport: :class:`Transport` sends with ``requests`` (rules in the base)."""

from __future__ import annotations

import contextlib
import http.client
import socket
import time
import uuid
from collections.abc import Iterable, Iterator
from typing import Any, Final

import requests
import urllib3

from .._core._body import BodyReader
from .._core._constants import HTTP_POOL_MAXSIZE, STREAM_CHUNK_BYTES
from .._core._errors import (
    APIStatusError,
    ResponseDecodeError,
    ResponseTooLargeError,
    TransportError,
)
from .._core._http_answers import status_error_for
from ._stream import RunStream
from ._transport_base import (
    ERROR_BODY_LIMIT,
    TransportBase,
    check_deadline,
    deadline_after,
    is_json_answer,
    read_failure,
    time_left,
    transport_failure,
)

#: One logical request, the same on every attempt: path, body (JSON bytes or form fields),
#: files, idempotency key, deadline.
_Request = tuple[str, bytes | dict[str, str] | None, dict[str, Any] | None, str, float | None]


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
    """A requests failure as :class:`TransportError` (or its subclass for the kind)."""
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
    """The :class:`APIStatusError` of an error response (a body past 64 KiB counts as empty)."""
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

    ``response.close()`` alone leaves such a read waiting until the read timeout.
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
    """The body's bytes as sent (still compressed), each as soon as it arrives."""
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
    """The decoded bytes of a ``stream=True`` response as they arrive, within the limits.

    Each read waits at most ``read_timeout``, and never past ``deadline``, so a server that
    drips bytes cannot outlast it.
    """
    url = response.url or ""
    sock = _socket_of(response) if deadline is not None else None
    try:
        reader = BodyReader(
            response.headers.get("Content-Encoding", ""), max_bytes=max_bytes, piece=chunk_size
        )
        for sent in _raw_chunks(response, chunk_size):
            yield from reader.feed(sent)
            check_deadline(deadline, url=url)
            if sock is not None and (left := time_left(deadline)) is not None:
                with contextlib.suppress(OSError):
                    sock.settimeout(min(read_timeout, left))
        if tail := reader.end():
            yield tail
    except _READ_ERRORS as exc:
        timed_out = isinstance(exc, _READ_TIMEOUTS)
        raise read_failure(
            _reason(exc), timed_out=timed_out, read_timeout=read_timeout, deadline=deadline, url=url
        ) from exc


class Transport(TransportBase[RunStream]):
    """Sends :class:`~appclient.AppClient`'s requests with a ``requests.Session``."""

    _session: requests.Session
    _stream_type = RunStream

    def _new_session(self) -> requests.Session:
        # requests keeps 10 connections per host; more threads would discard theirs, warning.
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
        """Send one logical request and read its answer; return the HTTP 200 response."""
        data = json_body if json_body is not None else form
        deadline = deadline_after(self.timeout.total)
        return self._send((path, data, files, str(uuid.uuid4()), deadline), stream=False)

    def send_stream(self, path: str, *, json_body: bytes, conversation_id: str) -> RunStream:
        """Send a streamed run; return its :class:`RunStream` (a JSON answer: one message).

        A stream cut before its final event sends the request again with the same key, and
        skips what the replay repeats (see :class:`RunStream`'s ``reopen``).
        """
        deadline = deadline_after(self.timeout.total)
        request: _Request = (path, json_body, None, str(uuid.uuid4()), deadline)
        current = [self._send(request, stream=True)]
        if is_json_answer(current[0].headers):
            body = self._read(current[0], deadline, self.limits.max_body_bytes)
            return self._run_stream(current[0], conversation_id, body)

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
            current[0] = self._send(request, stream=True)
            return chunks()

        return self._run_stream(
            current[0],
            conversation_id,
            chunks(),
            close=lambda: abort_response(current[0]),
            reopen=reopen,
        )

    def _authorize(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = self._authorization.reveal()
        return request

    def _send(self, request: _Request, *, stream: bool) -> requests.Response:
        """Send one logical request, retrying what is safe; return the HTTP 200 response.

        The first attempt runs outside tenacity (a third of the client's own time per request);
        its failure is the loop's first attempt, so waits, counts and logs stay the loop's.
        """
        try:
            return self._attempt(*request, stream=stream)
        except (TransportError, APIStatusError) as error:
            if not self._first_failure_retryable(error, stream=stream):
                raise
            first_failure: list[BaseException] = [error]

        def attempt(request: _Request) -> requests.Response:
            if first_failure:
                raise first_failure.pop()
            return self._attempt(*request, stream=stream)

        response: requests.Response = self._retrying[stream](attempt, request)
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
            if not response._content_consumed:  # type: ignore[attr-defined]  # (see _read)
                # Read as any body is, inflated within the limit (a redirect's body requests
                # has read itself); a body that cannot be read leaves the status to speak.
                try:
                    response._content = self._read(response, deadline, ERROR_BODY_LIMIT)
                except (TransportError, ResponseDecodeError):
                    response._content = b""
                    response._content_consumed = True  # type: ignore[attr-defined]
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
