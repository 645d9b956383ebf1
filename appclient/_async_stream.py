"""AsyncRunStream: a :class:`~appclient.RunStream` read from asyncio, in worker threads.

appclient has no async HTTP library, so a streamed run is the synchronous
:class:`~appclient.RunStream`; this wrapper reads each message in a thread of the event loop's
default executor and closes the stream whenever its reader goes away: ``async with``,
:meth:`AsyncRunStream.aclose`, leaving ``async for`` early, or cancelling the task that waits
for a message. ``RunStream.close()`` is safe from another thread and wakes a read blocked on
the socket, so a cancelled task never leaves a worker thread waiting for the server.

:func:`in_thread` is the one way :mod:`appclient._async_client` runs blocking work, too; with
:func:`cancellable_sleep` as the client's retry sleep, a worker whose task was cancelled sends
no further attempt.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
import time
from collections.abc import AsyncGenerator, Callable
from concurrent.futures import Executor
from types import TracebackType
from typing import Generic, TypeVar

from ._models import Event, RunAnswer, ToolCall
from ._stream import RunStream

__all__ = ["AsyncRunStream", "cancellable_sleep", "in_thread"]

T = TypeVar("T")

# Set (in the worker's copy of the caller's context) once the task awaiting the work is gone.
_ABANDONED: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar(
    "appclient_abandoned", default=None
)


def cancellable_sleep(sleep: Callable[[float], None] | None) -> Callable[[float], None]:
    """Wrap a retry sleep so that work abandoned by its task makes no further attempt.

    In a worker of :func:`in_thread` whose awaiting task was cancelled, the returned sleep
    raises :class:`asyncio.CancelledError` instead of letting the retry loop send the request
    again (the default wait also ends at once on cancellation). Elsewhere it is ``sleep``.

    Args:
        sleep: The wait to make; ``time.sleep`` when ``None``.

    Returns:
        The retry sleep to give the synchronous client.
    """

    def wait(seconds: float) -> None:
        abandoned = _ABANDONED.get()
        if abandoned is None:
            (sleep or time.sleep)(seconds)
            return
        if not abandoned.is_set():
            if sleep is None:
                abandoned.wait(seconds)
            else:
                sleep(seconds)
        if abandoned.is_set():
            raise asyncio.CancelledError("the awaiting task was cancelled; no retry is sent")

    return wait


class _Handoff(Generic[T]):
    """A call in a worker thread whose result goes to ``discard`` once nobody awaits it.

    When the awaiting task is cancelled, the thread cannot be stopped: its result (an open
    stream) arrives later, and would leak its connection if simply dropped. Exactly one side
    discards it: the thread, if it finishes after :meth:`abandon`; else :meth:`abandon`.
    """

    def __init__(self, func: Callable[[], T], discard: Callable[[T], object]) -> None:
        self._func = func
        self._discard = discard
        self._lock = threading.Lock()
        self._abandoned = False
        self._result: list[T] = []  # the result, once returned and not yet abandoned

    def call(self) -> T:
        result = self._func()
        with self._lock:
            abandoned = self._abandoned
            if not abandoned:
                self._result.append(result)
        if abandoned:
            self._discard(result)
        return result

    def abandon(self) -> None:
        with self._lock:
            self._abandoned = True
            late = self._result[:]
        for result in late:  # returned, but the task was cancelled before it resumed
            self._discard(result)


async def in_thread(
    func: Callable[[], T],
    *,
    discard: Callable[[T], object] | None = None,
    executor: Executor | None = None,
) -> T:
    """Run ``func`` in ``executor`` (the running loop's default one) and return its result.

    Like :func:`asyncio.to_thread` (the caller's context variables go along), plus: if the
    awaiting task is cancelled, ``func`` still finishes in its thread and its result is passed
    to ``discard`` (from whichever thread sees it last), so it can release what it holds; and
    a :func:`cancellable_sleep` in ``func`` stops its retries.

    Args:
        func: The blocking call.
        discard: Releases a result nobody will receive.
        executor: Where to run ``func``; the loop's default executor when ``None``.

    Returns:
        What ``func`` returned; its exception is raised here.
    """
    loop = asyncio.get_running_loop()
    handoff = _Handoff(func, discard) if discard is not None else None
    call = handoff.call if handoff is not None else func
    context = contextvars.copy_context()
    abandoned = threading.Event()
    context.run(_ABANDONED.set, abandoned)
    try:
        return await loop.run_in_executor(executor, functools.partial(context.run, call))
    except asyncio.CancelledError:
        abandoned.set()
        if handoff is not None:
            handoff.abandon()
        raise


class AsyncRunStream:
    """A streamed run for asyncio code: ``async for`` its messages, or await :meth:`collect`.

    Returned by :meth:`AsyncAppClient.run(..., stream=True) <appclient.AsyncAppClient.run>`.
    It wraps a synchronous :class:`~appclient.RunStream`: each message is read in a worker
    thread (the event loop's default executor), so the loop keeps serving other tasks while
    the server thinks. Each message is a :class:`~appclient.RunAnswer` whose ``answer`` is
    that message's text delta::

        async with await client.run(conversation_id, "hi", stream=True) as stream:
            async for message in stream:
                print(message.answer, end="", flush=True)
        print(stream.tool_calls)

    The HTTP response is released when the stream ends or fails, on ``async with`` exit,
    :meth:`aclose`, leaving ``async for`` early (when the loop finalises the iteration, at
    its next turn; use ``async with`` for a fixed point), and when a task waiting for a
    message or for :meth:`collect` is cancelled (that also wakes the worker thread's read).
    One task reads at a time.

    Args:
        stream: The synchronous stream to read.

    Raises:
        StreamInterruptedError: (while reading) The stream ended or broke before a final event.
        RunError: (while reading) The server reported an error.
        ResponseDecodeError: (while reading) A message is not a run answer.
    """

    def __init__(self, stream: RunStream) -> None:
        self._stream = stream
        self._reading = False

    # --- reading ---------------------------------------------------------------------------

    def __aiter__(self) -> AsyncGenerator[RunAnswer, None]:
        return self._messages()

    async def __anext__(self) -> RunAnswer:
        message = await self._read(self._next_message)
        if message is None:
            raise StopAsyncIteration
        return message

    def _next_message(self) -> RunAnswer | None:
        return next(self._stream, None)

    async def _messages(self) -> AsyncGenerator[RunAnswer, None]:
        # A generator, so that leaving ``async for`` early closes the stream: the loop's
        # async-generator finaliser runs this ``finally`` (a plain __anext__ would never know).
        try:
            while True:
                try:
                    message = await self.__anext__()
                except StopAsyncIteration:
                    return
                yield message
        finally:
            self._stream.close()

    @property
    def content(self) -> AsyncGenerator[RunAnswer, None]:
        """The messages, so official-style ``async for chunk in message.content`` works."""
        return self._messages()

    async def collect(self) -> RunAnswer:
        """Read the rest of the stream (in a worker thread) and return the accumulated answer.

        Returns:
            A :class:`~appclient.RunAnswer` with the answer text of every message joined,
            every event in order, and the ids and ``is_completion`` of the last message.

        Raises:
            StreamInterruptedError: The stream ended, broke or was closed before a final event
                (:meth:`accumulated` still gives what arrived).
            RunError: The run failed.
        """
        return await self._read(self._stream.collect)

    async def _read(self, read: Callable[[], T]) -> T:
        if self._reading:
            raise RuntimeError("another task is already reading this stream")
        self._reading = True
        try:
            return await in_thread(read)
        except asyncio.CancelledError:
            self._stream.close()  # wakes the read still blocked in the worker thread
            raise
        finally:
            self._reading = False

    # --- results (what has arrived; nothing here blocks) -------------------------------------

    def accumulated(self) -> RunAnswer:
        """Return the answer accumulated so far, without reading further."""
        return self._stream.accumulated()

    @property
    def answer(self) -> str:
        """The answer text received so far."""
        return self._stream.answer

    @property
    def events(self) -> list[Event]:
        """Every event received so far, in order."""
        return self._stream.events

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls received so far: those of the last event that carries any."""
        return self._stream.tool_calls

    @property
    def message_id(self) -> str:
        """The run's message id, once a message has arrived."""
        return self._stream.message_id

    @property
    def finished(self) -> bool:
        """Whether a final event (``success``, ``interrupt``, ``error``...) has arrived."""
        return self._stream.finished

    @property
    def closed(self) -> bool:
        """Whether the underlying response has been released."""
        return self._stream.closed

    # --- closing ---------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Stop reading and release the HTTP response; an ``async for`` in progress just ends."""
        self._stream.close()  # does not block: it shuts the socket down

    async def __aenter__(self) -> AsyncRunStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"Async{self._stream!r}"
