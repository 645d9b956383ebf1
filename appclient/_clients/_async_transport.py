"""The asyncio sender under :class:`~appclient.AsyncAppClient`: aiohttp, with the same rules.

:class:`AsyncTransport` is ``Transport`` for coroutines: the same headers, retries, deadlines,
limits and errors. Bodies go through :class:`~appclient._core._body.BodyReader` (aiohttp's own
decompression would inflate each read whole). Imported only when an ``AsyncAppClient`` is made.
"""

from __future__ import annotations

import asyncio
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import aiohttp
from multidict import CIMultiDictProxy

from .._core._body import BodyReader
from .._core._constants import STREAM_CHUNK_BYTES
from .._core._errors import APIStatusError, ResponseDecodeError, TransportError
from .._core._http_answers import status_error_for
from ._async_stream import AsyncRunStream
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


class Reply(NamedTuple):
    """A whole (non-stream) HTTP 200 answer: what the client reads of it."""

    content: bytes
    headers: CIMultiDictProxy[str]


#: What to send: JSON bytes, or a fresh multipart form per attempt (a form is read once).
Body = bytes | Callable[[], aiohttp.FormData]
#: One logical request, the same on every attempt: path, body, idempotency key, deadline.
_Request = tuple[str, Body, str, float | None]


def _failure_kind(error: BaseException) -> str:
    if isinstance(error, aiohttp.ConnectionTimeoutError):
        return "connect_timeout"
    if isinstance(error, (aiohttp.SocketTimeoutError, asyncio.TimeoutError)):
        return "read_timeout"
    if isinstance(error, aiohttp.ClientSSLError):
        return "tls"
    if isinstance(error, (aiohttp.ClientConnectorError, aiohttp.ServerDisconnectedError)):
        return "connect"
    return "other"


def _let_go(response: aiohttp.ClientResponse) -> None:
    """Release a streamed response, keeping its connection when the body was read whole."""
    if response.content.at_eof():
        response.release()
    else:
        response.close()  # also wakes a read still waiting on it


class AsyncTransport(TransportBase[AsyncRunStream]):
    """Sends the async client's requests with aiohttp (a session of its own made on first use)."""

    _asynchronous = True
    _stream_type = AsyncRunStream

    _session: aiohttp.ClientSession | None
    _session_loop: asyncio.AbstractEventLoop | None = None
    _proxy_for: tuple[str, str | None] = ("", None)  # (base URL, its proxy)

    def _new_session(self) -> None:
        return None  # made on first use, on the loop that uses it

    async def aclose(self) -> None:
        """Close the session if this transport made it."""
        if self._owns_session and self._session is not None:
            session, self._session = self._session, None
            await session.close()

    def _session_now(self) -> aiohttp.ClientSession:
        session, loop = self._session, asyncio.get_running_loop()
        if (
            session is not None
            and not session.closed
            and (not self._owns_session or self._session_loop is loop)
        ):
            return session
        # First use, or this loop is not the one the session was made on (a new
        # asyncio.run): a session is bound to its loop, so make one for this loop.
        self._session = aiohttp.ClientSession(
            auto_decompress=False,  # BodyReader inflates a piece at a time, within the limits
            connector=aiohttp.TCPConnector(limit=0),  # concurrency is the caller's choice
        )
        self._owns_session = True
        self._session_loop = loop
        return self._session

    def _env_proxy(self) -> str | None:
        """The proxy ``$HTTP(S)_PROXY`` names for the base URL (``$NO_PROXY`` honoured).

        As ``requests`` does; aiohttp's ``trust_env`` would read ``~/.netrc`` on every request.
        """
        if self._proxy_for[0] != self.base_url:
            parts = urlsplit(self.base_url)
            proxy = urllib.request.getproxies().get(parts.scheme)
            if proxy and urllib.request.proxy_bypass(parts.hostname or ""):
                proxy = None
            self._proxy_for = (self.base_url, proxy or None)
        return self._proxy_for[1]

    # --- sending -----------------------------------------------------------------------------

    async def send(self, path: str, body: Body) -> Reply:
        """Send one logical request and read its answer (as ``Transport.send``)."""
        deadline = deadline_after(self.timeout.total)
        reply: Reply = await self._send((path, body, str(uuid.uuid4()), deadline), stream=False)
        return reply

    async def send_stream(self, path: str, body: bytes, *, conversation_id: str) -> AsyncRunStream:
        """Send a streamed run; return its stream (as ``Transport.send_stream``)."""
        deadline = deadline_after(self.timeout.total)
        request: _Request = (path, body, str(uuid.uuid4()), deadline)
        current: list[aiohttp.ClientResponse] = [await self._send(request, stream=True)]
        if is_json_answer(current[0].headers):
            content = await self._read(current[0], deadline, self.limits.max_body_bytes)
            return self._run_stream(current[0], conversation_id, content)

        async def reopen() -> AsyncIterator[bytes]:
            current[0].close()
            current[0] = await self._send(request, stream=True)
            return self._chunks(current[0], deadline, self.limits.max_stream_bytes)

        return self._run_stream(
            current[0],
            conversation_id,
            self._chunks(current[0], deadline, self.limits.max_stream_bytes),
            close=lambda: _let_go(current[0]),
            reopen=reopen,
        )

    async def _send(self, request: _Request, *, stream: bool) -> Any:
        """One logical request: the first attempt outside tenacity (as ``Transport._send``)."""
        try:
            return await self._attempt(*request, stream=stream)
        except (TransportError, APIStatusError) as error:
            if not self._first_failure_retryable(error, stream=stream):
                raise
            first_failure: list[BaseException] = [error]

        async def attempt(request: _Request) -> Any:
            if first_failure:
                raise first_failure.pop()
            return await self._attempt(*request, stream=stream)

        return await self._retrying[stream](attempt, request)

    async def _attempt(
        self, path: str, body: Body, key: str, deadline: float | None, *, stream: bool
    ) -> Reply | aiohttp.ClientResponse:
        url = self.base_url + path
        check_deadline(deadline, url=url)
        headers = self._headers(path, key, json=isinstance(body, bytes), stream=stream)
        headers["Authorization"] = self._authorization.reveal()
        connect = self.timeout.connect
        timeout = aiohttp.ClientTimeout(
            total=time_left(deadline),
            sock_connect=connect,
            connect=connect,
            sock_read=self.timeout.read,
        )
        started = time.perf_counter()
        try:
            response = await self._session_now().post(
                url,
                proxy=self._env_proxy() if self._owns_session else None,
                data=body if isinstance(body, bytes) else body(),
                headers=headers,
                timeout=timeout,
                allow_redirects=False,
                # BodyReader inflates, a piece at a time and within the limits, also when the
                # caller's own session would decompress.
                auto_decompress=False,
            )
        except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
            check_deadline(deadline, url=url)
            raise transport_failure(
                _failure_kind(exc),
                reason=str(exc) or type(exc).__name__,
                url=url,
                timeout=(connect, self.timeout.read),
                secrets=self.secrets(),
            ) from None
        self._log_answer(path, response.status, started)
        if response.status == 200:
            if stream:  # read by the AsyncRunStream, within the same deadline
                return response
            # Read here, in the attempt, so a body that breaks or stalls is retried.
            content = await self._read(response, deadline, self.limits.max_body_bytes)
            return Reply(content, response.headers)
        try:
            content = await self._read(response, deadline, ERROR_BODY_LIMIT)
        except (TransportError, ResponseDecodeError):  # too large, or an unreadable encoding
            content = b""  # the status alone still says what happened (and whether to retry)
        raise status_error_for(
            response.status,
            reason=response.reason or "",
            headers=response.headers,
            content=content,
            secrets=self.secrets(),
        )

    # --- reading -----------------------------------------------------------------------------

    async def _read(
        self, response: aiohttp.ClientResponse, deadline: float | None, max_bytes: int
    ) -> bytes:
        """Read a whole body within the limits; the connection is kept when it was read whole."""
        try:
            body = b"".join([chunk async for chunk in self._chunks(response, deadline, max_bytes)])
        except BaseException:
            response.close()
            raise
        response.release()
        return body

    async def _chunks(
        self, response: aiohttp.ClientResponse, deadline: float | None, max_bytes: int | None
    ) -> AsyncIterator[bytes]:
        """Yield a body's decoded bytes as they arrive (as ``iter_body_chunks``)."""
        reader = BodyReader(
            response.headers.get("Content-Encoding", ""), max_bytes=max_bytes, piece=65536
        )
        try:
            async for sent in response.content.iter_chunked(STREAM_CHUNK_BYTES):
                for chunk in reader.feed(sent):
                    yield chunk
            if tail := reader.end():
                yield tail
        except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
            url = str(response.url)
            check_deadline(deadline, url=url)
            raise read_failure(
                str(exc) or type(exc).__name__,
                timed_out=_failure_kind(exc) == "read_timeout",
                read_timeout=self.timeout.read,
                deadline=None,  # checked above, for every failure
                url=url,
            ) from exc
