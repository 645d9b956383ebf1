"""The pure retry policy: what is retried, backoff with jitter, Retry-After parsing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timezone
from email.utils import format_datetime

import pytest
import tenacity

from appclient import APIStatusError, RunError, TransportError
from appclient._core._constants import DEFAULT_RETRY_AFTER_CAP
from appclient._core._errors import status_error_class
from appclient._core._retry import RetryPolicy, parse_http_date, parse_retry_after
from appclient.errors import (
    ConnectError,
    ConnectTimeoutError,
    RequestTimeoutError,
    ResponseDecodeError,
)

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc).timestamp()


def _status(code: int, retry_after: float | None = None) -> APIStatusError:
    return status_error_class(code)(status_code=code, retry_after=retry_after)


@pytest.mark.parametrize("code", [408, 429, 500, 502, 503, 504])
def test_retryable_statuses(code: int) -> None:
    """408, 429 and the 5xx gateway failures are retried."""
    assert RetryPolicy().is_retryable(_status(code))


@pytest.mark.parametrize("code", [400, 401, 403, 404, 409, 413, 422])
def test_client_errors_are_never_retried(code: int) -> None:
    """Statuses another attempt cannot fix are not retried."""
    assert not RetryPolicy().is_retryable(_status(code))


def test_busy_409_with_retry_after_is_retried() -> None:
    """A 409 that names a wait (busy conversation, key in use) is retried within the cap."""
    policy = RetryPolicy(retry_after_cap=30)
    assert policy.is_retryable(_status(409, retry_after=1))
    assert not policy.is_retryable(_status(409, retry_after=31))


def test_connection_errors_are_retried_for_streams_too() -> None:
    """A failed connection is retried whether or not the request streams."""
    policy = RetryPolicy()
    assert policy.is_retryable(ConnectError("refused"), stream=False)
    assert policy.is_retryable(ConnectError("refused"), stream=True)
    assert policy.is_retryable(TransportError("broken"), stream=True)


def test_connect_timeouts_are_retried_for_streams_too() -> None:
    """A connect timeout sent nothing, so a stream request is retried after it as well."""
    policy = RetryPolicy()
    assert policy.is_retryable(ConnectTimeoutError("no connection"), stream=True)


def test_timeouts_are_retried_only_without_stream() -> None:
    """A timeout is retried for a plain request but not for a stream."""
    policy = RetryPolicy()
    assert policy.is_retryable(RequestTimeoutError("slow"), stream=False)
    assert not policy.is_retryable(RequestTimeoutError("slow"), stream=True)


@pytest.mark.parametrize(
    "error", [ResponseDecodeError("bad"), RunError("failed"), ValueError("x"), KeyError("k")]
)
def test_other_errors_are_not_retried(error: Exception) -> None:
    """Decode errors, run errors and programming errors are raised at once."""
    assert not RetryPolicy().is_retryable(error)


def test_retry_after_beyond_the_cap_gives_up() -> None:
    """A server wait longer than the cap is not waited for."""
    policy = RetryPolicy(retry_after_cap=30)
    assert policy.is_retryable(_status(429, retry_after=30))
    assert not policy.is_retryable(_status(429, retry_after=31))


def test_backoff_ceiling_doubles_up_to_the_maximum() -> None:
    """With random() near 1 the waits follow initial * 2**n, capped."""
    policy = RetryPolicy(backoff_initial=0.5, backoff_max=3.0, random=lambda: 0.999999)
    waits = [policy.delay(n) for n in range(1, 6)]
    assert waits == pytest.approx([0.5, 1.0, 2.0, 3.0, 3.0], rel=1e-5)


def test_backoff_uses_full_jitter() -> None:
    """The wait is random() times the ceiling: zero is possible, the ceiling is not exceeded."""
    assert RetryPolicy(backoff_initial=1.0, backoff_max=10.0, random=lambda: 0.0).delay(3) == 0.0
    assert RetryPolicy(backoff_initial=1.0, backoff_max=10.0, random=lambda: 0.25).delay(3) == 1.0


def test_backoff_survives_huge_attempt_numbers() -> None:
    """A very large attempt number neither overflows nor exceeds the maximum."""
    assert RetryPolicy(backoff_max=8.0, random=lambda: 0.5).delay(10_000) == 4.0


def test_delay_prefers_the_server_retry_after() -> None:
    """A retry_after on the error is used instead of the jittered backoff."""
    policy = RetryPolicy(random=lambda: 0.5)
    assert policy.delay(1, _status(503, retry_after=7.0)) == 7.0
    assert policy.delay(1, _status(503)) == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after": " 1.5 "}, 1.5),
        ({"Retry-After": "0"}, 0.0),
        ({"retry-after-ms": "250"}, 0.25),
        ({"Retry-After-Ms": "250", "Retry-After": "9"}, 0.25),
        ({"retry-after-ms": "soon", "Retry-After": "9"}, 9.0),
        ({"Retry-After": "-1"}, None),
        ({"Retry-After": "nan"}, None),
        ({"Retry-After": "later"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after_seconds(headers: dict[str, str], expected: float | None) -> None:
    """Delta seconds and milliseconds are read; bad values are ignored."""
    assert parse_retry_after(headers, now=NOW) == expected


def test_parse_retry_after_http_date() -> None:
    """An HTTP date is turned into seconds from now."""
    later = format_datetime(datetime.fromtimestamp(NOW + 12, tz=timezone.utc), usegmt=True)
    assert parse_retry_after({"Retry-After": later}, now=NOW) == pytest.approx(12.0)


def test_parse_retry_after_date_in_the_past_is_zero() -> None:
    """A date already passed means retry now."""
    earlier = format_datetime(datetime.fromtimestamp(NOW - 60, tz=timezone.utc), usegmt=True)
    assert parse_retry_after({"Retry-After": earlier}, now=NOW) == 0.0


def test_parse_retry_after_date_needs_a_clock() -> None:
    """Without a current time a date cannot be turned into a wait."""
    assert parse_retry_after({"Retry-After": "Fri, 02 Jan 2026 03:04:17 GMT"}) is None


@pytest.fixture
def far_from_utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if not hasattr(time, "tzset"):
        pytest.skip("time.tzset is Unix only")
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("far_from_utc")
@pytest.mark.parametrize("value", ["Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 -0000"])
def test_parse_http_date_reads_zoneless_forms_as_utc(value: str) -> None:
    """The asctime form (no zone) is GMT per RFC 9110, not the machine's local time."""
    expected = datetime(1994, 11, 6, 8, 49, 37, tzinfo=timezone.utc).timestamp()
    assert parse_http_date(value) == expected


def test_parse_http_date_rejects_garbage() -> None:
    """Text that is not a date gives None."""
    assert parse_http_date("not a date") is None
    assert parse_http_date("Fri, 02 Jan 2026 03:04:05 GMT") == NOW


def test_policy_rejects_negative_retries() -> None:
    """max_retries below zero is refused."""
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=-1)


def test_policy_rejects_non_int_retries() -> None:
    """max_retries must be an int (not a bool or float)."""
    with pytest.raises(TypeError):
        RetryPolicy(max_retries=True)
    with pytest.raises(TypeError):
        RetryPolicy(max_retries=1.5)  # type: ignore[arg-type]


def test_policy_rejects_negative_limits() -> None:
    """Negative backoff or cap values are refused."""
    with pytest.raises(ValueError, match="negative"):
        RetryPolicy(retry_after_cap=-1)


def test_default_cap_comes_from_constants() -> None:
    """The policy's cap is the documented default."""
    assert RetryPolicy().retry_after_cap == DEFAULT_RETRY_AFTER_CAP


def _flaky(failures: list[BaseException]):
    calls: list[None] = []  # one entry per attempt

    def call() -> str:
        calls.append(None)
        if failures:
            raise failures.pop(0)
        return "ok"

    return call, calls


def test_retrying_sleeps_between_attempts_and_succeeds() -> None:
    """The tenacity loop retries, sleeping through the injected sleep only."""
    sleeps: list[float] = []
    policy = RetryPolicy(max_retries=2, random=lambda: 0.5)
    call, calls = _flaky([_status(503), _status(502, retry_after=4.0)])
    assert policy.retrying(sleep=sleeps.append)(call) == "ok"
    assert len(calls) == 3
    assert sleeps == [0.25, 4.0]


def test_retrying_gives_up_after_max_retries_with_the_last_error() -> None:
    """After 1 + max_retries attempts the last error itself is raised."""
    policy = RetryPolicy(max_retries=1, random=lambda: 0.0)
    last = _status(500)
    call, calls = _flaky([_status(503), last, _status(503)])
    with pytest.raises(APIStatusError) as caught:
        policy.retrying(sleep=lambda _: None)(call)
    assert caught.value is last
    assert len(calls) == 2


def test_a_stream_loop_raises_a_timeout_at_once_and_a_plain_loop_retries_it() -> None:
    """A streamed run's read timeout is final; a plain request's is retried."""
    policy = RetryPolicy(max_retries=3, random=lambda: 0.0)
    call, calls = _flaky([RequestTimeoutError("slow")])
    with pytest.raises(RequestTimeoutError):
        policy.retrying(stream=True, sleep=lambda _: None)(call)
    assert len(calls) == 1
    call, calls = _flaky([RequestTimeoutError("slow")])
    assert policy.retrying(stream=False, sleep=lambda _: None)(call) == "ok"


def test_retrying_calls_before_sleep() -> None:
    """The before_sleep hook sees each retry (the client logs there)."""
    seen: list[int] = []

    def hook(state: tenacity.RetryCallState) -> None:
        seen.append(state.attempt_number)

    policy = RetryPolicy(max_retries=2, random=lambda: 0.0)
    call, _ = _flaky([_status(503), _status(503)])
    policy.retrying(sleep=lambda _: None, before_sleep=hook)(call)
    assert seen == [1, 2]


def test_zero_retries_means_one_attempt() -> None:
    """max_retries=0 sends once and raises the first failure."""
    policy = RetryPolicy(max_retries=0)
    call, calls = _flaky([_status(503)])
    with pytest.raises(APIStatusError):
        policy.retrying(sleep=lambda _: None)(call)
    assert len(calls) == 1
