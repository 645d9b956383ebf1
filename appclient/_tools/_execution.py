"""Running the tool calls of one round: threads, event loops, timeouts, call order.

Each call runs on a daemon worker thread, so a hung tool is abandoned at its timeout without
blocking the program or its exit, even from inside a running event loop. Async tools run on
a fresh event loop in their worker thread and are cancelled at their timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import math
import queue
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._core._constants import DEFAULT_TOOL_WORKERS, DEFAULT_WORKER_IDLE_SECONDS
from ._tool_results import collect_async_iterator


@dataclass(frozen=True)
class Invocation:
    """One call to make: ``then`` is applied to its value in the worker, within the timeout."""

    func: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    timeout: float | None = None
    then: Callable[[Any], Any] | None = None


@dataclass(frozen=True)
class Outcome:
    """How one invocation ended: a value (after ``then``), an exception, or a timeout."""

    value: Any = None
    error: BaseException | None = None
    timed_out: bool = False
    duration: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the call returned normally within its timeout."""
        return self.error is None and not self.timed_out


class _AsyncTimeoutError(Exception):
    """Raised inside a worker when an awaitable ran past its timeout."""


class _WorkerPool:
    """Daemon threads that grow on demand and exit after some idle time.

    Unlike ``ThreadPoolExecutor``'s, an abandoned tool never keeps the program from exiting,
    and a stuck worker never starves new calls: a task with no idle worker gets a new one.
    """

    def __init__(self, *, idle_seconds: float) -> None:
        self._tasks: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._idle_seconds = idle_seconds

    def submit(self, task: Callable[[], None]) -> None:
        with self._lock:
            # Reserve an idle worker (or start one) and enqueue under the same lock, so an idle
            # worker deciding to exit always sees the task its reservation stands for.
            if self._idle > 0:
                self._idle -= 1
            else:
                threading.Thread(target=self._work, name="appclient-tool", daemon=True).start()
            self._tasks.put(task)

    def _work(self) -> None:
        while True:
            try:
                task = self._tasks.get(timeout=self._idle_seconds)
            except queue.Empty:
                with self._lock:
                    if not self._tasks.empty():
                        continue
                    self._idle -= 1
                    return
            task()
            with self._lock:
                self._idle += 1


_POOL = _WorkerPool(idle_seconds=DEFAULT_WORKER_IDLE_SECONDS)


async def _bounded(awaitable: Awaitable[Any], timeout: float | None) -> Any:
    task = asyncio.ensure_future(awaitable)
    done, _ = await asyncio.wait({task}, timeout=timeout)
    if not done:
        task.cancel()
        # The tool's own handling of the cancellation is its business; we only report it.
        with contextlib.suppress(BaseException):
            await task
        raise _AsyncTimeoutError
    return task.result()


def _execute(invocation: Invocation, clock: Callable[[], float]) -> Outcome:
    start = clock()
    try:
        value = invocation.func(*invocation.args, **invocation.kwargs)
        if isinstance(value, AsyncIterator):  # an async generator, or an SDK's async stream
            value = collect_async_iterator(value)
        if inspect.isawaitable(value):
            value = asyncio.run(_bounded(value, invocation.timeout))
        if invocation.then is not None:
            value = invocation.then(value)
    except _AsyncTimeoutError:
        return Outcome(timed_out=True, duration=clock() - start)
    except BaseException as exc:  # a tool's SystemExit must be reported, not end the thread
        return Outcome(error=exc, duration=clock() - start)
    return Outcome(value=value, duration=clock() - start)


class ToolRunner:
    """Runs invocations in parallel (``max_workers`` at a time), outcomes in call order."""

    def __init__(
        self,
        *,
        max_workers: int = DEFAULT_TOOL_WORKERS,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if max_workers < 1:
            raise ValueError(f"max_workers must be at least 1, got {max_workers}")
        self.max_workers = max_workers
        self._clock = clock

    def run(self, invocations: Sequence[Invocation]) -> list[Outcome]:
        """Run every invocation and return their outcomes in call order."""
        return list(self.iter_outcomes(invocations))

    def iter_outcomes(self, invocations: Sequence[Invocation]) -> Iterator[Outcome]:
        """Start the invocations; yield each outcome in call order as soon as it is known."""
        finished: queue.SimpleQueue[tuple[int, Outcome]] = queue.SimpleQueue()
        outcomes: dict[int, Outcome] = {}
        running: dict[int, float] = {}  # index -> deadline (time.monotonic; inf: none)
        waiting = list(reversed(range(len(invocations))))  # popped in call order

        def start(index: int) -> None:
            invocation = invocations[index]
            timeout = math.inf if invocation.timeout is None else invocation.timeout
            running[index] = time.monotonic() + timeout
            _POOL.submit(lambda: finished.put((index, _execute(invocation, self._clock))))

        for index in range(len(invocations)):
            while True:
                while waiting and len(running) < self.max_workers:
                    start(waiting.pop())
                if index in outcomes:
                    break
                deadline = min(running.values())  # the call of this index is running
                wait = None if deadline == math.inf else max(0.0, deadline - time.monotonic())
                try:
                    done, outcome = finished.get(timeout=wait)
                except queue.Empty:
                    for late in [i for i, end in running.items() if end <= time.monotonic()]:
                        del running[late]
                        timeout = invocations[late].timeout or 0.0
                        outcomes[late] = Outcome(timed_out=True, duration=timeout)
                    continue
                if running.pop(done, None) is not None:  # an abandoned call's result is dropped
                    outcomes[done] = outcome
            yield outcomes.pop(index)


def run_awaitable(awaitable: Awaitable[Any]) -> Any:
    """Wait for an awaitable from synchronous code, in a worker thread if a loop runs here."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_bounded(awaitable, None))
    outcome = ToolRunner(max_workers=1).run([Invocation(lambda: awaitable)])[0]
    if outcome.error is not None:
        raise outcome.error
    return outcome.value
