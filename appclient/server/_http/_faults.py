"""Fault injection for tests: failing, holding, delaying requests and cutting streams.

A fault applies to the next request(s) before they are looked at, so an injected failure
changes no state. Held requests wait on an event :meth:`FaultInjector.release` (and stopping
the server) sets, so tests never sit out a sleep.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from dataclasses import dataclass

from .._settings import DEFAULT_HANG_SECONDS
from ._responses import HTTPProblem

_CODES = {
    408: "RequestTimeout",
    429: "TooManyRequests",
    500: "InternalError",
    502: "BadGateway",
    503: "ServiceUnavailable",
    504: "GatewayTimeout",
}


@dataclass
class _RequestFault:
    remaining: int
    problem: HTTPProblem | None  # the answer after the hold; None: serve the request
    seconds: float = 0.0  # the hold


class FaultInjector:
    """Makes the next requests of a server fail, hang, slow down, or stop streaming early.

    Example:
        >>> faults = FaultInjector()
        >>> faults.fail_next(2, status=503, retry_after=1)
        >>> faults.pending
        2
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._applied = threading.Condition(self._lock)  # notified as each fault is applied
        self._request_faults: deque[_RequestFault] = deque()
        self._stream_cuts: deque[int] = deque()
        self._wake = threading.Event()
        self._injected = 0

    def __repr__(self) -> str:
        return f"FaultInjector(pending={self.pending}, injected={self.injected})"

    @property
    def pending(self) -> int:
        """Requests that will still be failed, held or delayed."""
        with self._lock:
            return sum(fault.remaining for fault in self._request_faults)

    @property
    def injected(self) -> int:
        """Faults applied so far (failed, held, delayed requests and cut streams)."""
        with self._lock:
            return self._injected

    def wait_injected(self, count: int, *, timeout: float) -> bool:
        """Block until at least ``count`` faults have been applied (a test's sync point).

        Args:
            count: The number of applied faults (see :attr:`injected`) to wait for.
            timeout: The longest wait, in seconds.

        Returns:
            False when ``timeout`` ran out first.
        """
        with self._applied:
            return self._applied.wait_for(lambda: self._injected >= count, timeout=timeout)

    def _queue(self, fault: _RequestFault) -> None:
        if fault.remaining < 1:
            raise ValueError("count must be at least 1")
        with self._lock:
            self._request_faults.append(fault)

    def fail_next(
        self, count: int = 1, *, status: int = 503, retry_after: float | None = None
    ) -> None:
        """Answer the next ``count`` requests with ``status`` and a JSON error body.

        Args:
            count: How many requests fail.
            status: The HTTP status, 400-599.
            retry_after: Seconds to put in a ``Retry-After`` header (none when ``None``).

        Raises:
            ValueError: ``count`` is below 1, ``status`` is not 400-599, or ``retry_after``
                is negative.
        """
        if not 400 <= status <= 599:
            raise ValueError("status must be an HTTP error status (400-599)")
        if retry_after is not None and retry_after < 0:
            raise ValueError("retry_after must not be negative")
        headers = {}
        if retry_after is not None:
            whole = float(retry_after).is_integer()
            headers["Retry-After"] = str(int(retry_after)) if whole else f"{retry_after:g}"
        code = _CODES.get(status, "InjectedFault")
        failure = HTTPProblem(status, code, "injected fault", headers=headers)
        self._queue(_RequestFault(count, failure))

    def hang_next(self, count: int = 1, *, timeout: float = DEFAULT_HANG_SECONDS) -> None:
        """Hold the next ``count`` requests unprocessed, so the client's timeout fires.

        Args:
            count: How many requests are held.
            timeout: Seconds after which a held request is answered 503 (as on :meth:`release`
                or when the server stops); ``math.inf`` holds it until one of those.

        Raises:
            ValueError: ``count`` is below 1, or ``timeout`` is negative or NaN.
        """
        if not timeout >= 0:
            raise ValueError("timeout must not be negative")
        held = HTTPProblem(503, "ServiceUnavailable", "injected fault: the request was held")
        self._queue(_RequestFault(count, held, seconds=timeout))

    def delay_next(self, count: int = 1, *, seconds: float) -> None:
        """Hold each of the next ``count`` requests ``seconds`` (or until released), then serve.

        Args:
            count: How many requests are delayed.
            seconds: How long each is held before it is processed normally; ``math.inf``
                holds it until :meth:`release` or the server stops.

        Raises:
            ValueError: ``count`` is below 1 or ``seconds`` is negative or NaN.
        """
        if not seconds >= 0:
            raise ValueError("seconds must not be negative")
        self._queue(_RequestFault(count, None, seconds=seconds))

    def cut_stream_after(self, messages: int, *, count: int = 1) -> None:
        """Close the next ``count`` streamed responses after ``messages`` SSE messages.

        The run completes and is saved; only its delivery stops, as when a connection breaks.

        Args:
            messages: SSE messages delivered before the connection is closed (0: none).
            count: How many streamed responses are cut.

        Raises:
            ValueError: ``messages`` is negative or ``count`` is below 1.
        """
        if messages < 0 or count < 1:
            raise ValueError("messages must be >= 0 and count >= 1")
        with self._lock:
            self._stream_cuts.extend([messages] * count)

    def release(self) -> None:
        """Wake every held or delayed request now."""
        with self._lock:
            wake, self._wake = self._wake, threading.Event()
        wake.set()

    def reset(self) -> None:
        """Drop every queued fault, wake held requests and count :attr:`injected` from 0.

        For tests sharing one server, so each :meth:`wait_injected` counts its own faults.
        """
        with self._lock:
            self._request_faults.clear()
            self._stream_cuts.clear()
            self._injected = 0
        self.release()

    def before_request(self) -> HTTPProblem | None:
        """Apply the next request fault, if any (the server calls it for each request).

        Returns:
            The error to answer instead of serving the request, or ``None`` to serve it.
        """
        with self._lock:
            if not self._request_faults:
                return None
            fault = self._request_faults[0]
            fault.remaining -= 1
            if fault.remaining == 0:
                self._request_faults.popleft()
            self._injected += 1
            self._applied.notify_all()
            wake = self._wake
        if fault.seconds:
            # Event.wait overflows on an infinite timeout; None is its "until set".
            wake.wait(None if math.isinf(fault.seconds) else fault.seconds)
        return fault.problem

    def stream_limit(self) -> int | None:
        """Return how many messages the next stream may send (using up one cut), or None."""
        with self._lock:
            if not self._stream_cuts:
                return None
            self._injected += 1
            self._applied.notify_all()
            return self._stream_cuts.popleft()
