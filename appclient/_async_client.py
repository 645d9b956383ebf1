"""AsyncAppClient: the AppClient API as coroutines, each blocking call made in a worker thread.

appclient's dependencies hold no async HTTP library, so this is not a native asyncio client:
it owns a synchronous :class:`~appclient.AppClient` and runs each of its calls in a thread of
the event loop's default executor (as :func:`asyncio.to_thread` does). The loop keeps serving
other tasks meanwhile; arguments are checked, requests retried and errors raised exactly as by
the synchronous client, and the errors reach the awaiting task.

The automatic round trip (``run_until_answer``, ``iter_until_answer``) comes from
:class:`~appclient._async_loop.AsyncRoundTripMixin`.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Literal, overload

import requests

from ._async_loop import AsyncRoundTripMixin
from ._async_stream import AsyncRunStream, cancellable_sleep, in_thread
from ._client import AppClient
from ._constants import DEFAULT_MAX_RETRIES
from ._errors import InvalidRequestError
from ._http_bodies import RunOptions
from ._limits import Limits, Timeout
from ._models import FeedbackType, Message
from ._stream import RunStream

if TYPE_CHECKING:  # Unpack is in typing from Python 3.11; annotations are never evaluated
    from typing_extensions import Unpack

__all__ = ["AsyncAppClient"]


def _close_stream(result: object) -> None:
    if isinstance(result, RunStream):
        result.close()


class AsyncAppClient(AsyncRoundTripMixin):
    """The asyncio counterpart of :class:`~appclient.AppClient`, for async frameworks.

    Every method is a coroutine with the arguments, checks, results and errors of the
    synchronous client's method of the same name. There is no async HTTP library underneath:
    each call is made by a synchronous :class:`~appclient.AppClient` in a thread of the event
    loop's default executor (size it with ``loop.set_default_executor``), so awaiting never
    blocks the loop. Concurrent calls share the client's ``requests`` connection pool.

    Cancelling a task stops waiting at once. A streamed read is woken and its response
    released; a plain request's attempt in progress still finishes in its thread (within
    ``timeout``), no retry follows it, and its answer is dropped; a stream opened that late is
    closed.

    Args:
        app_id: The id of the published app; ``$APPBUILDER_APP_ID`` when omitted.
        token: The secret key; ``$APPBUILDER_TOKEN`` when omitted.
        base_url: The gateway, e.g. ``http://127.0.0.1:8000``; ``$GATEWAY_URL_V2`` when omitted,
            else the hosted service.
        timeout: As for :class:`~appclient.AppClient` (a :class:`~appclient.Timeout`, seconds,
            a pair or a triple).
        limits: As for :class:`~appclient.AppClient`.
        max_retries: Retries after the first attempt (as for :class:`~appclient.AppClient`).
        session: A ``requests.Session`` to send with; closed only if the client made it.
        sleep: Called in the worker thread with each retry wait; ``time.sleep`` when omitted.
            No retry follows a wait during which the awaiting task was cancelled.

    Raises:
        InvalidRequestError: The app id, token, base URL, timeout or max_retries is invalid,
            or ``sleep`` is not a plain function (``asyncio.sleep`` is refused).

    Example:
        >>> client = AsyncAppClient("my-app", token="secret", base_url="http://127.0.0.1:8000")
        >>> client
        AsyncAppClient(app_id='my-app', base_url='http://127.0.0.1:8000')
    """

    def __init__(
        self,
        app_id: str | None = None,
        *,
        token: str | None = None,
        base_url: str | None = None,
        timeout: float | tuple[float, ...] | Timeout | None = None,
        limits: Limits | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        if sleep is not None and (not callable(sleep) or inspect.iscoroutinefunction(sleep)):
            # It is called in a worker thread: a coroutine function would return at once.
            raise InvalidRequestError(
                f"sleep must be a plain function of the seconds to wait, got {sleep!r}"
            )
        self._client = AppClient(
            app_id,
            token=token,
            base_url=base_url,
            timeout=timeout,
            limits=limits,
            max_retries=max_retries,
            session=session,
            # A request whose task was cancelled must not be sent again by a retry.
            sleep=cancellable_sleep(sleep),
        )

    @property
    def app_id(self) -> str:
        """The id of the app."""
        return self._client.app_id

    @property
    def base_url(self) -> str:
        """The gateway's base URL (no trailing slash); may be reassigned, and is checked."""
        return self._client.base_url

    @base_url.setter
    def base_url(self, value: str) -> None:
        self._client.base_url = value

    @property
    def max_retries(self) -> int:
        """Retries after the first attempt."""
        return self._client.max_retries

    @property
    def timeout(self) -> Timeout:
        """The timeouts in seconds."""
        return self._client.timeout

    # --- the protocol ------------------------------------------------------------------------

    async def create_conversation(self) -> str:
        """Start a conversation with the app (see :meth:`AppClient.create_conversation`).

        Returns:
            The new conversation id.

        Raises:
            APIStatusError: The server refused (subclass per status).
            TransportError: No answer (connection failure or timeout) after all retries.
            ResponseDecodeError: The answer holds no conversation id.
        """
        return await in_thread(self._client.create_conversation)

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
        """Send a query (with local tools) or the outputs of earlier tool calls.

        Takes the arguments of :meth:`AppClient.run <appclient.AppClient.run>`, which
        documents them, and checks them the same way (in the worker thread).

        Args:
            conversation_id: From :meth:`create_conversation`.
            query: The user's message; may be empty when ``tool_outputs`` are sent.
            stream: Return an :class:`AsyncRunStream` instead of a :class:`Message`.
            **options: As for :meth:`AppClient.run <appclient.AppClient.run>`.

        Returns:
            A :class:`Message` whose ``content`` is the :class:`RunAnswer`, or, when
            ``stream=True``, an :class:`AsyncRunStream` (the response headers have arrived).

        Raises:
            InvalidRequestError: A missing or badly shaped argument; nothing was sent.
            RunError: The server reported a failure inside an HTTP 200 answer.
            APIStatusError: The server refused (subclass per status).
            TransportError: No answer (connection failure or timeout) after all retries.
            ResponseDecodeError: The answer is not the protocol's JSON.
        """

        def send() -> Message | RunStream:
            return self._client.run(conversation_id, query, stream=stream, **options)

        result = await in_thread(send, discard=_close_stream)
        return AsyncRunStream(result) if isinstance(result, RunStream) else result

    async def upload_file(
        self,
        conversation_id: str,
        file_path: str | os.PathLike[str] | None = None,
        *,
        file_url: str | None = None,
    ) -> str:
        """Upload a local file, or register a file by URL (see :meth:`AppClient.upload_file`).

        The path may be passed by position, as with the official client, or by name.

        Args:
            conversation_id: From :meth:`create_conversation`.
            file_path: A local file (read in the worker thread).
            file_url: A URL the service fetches itself. Pass exactly one of the two.

        Returns:
            The file id, for ``run(..., file_ids=[...])``.

        Raises:
            InvalidRequestError: Both or neither source given, or the file is not readable.
            APIStatusError: The server refused (413 for a file over its limit).
            TransportError: No answer after all retries.
            ResponseDecodeError: The answer holds no file id.
        """
        upload = functools.partial(
            self._client.upload_file, conversation_id, file_path=file_path, file_url=file_url
        )
        return await in_thread(upload)

    async def upload_local_file(
        self, conversation_id: str, local_file_path: str | os.PathLike[str]
    ) -> str:
        """Upload a local file: the official client's name for :meth:`upload_file` by path.

        Args:
            conversation_id: From :meth:`create_conversation`.
            local_file_path: The file, sent as multipart ``file`` under its base name.

        Returns:
            The file id, for ``run(..., file_ids=[...])``.

        Raises:
            InvalidRequestError: The file is not readable.
            APIStatusError: The server refused (413 for a file over its limit).
            TransportError: No answer after all retries.
            ResponseDecodeError: The answer holds no file id.
        """
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
        """Rate an answer of the app (see :meth:`AppClient.feedback`).

        Args:
            conversation_id: The conversation of the answer.
            message_id: The answer's ``message_id``.
            type: ``"upvote"``, ``"downvote"`` or ``"cancel"``.
            flag: Reasons picked from the app's list (downvotes).
            reason: Free-text reason.

        Returns:
            The request id of the server's acknowledgement.

        Raises:
            InvalidRequestError: An id is empty or ``type`` is not one of the three values.
            APIStatusError: The server refused.
            TransportError: No answer after all retries.
        """
        send = functools.partial(
            self._client.feedback,
            conversation_id=conversation_id,
            message_id=message_id,
            type=type,
            flag=flag,
            reason=reason,
        )
        return await in_thread(send)

    # --- lifecycle ---------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Release pooled connections (of a session the client created itself)."""
        self._client.close()

    async def __aenter__(self) -> AsyncAppClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"AsyncAppClient(app_id={self.app_id!r}, base_url={self.base_url!r})"
