"""How long a call may take and how much a response may hold (pure settings).

A client never trusts a server to be small or quick: :class:`Timeout` and :class:`Limits` are
frozen values checked once, when the client is made.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, fields
from typing import Any, Final, TypeVar, cast

from ._errors import InvalidRequestError

_MIB: Final = 1024 * 1024
_F = TypeVar("_F", bound=Callable[..., Any])


def cache_short_keys(maxsize: int, *, max_chars: int = 1000) -> Callable[[_F], _F]:
    """``lru_cache(maxsize)`` keeping only calls whose arguments add up to ``max_chars``.

    A cache keyed by what a peer sends is then bounded in bytes, not only in entries.
    """

    def decorate(function: _F) -> _F:
        cached = functools.lru_cache(maxsize=maxsize)(function)

        @functools.wraps(function)
        def call(*args: Hashable) -> Any:
            if sum(len(str(arg)) for arg in args) <= max_chars:
                return cached(*args)
            return function(*args)

        call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        return cast(_F, call)

    return decorate


def _check(
    owner: object, *, label: str, optional: tuple[str, ...] = (), integers: bool = False
) -> None:
    kind, noun = (int, "whole number") if integers else ((int, float), "number")
    for item in fields(owner):  # type: ignore[arg-type]
        value = getattr(owner, item.name)
        if value is None and item.name in optional:
            continue
        if isinstance(value, bool) or not isinstance(value, kind) or not 0 < value < math.inf:
            maybe = " or None" if item.name in optional else ""
            raise InvalidRequestError(
                f"{label}: {item.name} must be a positive {noun}{maybe}, got {value!r}"
            )


@dataclass(frozen=True, slots=True)
class Timeout:
    """Seconds a call may wait.

    Attributes:
        connect: For a TCP (and TLS) connection.
        read: Between two pieces of data: for the answer's first byte, then between two
            reads of its body (of a stream: between two pieces of the stream).
        total: For the whole call, from sending the request to the last byte of the answer,
            retries included; ``None`` for no overall limit. A server that keeps sending a
            byte now and then never trips ``read``, but cannot outlast ``total``. Streamed
            runs count too: pass ``total=None`` for a stream meant to last longer.
    """

    connect: float = 10.0
    read: float = 120.0
    total: float | None = 600.0

    def __post_init__(self) -> None:
        _check(self, label="timeout", optional=("total",))


@dataclass(frozen=True, slots=True)
class Limits:
    """How much one response may bring.

    Attributes:
        max_body_bytes: A non-stream answer's body, after decompression (and before it, as
            sent): 64 MiB.
        max_stream_bytes: A streamed run's body in all: 1 GiB; ``None`` for no limit.
        max_stream_events: Events of one streamed run in all: 1,000,000; ``None`` for none.
        max_collected_bytes: How much of a stream is kept for
            :meth:`~appclient.types.RunStream.collect` (the answer text and events, measured as
            they arrived on the wire): 16 MiB. Past it the stream keeps nothing more, so a
            stream that is only iterated holds constant memory however long it runs; its
            ``collect()`` then raises :class:`~appclient.errors.ResponseTooLargeError`.
    """

    max_body_bytes: int = 64 * _MIB
    max_stream_bytes: int | None = 1024 * _MIB
    max_stream_events: int | None = 1_000_000
    max_collected_bytes: int = 16 * _MIB

    def __post_init__(self) -> None:
        _check(
            self, label="limits", optional=("max_stream_bytes", "max_stream_events"), integers=True
        )


def parse_timeout(timeout: float | tuple[float, ...] | Timeout | None) -> Timeout:
    """The :class:`Timeout` of a number (connect and read), a tuple, a Timeout or ``None``."""
    if timeout is None:
        return Timeout()
    if isinstance(timeout, Timeout):
        return timeout
    if isinstance(timeout, tuple):
        if len(timeout) not in (2, 3):
            raise InvalidRequestError(
                "timeout must be a number, a (connect, read) pair, a (connect, read, total) "
                f"triple or a Timeout, got {timeout!r}"
            )
        return Timeout(*timeout)
    return Timeout(connect=timeout, read=timeout)
