"""Idempotency-Key: the first answer is replayed; misuse is a clear 409 or 422."""

from __future__ import annotations

import pytest

from appclient.server import MemoryStore
from appclient.server._http._responses import HTTPProblem, Response, json_response, sse_response
from appclient.server._state._idempotency import (
    REPLAY_HEADER,
    IdempotencyGuard,
    check_key,
    fingerprint,
)
from appclient.server._state._state import StoredResponse


class Counter:
    """Produces a fixed response and counts how often it was asked."""

    def __init__(self, response: Response) -> None:
        self.calls = 0
        self.response = response

    def __call__(self, replay_key: str | None) -> Response:
        """Count and answer."""
        self.calls += 1
        return self.response


def _serve(guard: IdempotencyGuard, produce, *, key: str | None = "k", fp: str = "fp") -> Response:
    return guard.serve(key=key, owner="owner", request_fingerprint=fp, produce=produce)


def test_repeated_key_replays_the_first_answer() -> None:
    """The second request with the key is not run; it gets the same bytes and request id."""
    guard = IdempotencyGuard(MemoryStore())
    produce = Counter(json_response({"x": 1}, request_id="first"))
    first = _serve(guard, produce)
    second = _serve(guard, produce)
    assert produce.calls == 1
    assert second.body == first.body
    assert second.request_id == "first"
    assert (REPLAY_HEADER, "true") in second.headers


def test_stream_answers_replay_as_the_same_stream() -> None:
    """A stream's replay has the same SSE messages."""
    guard = IdempotencyGuard(MemoryStore())
    produce = Counter(sse_response(['{"a":1}', '{"b":2}'], request_id="s"))
    first = _serve(guard, produce)
    second = _serve(guard, produce)
    assert second.chunks == first.chunks
    assert second.chunks is not None


def test_without_a_key_every_request_runs() -> None:
    """No key, no deduplication."""
    guard = IdempotencyGuard(MemoryStore())
    produce = Counter(json_response({}, request_id="r"))
    _serve(guard, produce, key=None)
    _serve(guard, produce, key=None)
    assert produce.calls == 2


def test_same_key_different_request_is_422() -> None:
    """Reusing a key for another request is refused."""
    guard = IdempotencyGuard(MemoryStore())
    _serve(guard, Counter(json_response({}, request_id="r")), fp="one")
    with pytest.raises(HTTPProblem) as caught:
        _serve(guard, Counter(json_response({}, request_id="r")), fp="two")
    assert (caught.value.status, caught.value.code) == (422, "IdempotencyKeyReused")


def test_key_in_flight_is_409() -> None:
    """A repeat while the first request still runs is a retryable 409."""
    guard = IdempotencyGuard(MemoryStore())

    def produce(_: str | None) -> Response:
        with pytest.raises(HTTPProblem) as caught:
            _serve(guard, Counter(json_response({}, request_id="inner")))
        assert caught.value.status == 409
        return json_response({}, request_id="outer")

    _serve(guard, produce)


@pytest.mark.parametrize("failure", ["status", "exception"])
def test_failures_are_not_stored(failure: str) -> None:
    """A failed first attempt leaves the key free, so the retry runs for real."""
    guard = IdempotencyGuard(MemoryStore())

    def fail(_: str | None) -> Response:
        if failure == "exception":
            raise HTTPProblem(404, "NotFound", "x")
        return Response(status=500, request_id="r")

    with pytest.raises(HTTPProblem) if failure == "exception" else _nothing():
        _serve(guard, fail)
    produce = Counter(json_response({}, request_id="ok"))
    _serve(guard, produce)
    assert produce.calls == 1


class _nothing:  # noqa: N801 - a tiny context manager standing in for "no exception expected"
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


def test_keys_are_scoped_to_the_owner() -> None:
    """Two owners using the same key do not see each other's answers."""
    guard = IdempotencyGuard(MemoryStore())
    produce = Counter(json_response({}, request_id="r"))
    guard.serve(key="k", owner="a", request_fingerprint="fp", produce=produce)
    guard.serve(key="k", owner="b", request_fingerprint="fp", produce=produce)
    assert produce.calls == 2


def test_fingerprint_ignores_key_order() -> None:
    """Re-encoded bodies with another key order have the same fingerprint."""
    assert fingerprint("/p", {"a": 1, "b": 2}) == fingerprint("/p", {"b": 2, "a": 1})
    assert fingerprint("/p", {"a": 1}) != fingerprint("/q", {"a": 1})


@pytest.mark.parametrize(("key", "expected"), [(None, None), ("", None), ("  k1 ", "k1")])
def test_check_key_accepts_and_trims(key: str | None, expected: str | None) -> None:
    """Absent or blank keys mean no key; others are trimmed."""
    assert check_key(key) == expected


@pytest.mark.parametrize("key", ["x" * 256, "a\x00b"])
def test_check_key_refuses_long_or_unprintable_keys(key: str) -> None:
    """Overlong or unprintable keys are a 400 naming the header."""
    with pytest.raises(HTTPProblem, match="Idempotency-Key"):
        check_key(key)


class _CannotKeepAnswers(MemoryStore):
    """A store that fails to save first answers (a locked or full database)."""

    def complete_key(self, key: str, response: StoredResponse) -> None:
        raise OSError("disk full")


def test_answer_is_returned_when_it_cannot_be_kept_for_replays() -> None:
    """A request that ran is answered even if storing its replay fails (no 500 for done work)."""
    guard = IdempotencyGuard(_CannotKeepAnswers())
    produce = Counter(json_response({}, request_id="ran"))
    assert _serve(guard, produce).request_id == "ran"
    assert produce.calls == 1
