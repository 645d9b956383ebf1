"""The automatic round trip for :class:`~appclient.AsyncAppClient`, in worker threads.

:class:`AsyncRoundTripMixin` gives the async client ``run_until_answer`` and
``iter_until_answer`` by running the synchronous loop (:class:`~appclient._loop.RoundTripMixin`,
which keeps every protocol rule) one step at a time in a thread of its own: each step goes from
one progress event to the next, and the events are handed to the caller's loop. Its waits (for
the server, tools, an approval) so never take threads of the loop's default executor, which an
async approval callback may need itself. Nothing of the
dispatcher changes: local tools run on its threads, async tools on its own event loops; only
an async approval callback is awaited on the caller's loop (it usually asks the app's user).

The loop talks to the server through :class:`_RoundTripRuns`, a view of the synchronous
client that a cancelled task can stop: it closes the stream being read (waking the worker
thread blocked on it) and refuses to send anything more.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ._async_stream import in_thread
from ._client import AppClient
from ._dispatch import ApprovalCallback, ApprovalRequest
from ._loop import RoundTripMixin, RoundTripOptions, check_round_trip_options
from ._loop_events import AnswerDone, LoopEvent, RoundTripResult
from ._stream import RunStream

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["AsyncRoundTripMixin"]

#: The name prefix of the thread each async round trip runs its steps in.
ROUND_TRIP_THREAD_PREFIX = "appclient-round-trip"


class _RoundTripRuns(RoundTripMixin):
    """The synchronous client as the round-trip loop sees it, stoppable from the event loop.

    :meth:`stop` closes the stream the loop is reading (waking its worker thread) and makes
    any later request of that loop fail before it is sent.
    """

    def __init__(self, client: AppClient) -> None:
        self._client = client
        self.app_id = client.app_id  # names the round trip's tracing span
        self._lock = threading.Lock()
        self._stopped = False
        self._stream: RunStream | None = None
        self._approvals: set[Future[Any]] = set()

    def create_conversation(self) -> str:
        self._check()
        return self._client.create_conversation()

    def upload_file(self, conversation_id: str, file_path: str | os.PathLike[str]) -> str:
        self._check()
        return self._client.upload_file(conversation_id, file_path)

    def run(self, conversation_id: str, query: str = "", **options: Any) -> Any:
        self._check()
        result = self._client.run(conversation_id, query, **options)
        if isinstance(result, RunStream):
            with self._lock:
                self._stream, stopped = result, self._stopped
            if stopped:  # stopped while the request was on its way
                result.close()
        return result

    def stop(self) -> None:
        with self._lock:
            self._stopped, stream, approvals = True, self._stream, list(self._approvals)
        if stream is not None:
            stream.close()
        for approval in approvals:  # the worker waiting for it gets a refusal
            approval.cancel()

    def approving_on(
        self, loop: asyncio.AbstractEventLoop, approve: ApprovalCallback | None
    ) -> ApprovalCallback | None:
        """Return ``approve`` for the worker threads, awaiting its awaitables on ``loop``.

        An async callback typically asks the app's user through objects of the caller's loop
        (a websocket, a queue); on a loop of its own in the worker it could not use them.
        """
        if approve is None:
            return None
        callback = approve

        def ask(request: ApprovalRequest) -> bool | Awaitable[bool]:
            answer = callback(request)
            if not inspect.isawaitable(answer):
                return answer
            approval = asyncio.run_coroutine_threadsafe(_awaited(answer), loop)
            with self._lock:
                if self._stopped:
                    approval.cancel()
                self._approvals.add(approval)
            try:
                return approval.result()
            finally:
                with self._lock:
                    self._approvals.discard(approval)

        return ask

    def _check(self) -> None:
        if self._stopped:  # seen only by a worker thread whose awaiting task is gone
            raise asyncio.CancelledError("the round trip was cancelled")


class AsyncRoundTripMixin:
    """Adds the automatic tool round trip to :class:`appclient.AsyncAppClient`."""

    #: The synchronous client that makes the requests.
    _client: AppClient

    async def run_until_answer(
        self,
        conversation_id: str | None = None,
        query: str = "",
        *,
        stream: bool = False,
        on_event: Callable[[LoopEvent], Awaitable[object] | object] | None = None,
        **options: Unpack[RoundTripOptions],
    ) -> RoundTripResult:
        """Ask the agent, run the local tools it calls, send their outputs, until it answers.

        The synchronous :meth:`AppClient.run_until_answer` loop, run step by step in a thread
        of its own (not the loop's default executor). Local tools run on appclient's tool
        threads, never on the caller's loop; an async tool runs on a fresh event loop of its
        own there, so it must not use objects bound to the caller's loop (a client session
        created in it). A plain ``approve`` callback is called in the round trip's thread; an
        async one is awaited on the caller's loop. Cancelling the task closes the open stream,
        cancels a pending async approval and sends nothing more; a tool already running
        finishes in its thread.

        Args:
            conversation_id: The conversation to use; a new one is created when ``None``.
            query: The user's message (sent with the first run only).
            stream: Stream each run (``on_event`` then gets the answer text as it arrives).
            on_event: Called on the caller's loop with every :class:`LoopEvent`, in order;
                an awaitable it returns is awaited before the loop goes on.
            **options: As for :meth:`AppClient.run_until_answer
                <appclient.AppClient.run_until_answer>`; an ``approve`` coroutine function
                is awaited on this loop.

        Returns:
            The answer, every tool call with its output, and the rounds.

        Raises:
            InvalidRequestError: ``max_rounds`` is below 1, ``tools`` holds something that is
                not a tool, or a run's arguments are badly shaped; nothing was sent.
            RunError: The run failed (an ``error`` event or error body).
            StreamInterruptedError: A stream ended before its final event.
            MaxRoundsExceededError: The agent asked for more than ``max_rounds`` rounds; its
                ``result`` holds what was done.
            APIStatusError: The server refused a request (subclass per status).
            TransportError: No answer (connection failure or timeout) after all retries.
            ToolError: Only with ``raise_errors=True``.
            AppClientError: Each of the above, once the loop has started, carries
                ``partial_result``: the calls made so far, with their outputs.
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

    async def iter_until_answer(
        self,
        conversation_id: str | None = None,
        query: str = "",
        *,
        stream: bool = True,
        **options: Unpack[RoundTripOptions],
    ) -> AsyncGenerator[LoopEvent, None]:
        """Like :meth:`run_until_answer`, yielding progress events (streams by default).

        Yields the events of :meth:`AppClient.iter_until_answer`, ending with
        :class:`AnswerDone`; each step between two events runs in the round trip's thread. Closing
        the iterator early (``aclose()``, leaving ``async for``) or cancelling the task that
        waits on it closes the open stream.
        """
        # Imported here, as the synchronous loop does, to keep the manifest builder lazy.
        from ._registry import ToolRegistry

        check_round_trip_options(options, where="iter_until_answer")
        runs = _RoundTripRuns(self._client)
        tools, approve = options["tools"], options.get("approve")
        if approve is None and isinstance(tools, ToolRegistry):
            approve = tools.approve  # what the dispatcher would fall back to
        options["approve"] = runs.approving_on(asyncio.get_running_loop(), approve)
        steps = runs.iter_until_answer(conversation_id, query, stream=stream, **options)

        def step() -> LoopEvent | None:
            return next(steps, None)

        # One thread per round trip: a step may wait minutes (tools, approvals), and holding
        # default-executor threads that long would starve the app or deadlock an approval
        # that needs one. Created on the first step, ended after the last.
        thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=ROUND_TRIP_THREAD_PREFIX)
        try:
            while (
                event := await in_thread(step, discard=_closer(steps), executor=thread)
            ) is not None:
                yield event
        finally:
            thread.shutdown(wait=False)  # a step still running finishes, then its thread ends
            runs.stop()
            # Paused at an event, the loop closes its own stream here. Inside a step (in a
            # worker thread whose task was cancelled) it cannot be closed; the step's
            # late result is discarded by closing it there.
            with contextlib.suppress(ValueError):  # "generator already executing"
                steps.close()


async def _awaited(answer: Awaitable[bool]) -> bool:
    return await answer


def _closer(steps: Generator[LoopEvent, None, None]) -> Callable[[object], None]:
    def close(_late_event: object) -> None:
        steps.close()

    return close
