"""The automatic round trip for :class:`~appclient.AsyncAppClient`: the same steps, awaited.

Requests, stream reads and async approval callbacks are awaited on the caller's loop; local
tools run in a thread of the round trip's own, so a tool never blocks the loop nor takes a
thread of its default executor (which an async approval callback may need).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncGenerator, Awaitable, Callable
from concurrent.futures import FIRST_COMPLETED, CancelledError, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any

from ._dispatch import ApprovalCallback, ApprovalRequest
from ._loop import (
    Do,
    RoundTripMixin,
    RoundTripOptions,
    advance,
    as_registry,
    check_round_trip_options,
)
from ._loop_events import AnswerDone, LoopEvent, RoundTripResult

if TYPE_CHECKING:
    from typing_extensions import Unpack


#: The name prefix of the thread each async round trip runs its local tools in.
ROUND_TRIP_THREAD_PREFIX = "appclient-round-trip"


class _Approvals:
    """Async approval callbacks of one round trip, awaited on its loop, cancellable at once."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._stopped: Future[Any] = Future()

    def wrap(self, approve: ApprovalCallback | None) -> ApprovalCallback | None:
        """Return ``approve`` for the tool thread, its awaitables awaited on the loop."""
        if approve is None:
            return None

        def ask(request: ApprovalRequest) -> bool | Awaitable[bool]:
            answer = approve(request)
            if not inspect.isawaitable(answer):
                return answer
            approval = asyncio.run_coroutine_threadsafe(_awaited(answer), self._loop)
            done, _ = wait([approval, self._stopped], return_when=FIRST_COMPLETED)
            if approval not in done:  # stopped first: the tool thread gets a refusal
                if not self._loop.is_closed():  # a closed loop has dropped the task already
                    approval.cancel()
                raise CancelledError
            return approval.result()

        return ask

    def stop(self) -> None:
        """Cancel the approvals still waiting, and any asked from now on."""
        self._stopped.set_result(None)


class AsyncRoundTripMixin(RoundTripMixin):
    """Adds the automatic tool round trip to :class:`appclient.AsyncAppClient`."""

    async def run_until_answer(  # type: ignore[override]  # the async form of the same method
        self,
        conversation_id: str | None = None,
        query: str = "",
        *,
        stream: bool = False,
        on_event: Callable[[LoopEvent], Awaitable[object] | object] | None = None,
        **options: Unpack[RoundTripOptions],
    ) -> RoundTripResult:
        """Ask, run the local tools, send their outputs, until the answer; awaited.

        :meth:`AppClient.run_until_answer <appclient.AppClient.run_until_answer>` with the
        same arguments, result and errors, plus: ``on_event`` is called on the caller's loop
        and an awaitable it returns is awaited; an ``approve`` coroutine function is awaited
        on this loop. Local tools run on appclient's tool threads, never on the caller's loop
        (an async tool on a fresh event loop of its own there, so it must not use objects
        bound to the caller's loop). Cancelling the task closes the open stream, cancels a
        pending async approval and sends nothing more; a tool already running finishes in
        its thread.
        """
        check_round_trip_options(options, where="run_until_answer")
        events = self.iter_until_answer(conversation_id, query, stream=stream, **options)
        async with contextlib.aclosing(events):
            async for event in events:
                if on_event is not None:
                    outcome = on_event(event)
                    if inspect.isawaitable(outcome):
                        await outcome
                if isinstance(event, AnswerDone):
                    return event.result
        raise AssertionError("the round trip ended without AnswerDone")  # pragma: no cover

    async def iter_until_answer(  # type: ignore[override]  # the async form of the same method
        self,
        conversation_id: str | None = None,
        query: str = "",
        *,
        stream: bool = True,
        **options: Unpack[RoundTripOptions],
    ) -> AsyncGenerator[LoopEvent, None]:
        """Like :meth:`run_until_answer`, yielding progress events (streams by default).

        Yields the events of :meth:`AppClient.iter_until_answer`, ending with
        :class:`AnswerDone`. Closing the iterator early (``aclose()``, leaving ``async for``)
        or cancelling the task that waits on it closes the open stream.
        """
        check_round_trip_options(options, where="iter_until_answer")
        approvals = _Approvals(asyncio.get_running_loop())
        registry = options["tools"] = as_registry(options["tools"])
        approve = options.get("approve")
        options["approve"] = approvals.wrap(approve if approve is not None else registry.approve)
        steps = self._round_trip_steps(conversation_id, query, stream, options)
        # One thread per round trip for its tools (started on the first round): a round may
        # take minutes (tools, approvals), and holding default-executor threads that long
        # would starve the app or deadlock an approval that needs one.
        thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=ROUND_TRIP_THREAD_PREFIX)
        value: Any = None
        error: BaseException | None = None
        try:
            while (item := advance(steps, value, error)) is not None:
                value, error = None, None
                if not isinstance(item, Do):
                    yield item
                    continue
                try:
                    if item.blocking:
                        value = await asyncio.get_running_loop().run_in_executor(thread, item)
                    else:
                        value = item()
                        if inspect.isawaitable(value):
                            value = await value
                except asyncio.CancelledError:
                    raise
                except BaseException as exc:  # the round trip's own code handles it
                    error = exc
        finally:
            error = None  # as in advance: this frame is in the error's traceback
            approvals.stop()
            thread.shutdown(wait=False)  # a tool still running finishes, then it ends
            # The round trip closes its own stream here. A dispatch step still running in the
            # tool thread (its task was cancelled) cannot be closed: it ends with the tool.
            with contextlib.suppress(ValueError):  # "generator already executing"
                steps.close()


async def _awaited(answer: Awaitable[bool]) -> bool:
    return await answer
