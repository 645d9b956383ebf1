"""FaultInjector: failures, holds and delays apply in order; stream cuts are counted."""

from __future__ import annotations

import math
import threading

import pytest

from appclient.testing import FaultInjector


def test_requests_pass_when_nothing_is_queued() -> None:
    """No fault queued means the request is served."""
    assert FaultInjector().before_request() is None


def test_fail_next_fails_exactly_count_requests() -> None:
    """fail_next(2) fails two requests with the status and Retry-After, then stops."""
    faults = FaultInjector()
    faults.fail_next(2, status=429, retry_after=1.5)
    first, second = faults.before_request(), faults.before_request()
    assert first is not None
    assert second is not None
    assert (first.status, first.code) == (429, "TooManyRequests")
    assert first.headers == {"Retry-After": "1.5"}
    assert faults.before_request() is None
    assert faults.injected == 2


def test_integer_retry_after_is_written_as_an_integer() -> None:
    """A whole number of seconds is written without a decimal point."""
    faults = FaultInjector()
    faults.fail_next(status=503, retry_after=2)
    problem = faults.before_request()
    assert problem is not None
    assert problem.headers == {"Retry-After": "2"}


def test_faults_apply_in_the_order_they_were_queued() -> None:
    """A failure queued before a delay comes first."""
    faults = FaultInjector()
    faults.fail_next(1)
    faults.delay_next(1, seconds=0)
    assert faults.before_request() is not None
    assert faults.before_request() is None
    assert faults.pending == 0


def test_hang_is_released_by_release() -> None:
    """A held request answers 503 as soon as release() is called."""
    faults = FaultInjector()
    faults.hang_next(1, timeout=60)
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(faults.before_request()))
    worker.start()
    assert faults.wait_injected(1, timeout=5)
    faults.release()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert getattr(result[0], "status", None) == 503


@pytest.mark.parametrize("hold", ["hang", "delay"])
def test_an_infinite_hold_lasts_until_release(hold: str) -> None:
    """hang_next(timeout=math.inf) / delay_next(seconds=math.inf) hold until release()."""
    faults = FaultInjector()
    if hold == "hang":
        faults.hang_next(1, timeout=math.inf)
    else:
        faults.delay_next(1, seconds=math.inf)
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(faults.before_request()))
    worker.start()
    assert faults.wait_injected(1, timeout=5)
    faults.release()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert getattr(result[0], "status", None) == (503 if hold == "hang" else None)


def test_hang_times_out_by_itself() -> None:
    """A held request also ends after its own timeout."""
    faults = FaultInjector()
    faults.hang_next(1, timeout=0)
    problem = faults.before_request()
    assert problem is not None
    assert problem.status == 503


def test_stream_cuts_are_consumed_one_by_one() -> None:
    """cut_stream_after(k, count=2) limits the next two streams."""
    faults = FaultInjector()
    faults.cut_stream_after(1, count=2)
    assert [faults.stream_limit(), faults.stream_limit(), faults.stream_limit()] == [1, 1, None]


def test_reset_drops_everything() -> None:
    """reset() forgets queued faults."""
    faults = FaultInjector()
    faults.fail_next(3)
    faults.cut_stream_after(0)
    faults.reset()
    assert faults.before_request() is None
    assert faults.stream_limit() is None


def test_reset_counts_injected_faults_from_zero() -> None:
    """After reset(), wait_injected(1) waits for a new fault (a shared server's next test)."""
    faults = FaultInjector()
    faults.fail_next(1)
    assert faults.before_request() is not None
    faults.reset()
    assert faults.injected == 0
    assert faults.wait_injected(1, timeout=0) is False


@pytest.mark.parametrize(
    "call",
    [
        lambda f: f.fail_next(0),
        lambda f: f.fail_next(1, status=200),
        lambda f: f.fail_next(1, retry_after=-1),
        lambda f: f.delay_next(1, seconds=-1),
        lambda f: f.delay_next(1, seconds=math.nan),
        lambda f: f.hang_next(1, timeout=-1),
        lambda f: f.cut_stream_after(-1),
    ],
)
def test_nonsense_arguments_are_refused(call) -> None:
    """Counts below one, non-error statuses and negative times raise ValueError."""
    with pytest.raises(ValueError):  # noqa: PT011 - the messages are checked in the API docs
        call(FaultInjector())


def test_repr_shows_counts() -> None:
    """The repr tells how many faults are pending and applied."""
    faults = FaultInjector()
    faults.fail_next(2)
    assert "pending=2" in repr(faults)


def test_wait_injected_reports_a_timeout() -> None:
    """Waiting for a fault that is never applied returns False when the timeout runs out."""
    assert FaultInjector().wait_injected(1, timeout=0) is False
