"""What appclient retries and how long it waits in between (pure: no sockets, no clock).

The rules are docs/protocol.md section 9's: never a call whose total timeout has passed, nor a
status another attempt cannot fix. A server's wait longer than the cap is not waited for: the
error is raised at once. The tenacity loop takes an injectable ``sleep`` and random source, so
tests never really wait.
"""

from __future__ import annotations

import math
import random as _random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timezone
from email.utils import parsedate_to_datetime
from typing import Any

import tenacity

from ._constants import (
    DEFAULT_BACKOFF_INITIAL,
    DEFAULT_BACKOFF_MAX,
    DEFAULT_MAX_RETRIES,
    DEFAULT_RETRY_AFTER_CAP,
    RETRY_AFTER_ONLY_STATUS_CODES,
    RETRYABLE_STATUS_CODES,
)
from ._errors import (
    APIStatusError,
    ConnectError,
    DeadlineExceededError,
    RequestTimeoutError,
    TransportError,
)


def parse_http_date(value: str) -> float | None:
    """Return the POSIX time of an HTTP date (RFC 9110), or ``None`` when it is not one."""
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # the asctime form and "-0000": HTTP dates are always GMT
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds the server asked to wait (``None``: absent or unreadable).

    ``retry-after-ms`` wins over ``Retry-After``. A date is compared with ``now``, which the
    client takes from the answer's own ``Date``: both clocks are then the server's.
    """
    millis = _non_negative_number(header_value(headers, "retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    value = header_value(headers, "retry-after") or ""
    seconds = _non_negative_number(value)
    if seconds is not None:
        return seconds
    moment = parse_http_date(value)
    return None if moment is None or now is None else max(0.0, moment - now)


def header_value(headers: Mapping[str, str], name: str) -> str | None:
    """Return a header's value, stripped; plain dicts are searched case-insensitively."""
    value = headers.get(name)
    if value is None and not hasattr(headers, "lower_items"):  # not requests' CI mapping
        value = next((v for k, v in headers.items() if k.lower() == name.lower()), None)
    return None if value is None else value.strip()


def _non_negative_number(text: str | None) -> float | None:
    try:
        number = float(text or "")
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


@dataclass(frozen=True)
class RetryPolicy:
    """Which failures are retried, how often, and how long to wait (the module's rules)."""

    max_retries: int = DEFAULT_MAX_RETRIES
    backoff_initial: float = DEFAULT_BACKOFF_INITIAL
    backoff_max: float = DEFAULT_BACKOFF_MAX
    retry_after_cap: float = DEFAULT_RETRY_AFTER_CAP
    random: Callable[[], float] = field(default=_random.random, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int):
            raise TypeError(f"max_retries must be an int, got {type(self.max_retries).__name__}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {self.max_retries}")
        if self.backoff_initial < 0 or self.backoff_max < 0 or self.retry_after_cap < 0:
            raise ValueError("backoff and retry-after limits must not be negative")

    def is_retryable(self, error: BaseException, *, stream: bool = False) -> bool:
        """Whether another attempt may fix ``error`` (a stream's read timeout: never)."""
        if isinstance(error, DeadlineExceededError):
            return False  # the call's whole time is spent
        if isinstance(error, RequestTimeoutError) and not isinstance(error, ConnectError):
            return not stream  # a read timeout: the run may be under way already
        if isinstance(error, TransportError):
            return True
        if isinstance(error, APIStatusError):
            if error.status_code in RETRY_AFTER_ONLY_STATUS_CODES:
                return error.retry_after is not None and error.retry_after <= self.retry_after_cap
            if error.status_code not in RETRYABLE_STATUS_CODES:
                return False
            return error.retry_after is None or error.retry_after <= self.retry_after_cap
        return False

    def delay(self, attempt: int, error: BaseException | None = None) -> float:
        """Seconds to wait after ``attempt`` failed attempts: full jitter, or the server's wait."""
        retry_after = getattr(error, "retry_after", None)
        if isinstance(retry_after, (int, float)) and retry_after >= 0:
            return min(float(retry_after), self.retry_after_cap)
        exponent = min(max(attempt - 1, 0), 62)  # 2**62 already dwarfs any sane maximum
        return self.random() * min(self.backoff_max, self.backoff_initial * 2.0**exponent)

    def retrying(
        self,
        *,
        stream: bool = False,
        sleep: Callable[[float], Any],
        before_sleep: Callable[[tenacity.RetryCallState], None] | None = None,
        asynchronous: bool = False,
    ) -> tenacity.Retrying | tenacity.AsyncRetrying:
        """The tenacity loop for one kind of request (``AsyncRetrying`` awaits ``sleep``).

        It re-raises the last error. ``stream`` says whether its requests are streamed runs,
        whose read timeout is never retried; tenacity keeps per-thread state, so threads may
        share a loop.
        """

        def should_retry(state: tenacity.RetryCallState) -> bool:
            outcome = state.outcome
            if outcome is None or not outcome.failed:
                return False
            error = outcome.exception()
            return error is not None and self.is_retryable(error, stream=stream)

        def wait(state: tenacity.RetryCallState) -> float:
            error = state.outcome.exception() if state.outcome is not None else None
            return self.delay(state.attempt_number, error)

        loop = tenacity.AsyncRetrying if asynchronous else tenacity.Retrying
        return loop(
            stop=tenacity.stop_after_attempt(self.max_retries + 1),
            retry=should_retry,
            wait=wait,
            sleep=sleep,
            before_sleep=before_sleep,
            reraise=True,
        )
