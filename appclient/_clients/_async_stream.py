"""AsyncRunStream: a streamed run read on the event loop, one message per server-sent event.

The asyncio reader of :class:`~appclient._clients._stream.StreamState`: it only awaits the
chunks (an async iterator) and the run sent again.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Awaitable, Callable

from .._core._errors import AppClientError
from .._core._models import RunAnswer
from ._stream import StreamState


class AsyncRunStream(StreamState):
    """A streamed run for asyncio code: ``async for`` its messages, or await :meth:`collect`.

    Returned by :meth:`AsyncAppClient.run(..., stream=True) <appclient.AsyncAppClient.run>`.
    Each message is a :class:`~appclient.RunAnswer` whose ``answer`` is that message's text
    delta; the results so far (:attr:`answer`, :attr:`events`, :attr:`tool_calls`,
    :meth:`accumulated`) are those of :class:`~appclient.types.RunStream`::

        async with await client.run(conversation_id, "hi", stream=True) as stream:
            async for message in stream:
                print(message.answer, end="", flush=True)
        print(stream.tool_calls)

    The HTTP response is released when the stream ends or fails, on ``async with`` exit,
    :meth:`aclose` (or :meth:`close`), leaving ``async for`` early (when the loop finalises
    the iteration, at its next turn; use ``async with`` for a fixed point), and when a task
    waiting for a message or for :meth:`collect` is cancelled. One task reads at a time.

    Takes the arguments of :class:`~appclient.types.RunStream` (``chunks`` an async iterable,
    ``reopen`` a coroutine function).

    Raises:
        StreamInterruptedError: (while reading) The stream ended or broke before a final event.
        RunError: (while reading) The server reported an error.
        ResponseDecodeError: (while reading) A message is not a run answer.
    """

    _reading = False  # a task is inside __anext__

    def _begin(self, chunks: AsyncIterable[bytes]) -> Callable[[], Awaitable[bytes]]:
        return aiter(chunks).__anext__

    # --- reading ---------------------------------------------------------------------------

    def __aiter__(self) -> AsyncGenerator[RunAnswer, None]:
        return self._iterate()

    async def __anext__(self) -> RunAnswer:
        if self._reading:
            raise RuntimeError("another task is already reading this stream")
        if self._closed:
            raise StopAsyncIteration
        self._reading = True
        try:
            while (data := self._take()) is None and self._io is not None:
                try:
                    got = await self._io()  # the one I/O step: see StreamState._took
                except (StopAsyncIteration, AppClientError) as exc:
                    self._took(exc)  # in here, so what it raises has the failure as context
                else:
                    self._took(got)
            answer = self._deliver(data)
        except BaseException:  # a cancelled task's read included: the response is released
            if self._failed():  # close() ended the read
                raise StopAsyncIteration from None
            raise
        finally:
            self._reading = False
        if answer is None:
            raise StopAsyncIteration
        return answer

    async def _iterate(self) -> AsyncGenerator[RunAnswer, None]:
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
            self.close()

    @property
    def content(self) -> AsyncGenerator[RunAnswer, None]:
        """The messages, so official-style ``async for chunk in message.content`` works."""
        return self._iterate()

    async def read_message(self) -> RunAnswer | None:
        """Return the next message, or ``None`` once the stream has ended."""
        try:
            return await self.__anext__()
        except StopAsyncIteration:
            return None

    async def collect(self) -> RunAnswer:
        """Read the rest of the stream and return the accumulated answer.

        Returns:
            A :class:`~appclient.RunAnswer` with the answer text of every message joined,
            every event in order, and the ids and ``is_completion`` of the last message.

        Raises:
            StreamInterruptedError: The stream ended, broke or was closed before a final event
                (:meth:`accumulated` still gives what arrived).
            RunError: The run failed.
        """
        try:
            while True:
                await self.__anext__()
        except StopAsyncIteration:
            return self._collected()

    # --- closing ---------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Stop reading and release the HTTP response; an ``async for`` in progress just ends."""
        self.close()

    async def __aenter__(self) -> AsyncRunStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()
