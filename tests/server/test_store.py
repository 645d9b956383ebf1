"""The store contract, for both stores: conversations, leases, files, feedback, keys."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from appclient.server import MemoryStore, SQLiteStore, Store
from appclient.server._agents._agent_api import ToolResult
from appclient.server._state._state import (
    ConversationState,
    FeedbackRecord,
    FileRecord,
    OpenTurn,
    PendingCall,
    StoredResponse,
    TurnRecord,
)

STATE = ConversationState("c1", "owner", "app", 1.0)
RESPONSE = StoredResponse(200, "req-1", "application/json", b'{"a":1}', stream=False)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    made: Store = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "s.db")
    yield made
    made.close()


def test_conversation_round_trips(store: Store) -> None:
    """A saved conversation comes back equal, with tools, pending calls and history."""
    result = ToolResult("id", "tool", {"a": 1}, "out", cloud=True)
    state = replace(
        STATE,
        tools=(
            {"type": "function", "function": {"name": "t", "description": "", "parameters": {}}},
        ),
        open_turn=OpenTurn(
            "q", (result,), (PendingCall("p", "t", {"x": [1]}),), "why", ("f",), "u"
        ),
        history=(TurnRecord("q0", "a0", "m0", (result,)),),
    )
    store.create_conversation(state)
    assert store.get_conversation("c1") == state
    assert store.get_conversation("missing") is None


def test_second_lease_is_refused_until_released(store: Store) -> None:
    """Only one run holds a conversation; releasing frees it."""
    store.create_conversation(STATE)
    assert store.acquire_run("c1", lease_id="a", now=10, lease_seconds=60)
    assert not store.acquire_run("c1", lease_id="b", now=11, lease_seconds=60)
    store.release_run("c1", lease_id="a")
    assert store.acquire_run("c1", lease_id="b", now=12, lease_seconds=60)


def test_expired_lease_is_taken_over(store: Store) -> None:
    """A lease left by a crashed worker expires."""
    store.create_conversation(STATE)
    assert store.acquire_run("c1", lease_id="a", now=10, lease_seconds=5)
    assert store.acquire_run("c1", lease_id="b", now=16, lease_seconds=5)


def test_commit_saves_state_records_message_and_releases(store: Store) -> None:
    """Committing saves the new state, remembers the message, and frees the conversation."""
    store.create_conversation(STATE)
    store.acquire_run("c1", lease_id="a", now=0, lease_seconds=60)
    new = replace(STATE, history=(TurnRecord("q", "a", "m1"),))
    assert store.commit_run(new, lease_id="a", message_id="m1")
    assert store.get_conversation("c1") == new
    assert store.has_message("c1", "m1")
    assert not store.has_message("other", "m1")
    assert store.acquire_run("c1", lease_id="b", now=1, lease_seconds=60)


def test_commit_with_a_lost_lease_saves_nothing(store: Store) -> None:
    """A run whose lease was taken over cannot overwrite the newer state."""
    store.create_conversation(STATE)
    store.acquire_run("c1", lease_id="a", now=0, lease_seconds=1)
    store.acquire_run("c1", lease_id="b", now=5, lease_seconds=60)
    assert not store.commit_run(replace(STATE, app_id="x"), lease_id="a", message_id="m")
    assert store.get_conversation("c1") == STATE


def test_files_and_feedback_are_kept(store: Store) -> None:
    """File metadata and feedback come back as saved."""
    record = FileRecord("f1", "c1", "owner", "测试.txt", 3, "f1.bin", "", 2.0)
    store.add_file(record)
    assert store.get_file("f1") == record
    assert store.get_file("f2") is None
    feedback = FeedbackRecord("c1", "m1", "downvote", ("答非所问",), "测试", 3.0)
    store.add_feedback(feedback)
    assert store.feedback("c1") == [feedback]
    assert store.feedback("c2") == []


def test_idempotency_key_lifecycle(store: Store) -> None:
    """A key goes new -> busy while running -> replay once complete; another body mismatches."""
    assert store.reserve_key("k", "fp", now=0, stale_after=60).outcome == "new"
    assert store.reserve_key("k", "fp", now=1, stale_after=60).outcome == "busy"
    store.complete_key("k", RESPONSE)
    replay = store.reserve_key("k", "fp", now=2, stale_after=60)
    assert replay.outcome == "replay"
    assert replay.response == RESPONSE
    assert store.reserve_key("k", "other", now=3, stale_after=60).outcome == "mismatch"


def test_released_key_runs_again(store: Store) -> None:
    """A failed request's key is forgotten, so its retry runs for real."""
    store.reserve_key("k", "fp", now=0, stale_after=60)
    store.release_key("k")
    assert store.reserve_key("k", "fp", now=1, stale_after=60).outcome == "new"


def test_stale_reservation_is_taken_over(store: Store) -> None:
    """A reservation never completed (crashed worker) is taken over after stale_after."""
    store.reserve_key("k", "fp", now=0, stale_after=10)
    assert store.reserve_key("k", "fp", now=11, stale_after=10).outcome == "new"


def test_stream_responses_are_kept_as_streams(store: Store) -> None:
    """A stored stream replays as a stream."""
    stream = StoredResponse(200, "r", "text/event-stream", b"data: {}\n\ndata: {}\n\n", stream=True)
    store.reserve_key("s", "fp", now=0, stale_after=60)
    store.complete_key("s", stream)
    assert store.reserve_key("s", "fp", now=1, stale_after=60).response == stream


def test_memory_store_forgets_oldest_keys() -> None:
    """The memory store keeps at most max_idempotency_keys replays."""
    store = MemoryStore(max_idempotency_keys=2)
    for key in ("a", "b", "c"):
        store.reserve_key(key, "fp", now=0, stale_after=60)
        store.complete_key(key, RESPONSE)
    assert store.reserve_key("a", "fp", now=1, stale_after=60).outcome == "new"
    assert store.reserve_key("c", "fp", now=1, stale_after=60).outcome == "replay"


def test_memory_store_keeps_the_latest_message_ids_of_each_conversation() -> None:
    """The memory store remembers at most max_messages_per_conversation ids per conversation."""
    store = MemoryStore(max_messages_per_conversation=2)
    store.create_conversation(STATE)
    for message_id in ("m1", "m2", "m3"):
        assert store.acquire_run("c1", lease_id=message_id, now=0, lease_seconds=60)
        assert store.commit_run(STATE, lease_id=message_id, message_id=message_id)
    assert [store.has_message("c1", m) for m in ("m1", "m2", "m3")] == [False, True, True]


def test_memory_store_bounds_the_bytes_its_replays_hold() -> None:
    """Replays beyond max_idempotency_bytes in total are forgotten, oldest first."""
    store = MemoryStore(max_idempotency_bytes=10)
    body = StoredResponse(200, "r", "text/event-stream", b"data: {}\n\n", stream=True)
    for key in ("a", "b"):
        store.reserve_key(key, "fp", now=0, stale_after=60)
        store.complete_key(key, body)
    assert store.reserve_key("a", "fp", now=1, stale_after=60).outcome == "new"
    assert store.reserve_key("b", "fp", now=1, stale_after=60).outcome == "replay"
