"""The round runner: parallel calls, call order, timeouts, sync and async tools."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from appclient._tools._execution import Invocation, Outcome, ToolRunner, run_awaitable


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """An event that blocked tools wait on; set at teardown so no thread outlives the test."""
    event = threading.Event()
    yield event
    event.set()


def _ticks() -> Any:
    counter = iter(range(1_000_000))
    return lambda: float(next(counter))


def test_sync_call_returns_its_value() -> None:
    """A plain function's return value is the outcome's value."""
    [outcome] = ToolRunner().run([Invocation(lambda a, b: a + b, (2,), {"b": 3})])
    assert outcome == Outcome(value=5, duration=outcome.duration)
    assert outcome.ok


def test_async_call_is_awaited() -> None:
    """A coroutine function is run on an event loop and its result returned."""

    async def double(x: int) -> int:
        await asyncio.sleep(0)
        return x * 2

    assert ToolRunner().run([Invocation(double, (21,))])[0].value == 42


def test_async_generator_is_collected() -> None:
    """An async generator of text chunks is consumed and joined."""

    async def chunks() -> AsyncIterator[str]:
        yield "a"
        yield "b"

    assert ToolRunner().run([Invocation(chunks)])[0].value == "ab"


class _AsyncChunks:
    """An async iterator that is not an async generator (like an SDK's async stream)."""

    def __init__(self) -> None:
        self._left = ["a", "b"]

    def __aiter__(self) -> _AsyncChunks:
        return self

    async def __anext__(self) -> str:
        if not self._left:
            raise StopAsyncIteration
        return self._left.pop(0)


def test_async_iterator_object_is_collected() -> None:
    """An async iterator object (not only an async generator) is consumed and joined."""
    assert ToolRunner().run([Invocation(_AsyncChunks)])[0].value == "ab"


def test_exception_is_captured_not_raised() -> None:
    """A tool's exception is reported in the outcome."""
    [outcome] = ToolRunner().run([Invocation(lambda: 1 / 0)])
    assert isinstance(outcome.error, ZeroDivisionError)
    assert not outcome.ok


def test_system_exit_is_captured() -> None:
    """Even SystemExit from a tool is reported instead of silently ending the worker."""

    def leave() -> None:
        raise SystemExit(3)

    assert isinstance(ToolRunner().run([Invocation(leave)])[0].error, SystemExit)


def test_then_runs_on_the_final_value() -> None:
    """The finishing step receives the awaited value."""

    async def value() -> int:
        return 7

    assert ToolRunner().run([Invocation(value, then=str)])[0].value == "7"


def test_then_exception_is_reported() -> None:
    """An exception of the finishing step is reported like the call's own."""

    def refuse(_: Any) -> Any:
        raise TypeError("no")

    assert isinstance(ToolRunner().run([Invocation(lambda: 1, then=refuse)])[0].error, TypeError)


def test_calls_run_in_parallel(release: threading.Event) -> None:
    """Two calls that each wait for the other finish: they ran at the same time."""
    barrier = threading.Barrier(2, timeout=5)
    outcomes = ToolRunner().run([Invocation(barrier.wait), Invocation(barrier.wait)])
    assert all(o.ok for o in outcomes)


def test_outcomes_come_in_call_order() -> None:
    """The first call finishing last still comes first."""
    second_done = threading.Event()

    def first() -> str:
        assert second_done.wait(5)
        return "first"

    def second() -> str:
        second_done.set()
        return "second"

    outcomes = ToolRunner().run([Invocation(first), Invocation(second)])
    assert [o.value for o in outcomes] == ["first", "second"]


def test_sync_timeout_abandons_the_call(release: threading.Event) -> None:
    """A sync call past its timeout is reported as timed out while others complete."""
    outcomes = ToolRunner().run(
        [Invocation(release.wait, timeout=0.02), Invocation(lambda: "fine", timeout=5)]
    )
    assert outcomes[0].timed_out
    assert outcomes[0].duration == 0.02
    assert outcomes[1].value == "fine"


def test_async_timeout_cancels_the_coroutine() -> None:
    """An async call past its timeout is cancelled and reported as timed out."""
    cancelled = threading.Event()

    async def forever() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()

    assert ToolRunner().run([Invocation(forever, timeout=0.02)])[0].timed_out
    assert cancelled.wait(5)


def test_own_timeout_error_is_an_error_not_a_timeout() -> None:
    """A TimeoutError raised by the tool itself is its error, not our timeout."""

    async def raises() -> None:
        raise TimeoutError("upstream slow")

    outcome = ToolRunner().run([Invocation(raises, timeout=5)])[0]
    assert isinstance(outcome.error, TimeoutError)
    assert not outcome.timed_out


def test_max_workers_limits_concurrency() -> None:
    """With one worker, calls run one after another."""
    active: list[int] = []
    peak: list[int] = []
    lock = threading.Lock()

    def track() -> None:
        with lock:
            active.append(1)
            peak.append(len(active))
        with lock:
            active.pop()

    ToolRunner(max_workers=1).run([Invocation(track) for _ in range(5)])
    assert max(peak) == 1


def test_max_workers_must_be_positive() -> None:
    """A runner without workers is refused."""
    with pytest.raises(ValueError, match="max_workers"):
        ToolRunner(max_workers=0)


def test_durations_use_the_injected_clock() -> None:
    """Durations are measured with the clock given."""
    [outcome] = ToolRunner(clock=_ticks()).run([Invocation(lambda: None)])
    assert outcome.duration == 1.0


def test_iter_outcomes_yields_the_first_before_the_second_finishes(
    release: threading.Event,
) -> None:
    """The first outcome is available while a later call is still running."""
    outcomes = ToolRunner().iter_outcomes([Invocation(lambda: 1), Invocation(release.wait)])
    assert next(outcomes).value == 1
    release.set()
    assert next(outcomes).value is True


def test_empty_round_yields_nothing() -> None:
    """No invocations, no outcomes."""
    assert ToolRunner().run([]) == []


def test_caller_inside_a_running_loop() -> None:
    """Async tools run even when the caller is itself inside an event loop."""

    async def tool() -> str:
        return "ok"

    async def caller() -> list[Outcome]:
        return ToolRunner().run([Invocation(tool)])

    assert asyncio.run(caller())[0].value == "ok"


def test_run_awaitable_without_a_loop() -> None:
    """run_awaitable waits for a coroutine from plain sync code."""

    async def value() -> int:
        return 1

    assert run_awaitable(value()) == 1


def test_run_awaitable_inside_a_loop() -> None:
    """run_awaitable works from sync code called inside a running loop."""

    async def value() -> int:
        return 2

    async def caller() -> Any:
        return run_awaitable(value())

    assert asyncio.run(caller()) == 2


def test_run_awaitable_raises_the_exception() -> None:
    """The awaitable's exception reaches the caller."""

    async def fail() -> None:
        raise KeyError("x")

    async def caller() -> Any:
        return run_awaitable(fail())

    with pytest.raises(KeyError):
        asyncio.run(caller())
