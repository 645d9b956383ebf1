"""AsyncAppClient: the AppClient API as coroutines, sent natively with aiohttp.

Each method checks its arguments, builds its body and reads its answer exactly as
:class:`~appclient.AppClient` does (they share :class:`~appclient._clients._client.ClientBase`);
:class:`~appclient._clients._async_transport.AsyncTransport` sends on the caller's event loop, with
the same retries, timeouts and limits. aiohttp comes with ``pip install 'appclient[async]'``.

The automatic round trip (``run_until_answer``, ``iter_until_answer``) comes from
:class:`~appclient._tools._async_loop.AsyncRoundTripMixin`.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, BinaryIO, Literal, overload

from .._core._constants import (
    DEFAULT_MAX_RETRIES,
    PATH_CONVERSATION,
    PATH_FEEDBACK,
    PATH_FILE_UPLOAD,
    PATH_RUNS,
)
from .._core._errors import InvalidRequestError
from .._core._http_bodies import RunOptions, encode_json
from .._core._limits import Limits, Timeout
from .._core._models import FeedbackType, Message
from .._tools._async_loop import AsyncRoundTripMixin
from .._tools._tracing import note, run_span
from ._async_stream import AsyncRunStream
from ._client import ClientBase, upload_name

if TYPE_CHECKING:  # Unpack is in typing from Python 3.11; annotations are never evaluated
    import aiohttp
    from typing_extensions import Unpack

    from ._async_transport import AsyncTransport

__all__ = ["AsyncAppClient"]

#: What to install when aiohttp is missing.
ASYNC_EXTRA = "pip install 'appclient[async]'"


def _async_transport() -> type[AsyncTransport]:
    try:
        from ._async_transport import AsyncTransport
    except ModuleNotFoundError as exc:
        if exc.name not in ("aiohttp", "multidict", "yarl"):
            raise
        raise InvalidRequestError(
            f"AsyncAppClient sends with aiohttp, which is not installed: {ASYNC_EXTRA}"
        ) from None
    return AsyncTransport


class AsyncAppClient(ClientBase, AsyncRoundTripMixin):
    """The asyncio counterpart of :class:`~appclient.AppClient`, for async frameworks.

    Every method is a coroutine with the arguments, checks, results and errors of the
    synchronous client's method of the same name, sent natively with aiohttp on the running
    event loop (no worker threads). Concurrent calls share the client's connection pool;
    cancelling a task cancels its request and releases its connection.

    Args:
        app_id: The id of the published app; ``$APPBUILDER_APP_ID`` when omitted.
        token: The secret key; ``$APPBUILDER_TOKEN`` when omitted.
        base_url: The gateway, e.g. ``http://127.0.0.1:8000``; ``$GATEWAY_URL_V2`` when omitted,
            else the hosted service.
        timeout: As for :class:`~appclient.AppClient` (a :class:`~appclient.Timeout`, seconds,
            a pair or a triple).
        limits: As for :class:`~appclient.AppClient`.
        max_retries: Retries after the first attempt (as for :class:`~appclient.AppClient`).
        session: An ``aiohttp.ClientSession`` to send with (its connector, proxies,
            certificates); the client closes only the session it made itself (on the first
            request, on the running loop).
        sleep: Awaited with each retry wait; ``asyncio.sleep`` when omitted.

    Raises:
        InvalidRequestError: The app id, token, base URL, timeout or max_retries is invalid,
            ``sleep`` is not a coroutine function, or aiohttp is not installed.

    Example:
        >>> client = AsyncAppClient("my-app", token="secret", base_url="http://127.0.0.1:8000")
        >>> client
        AsyncAppClient(app_id='my-app', base_url='http://127.0.0.1:8000')
    """

    _transport: AsyncTransport

    def __init__(
        self,
        app_id: str | None = None,
        *,
        token: str | None = None,
        base_url: str | None = None,
        timeout: float | tuple[float, ...] | Timeout | None = None,
        limits: Limits | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        session: aiohttp.ClientSession | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        if sleep is not None and not inspect.iscoroutinefunction(sleep):
            # A plain function (time.sleep) would block the event loop for the whole wait.
            raise InvalidRequestError(
                f"sleep must be a coroutine function such as asyncio.sleep, got {sleep!r}"
            )
        transport = _async_transport()
        import aiohttp  # present: the transport imported it

        if session is not None and not isinstance(session, aiohttp.ClientSession):
            raise InvalidRequestError(
                "session must be an aiohttp.ClientSession (the async client sends with "
                f"aiohttp), got {type(session).__name__}"
            )
        self._transport = self._start(
            transport,
            app_id=app_id,
            token=token,
            base_url=base_url,
            timeout=timeout,
            limits=limits,
            max_retries=max_retries,
            session=session,
            sleep=sleep if sleep is not None else asyncio.sleep,
        )

    # --- the protocol ------------------------------------------------------------------------

    async def create_conversation(self) -> str:
        """Start a conversation: :meth:`AppClient.create_conversation`, awaited."""
        payload = encode_json({"app_id": self.app_id})
        return self._conversation_id(await self._transport.send(PATH_CONVERSATION, payload))

    @overload
    async def run(
        self,
        conversation_id: str,
        query: str = "",
        *,
        stream: Literal[False] = False,
        **options: Unpack[RunOptions],
    ) -> Message: ...

    @overload
    async def run(
        self,
        conversation_id: str,
        query: str = "",
        *,
        stream: Literal[True],
        **options: Unpack[RunOptions],
    ) -> AsyncRunStream: ...

    @overload
    async def run(
        self, conversation_id: str, query: str = "", *, stream: bool, **options: Unpack[RunOptions]
    ) -> Message | AsyncRunStream: ...

    async def run(
        self,
        conversation_id: str,
        query: str = "",
        *,
        stream: bool = False,
        **options: Unpack[RunOptions],
    ) -> Message | AsyncRunStream:
        """Send a query or tool outputs: :meth:`AppClient.run <appclient.AppClient.run>`, awaited.

        The same arguments, checks and errors; ``stream=True`` returns an
        :class:`AsyncRunStream` once the response headers have arrived.
        """
        payload = self._run_body(conversation_id, query, stream, options)
        with run_span(app_id=self.app_id, conversation_id=conversation_id, stream=stream):
            if stream:
                answers = await self._transport.send_stream(
                    PATH_RUNS, payload, conversation_id=conversation_id
                )
                note(request_id=answers.request_id, **{"run.status": "streaming"})
                return answers
            reply = await self._transport.send(PATH_RUNS, payload)
            return self._run_message(reply, conversation_id)

    async def upload_file(
        self,
        conversation_id: str,
        file_path: str | os.PathLike[str] | None = None,
        *,
        file_url: str | None = None,
    ) -> str:
        """Upload a file or register a URL: :meth:`AppClient.upload_file`, awaited.

        aiohttp reads the file in its executor; each attempt sends it from its first byte.
        """
        form, source = self._upload_source(conversation_id, file_path, file_url)
        if isinstance(source, str):
            reply = await self._transport.send(PATH_FILE_UPLOAD, lambda: _form(form, source))
            return self._file_id(reply)
        handles: list[BinaryIO] = []

        def attempt_form() -> aiohttp.FormData:
            # Opened afresh per attempt (aiohttp streams the file, in its executor, and
            # closes it when sent), so a retry sends it from its first byte again.
            try:
                handles.append(source.open("rb"))
            except OSError as exc:
                raise InvalidRequestError(
                    f"file_path {str(source)!r} cannot be read: {exc}"
                ) from exc
            return _form(form, (upload_name(source), handles[-1]))

        try:
            return self._file_id(await self._transport.send(PATH_FILE_UPLOAD, attempt_form))
        finally:
            for handle in handles:  # one whose attempt failed before sending is still open
                handle.close()

    async def upload_local_file(
        self, conversation_id: str, local_file_path: str | os.PathLike[str]
    ) -> str:
        """Upload a local file: :meth:`AppClient.upload_local_file`, awaited."""
        return await self.upload_file(conversation_id, local_file_path)

    async def feedback(
        self,
        conversation_id: str,
        message_id: str,
        type: FeedbackType,  # the protocol and the official client name it "type"
        *,
        flag: list[str] | None = None,
        reason: str | None = None,
    ) -> str:
        """Rate an answer: :meth:`AppClient.feedback`, awaited."""
        body = self._feedback_body(conversation_id, message_id, type, flag, reason)
        return self._feedback_id(await self._transport.send(PATH_FEEDBACK, body))

    # --- lifecycle ---------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Release pooled connections (of a session the client made itself)."""
        await self._transport.aclose()

    async def __aenter__(self) -> AsyncAppClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _form(fields: dict[str, str], source: str | tuple[str, BinaryIO]) -> aiohttp.FormData:
    """A multipart form of the upload: its fields, then ``file`` or ``file_url``."""
    import aiohttp  # present: the transport imported it

    form = aiohttp.FormData(default_to_multipart=True)
    for name, value in fields.items():
        form.add_field(name, value)
    if isinstance(source, str):
        form.add_field("file_url", source)
    else:
        form.add_field("file", source[1], filename=source[0])
    return form
