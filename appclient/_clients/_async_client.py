"""AsyncAppClient: the AppClient API as coroutines, sent natively with aiohttp.

Arguments, bodies and answers are :class:`~appclient._clients._client_base.ClientBase`'s; the
:class:`~appclient._clients._async_transport.AsyncTransport` sends on the caller's event loop.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, BinaryIO

from .._core._constants import PATH_FILE_UPLOAD, PATH_RUNS
from .._core._errors import InvalidRequestError
from .._core._models import Message
from .._tools._async_loop import AsyncRoundTripMixin
from .._tools._tracing import run_span
from ._async_stream import AsyncRunStream
from ._client_base import UPLOAD, ClientBase, ClientOptions, Upload, open_upload

if TYPE_CHECKING:  # Unpack is in typing from Python 3.11; annotations are never evaluated
    import aiohttp
    from typing_extensions import Unpack

    from ._async_transport import AsyncTransport


class AsyncAppClient(
    ClientBase[
        Coroutine[Any, Any, Message],
        Coroutine[Any, Any, AsyncRunStream],
        Coroutine[Any, Any, str],
    ],
    AsyncRoundTripMixin,
):
    """The asyncio counterpart of :class:`~appclient.AppClient`, for async frameworks.

    Every method is a coroutine with the arguments, checks, results and errors of the
    synchronous client's method of the same name, sent natively with aiohttp on the running
    event loop (no worker threads). Concurrent calls share the client's connection pool;
    cancelling a task cancels its request and releases its connection.

    Args:
        app_id: The id of the published app; ``token``, ``base_url``, ``timeout``, ``limits``
            and ``max_retries`` too are as for :class:`~appclient.AppClient`.
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
        session: aiohttp.ClientSession | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        **options: Unpack[ClientOptions],
    ) -> None:
        if sleep is not None and not inspect.iscoroutinefunction(sleep):
            # A plain function (time.sleep) would block the event loop for the whole wait.
            raise InvalidRequestError(
                f"sleep must be a coroutine function such as asyncio.sleep, got {sleep!r}"
            )
        try:
            import aiohttp

            from ._async_transport import AsyncTransport
        except ModuleNotFoundError as exc:
            if exc.name not in ("aiohttp", "multidict", "yarl"):
                raise
            raise InvalidRequestError(
                "AsyncAppClient sends with aiohttp, which is not installed: "
                "pip install 'appclient[async]'"
            ) from None
        if session is not None and not isinstance(session, aiohttp.ClientSession):
            raise InvalidRequestError(
                "session must be an aiohttp.ClientSession (the async client sends with "
                f"aiohttp), got {type(session).__name__}"
            )
        self._transport = self._start(
            AsyncTransport, app_id, session, sleep or asyncio.sleep, options
        )

    # --- the protocol ------------------------------------------------------------------------

    async def _exchange(
        self, path: str, body: Callable[[], bytes], what: str, field: str | None
    ) -> str:
        return self._read(await self._transport.send(path, body()), what, field)

    async def _send_run(
        self, conversation_id: str, query: str, stream: bool, options: Mapping[str, Any]
    ) -> Message | AsyncRunStream:
        payload = self._run_body(conversation_id, query, stream, options)
        with run_span(app_id=self.app_id, conversation_id=conversation_id, stream=stream):
            if stream:
                return self._streaming(
                    await self._transport.send_stream(
                        PATH_RUNS, payload, conversation_id=conversation_id
                    )
                )
            reply = await self._transport.send(PATH_RUNS, payload)
            return self._run_message(reply, conversation_id)

    async def _upload(self, upload: Callable[[], Upload]) -> str:
        form, source = upload()
        if isinstance(source, str):
            reply = await self._transport.send(PATH_FILE_UPLOAD, lambda: _form(form, source))
            return self._read(reply, UPLOAD)
        handles: list[BinaryIO] = []

        def attempt_form() -> aiohttp.FormData:
            # Opened afresh per attempt (aiohttp streams the file, in its executor, and
            # closes it when sent), so a retry sends it from its first byte again.
            file = open_upload(source)
            handles.append(file[1])
            return _form(form, file)

        try:
            return self._read(await self._transport.send(PATH_FILE_UPLOAD, attempt_form), UPLOAD)
        finally:
            for handle in handles:  # one whose attempt failed before sending is still open
                handle.close()

    # --- lifecycle ---------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Release pooled connections (of a session the client made itself)."""
        await self._transport.aclose()

    async def __aenter__(self) -> AsyncAppClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _coroutine_function(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` as a coroutine function, for ``inspect.iscoroutinefunction`` and autospec."""

    @functools.wraps(method)
    async def call(self: AsyncAppClient, *args: Any, **kwargs: Any) -> Any:
        return await method(self, *args, **kwargs)

    return call


for _name in ("create_conversation", "feedback", "run", "upload_file", "upload_local_file"):
    setattr(AsyncAppClient, _name, _coroutine_function(getattr(ClientBase, _name)))


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
