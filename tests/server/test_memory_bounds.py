"""Server memory stays bounded whatever clients send: store limits, caches, tool sizes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from appclient._core._limits import cache_short_keys
from appclient._manifest import normalize_tool
from appclient.server import MemoryStore, QuotaExceededError
from appclient.server._agents._agent_api import ToolResult
from appclient.server._http import _validation
from appclient.server._http._validation import MAX_TOOLS_CHARS, validate_tools
from appclient.server._state._state import (
    ConversationState,
    FeedbackRecord,
    FileRecord,
    TurnRecord,
)
from tests.gc_support import frames_left_in_cycles
from tests.server.helpers import (
    APP_ID,
    call_app,
    make_app,
    new_conversation,
    run_body,
    upload_form,
)

UPLOAD = "/v2/app/conversation/file/upload"


def _state(cid: str, owner: str = "owner", text_chars: int = 0) -> ConversationState:
    state = ConversationState(cid, owner, "app", 0.0)
    if text_chars:
        turn = TurnRecord(
            query="q", answer="a", results=(ToolResult("i", "t", {}, "x" * text_chars),)
        )
        state = state.evolve(history=(turn,))
    return state


class Clock:
    """A settable clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        """The current time."""
        return self.now


def test_conversations_unused_for_the_idle_time_are_forgotten() -> None:
    """A conversation nobody touched for idle_seconds is gone; a recently used one stays."""
    clock = Clock()
    store = MemoryStore(idle_seconds=60, clock=clock)
    store.create_conversation(_state("old"))
    clock.now += 30
    store.create_conversation(_state("recent"))
    clock.now += 40
    store.create_conversation(_state("new"))
    assert store.get_conversation("old") is None
    assert store.get_conversation("recent") is not None
    assert store.evicted_conversations == 1


def test_a_forgotten_conversation_takes_its_files_and_feedback_along() -> None:
    """Records of a forgotten conversation go with it: memory does not grow with every upload."""
    clock = Clock()
    store = MemoryStore(idle_seconds=60, clock=clock)
    store.create_conversation(_state("old"))
    store.add_file(FileRecord("f1", "old", "owner", "a.txt", 1, "f1.bin", "", 0.0))
    store.add_feedback(FeedbackRecord("old", "m1", "upvote", (), None, 0.0))
    clock.now += 61
    store.create_conversation(_state("new"))
    store.add_file(FileRecord("f2", "new", "owner", "b.txt", 1, "f2.bin", "", 0.0))
    assert store.get_conversation("old") is None
    assert (store.get_file("f1"), store.files("old"), store.feedback("old")) == (None, [], [])
    assert [record.file_id for record in store.files("new")] == ["f2"]


def test_a_forgotten_conversation_s_files_are_handed_to_on_file_forgotten() -> None:
    """The store tells its owner which file records it forgot, so their bytes can go too."""
    clock, forgotten = Clock(), []
    store = MemoryStore(idle_seconds=60, clock=clock, on_file_forgotten=forgotten.append)
    store.create_conversation(_state("old"))
    record = FileRecord("f1", "old", "owner", "a.txt", 1, "f1.bin", "", 0.0)
    store.add_file(record)
    clock.now += 61
    store.create_conversation(_state("new"))
    assert forgotten == [record]


def test_the_app_removes_the_uploaded_bytes_of_a_forgotten_conversation(tmp_path: Path) -> None:
    """With the app's own memory store, a forgotten conversation's upload leaves the disk."""
    app = make_app(data_dir=tmp_path)
    try:
        cid = new_conversation(app)
        body, content_type = upload_form(cid)
        assert call_app(app, UPLOAD, body, content_type=content_type).status == 200
        assert len(list(tmp_path.glob("*.bin"))) == 1
        app.store._forget_old(keep="", now=float("inf"))  # type: ignore[attr-defined]  # a day on
        assert app.store.get_conversation(cid) is None
        assert list(tmp_path.glob("*.bin")) == []
    finally:
        app.close()


def test_past_the_memory_limit_the_least_recently_used_are_forgotten() -> None:
    """Over max_conversation_bytes, the conversations used longest ago go first."""
    store = MemoryStore(max_conversation_bytes=100_000, max_bytes_per_owner=10**9)
    for index in range(5):
        store.create_conversation(_state(f"c{index}", text_chars=20_000))
    assert store.get_conversation("c0") is None
    assert store.get_conversation("c4") is not None
    assert store.evicted_conversations >= 2


def test_a_conversation_whose_run_is_in_progress_is_never_forgotten() -> None:
    """A leased conversation stays even when it is the least recently used."""
    store = MemoryStore(max_conversation_bytes=50_000, max_bytes_per_owner=10**9)
    store.create_conversation(_state("busy", text_chars=20_000))
    assert store.acquire_run("busy", lease_id="l", now=0, lease_seconds=300)
    for index in range(3):
        store.create_conversation(_state(f"c{index}", text_chars=20_000))
    assert store.get_conversation("busy") is not None


def test_a_token_over_its_quota_is_refused_and_nothing_changes() -> None:
    """A write that would take one owner past max_bytes_per_owner raises; its state is kept."""
    store = MemoryStore(max_bytes_per_owner=60_000)
    store.create_conversation(_state("a", text_chars=10_000))
    with pytest.raises(QuotaExceededError) as caught:
        store.create_conversation(_state("b", text_chars=20_000))
    assert caught.value.retry_after > 0
    assert store.get_conversation("b") is None
    store.create_conversation(_state("other", owner="someone-else", text_chars=20_000))
    assert store.get_conversation("other") is not None


def test_quota_exceeded_is_a_429_with_retry_after() -> None:
    """Over its quota, a token gets 429 QuotaExceeded with Retry-After, not a 500."""
    app = make_app(store=MemoryStore(max_bytes_per_owner=1))
    reply = call_app(app, "/v2/app/conversation", {"app_id": APP_ID})
    assert reply.status == 429
    assert reply.json()["code"] == "QuotaExceeded"
    assert int(reply.headers["Retry-After"]) > 0


def test_a_run_whose_tools_are_over_the_limit_is_a_400() -> None:
    """Tools larger than a conversation may keep are refused, naming the field and limit."""
    app = make_app()
    cid = new_conversation(app)
    huge = {
        "type": "function",
        "function": {"name": "huge", "description": "x" * (MAX_TOOLS_CHARS + 1), "parameters": {}},
    }
    reply = call_app(app, "/v2/app/conversation/runs", run_body(cid, query="hi", tools=[huge]))
    assert reply.status == 400
    assert "tools" in reply.json()["message"]
    assert f"{MAX_TOOLS_CHARS:,}" in reply.json()["message"]


def test_a_refused_request_is_freed_at_once_not_at_the_next_collection() -> None:
    """Answering a refused run leaves no reference cycle holding its body until a GC runs."""
    app = make_app()
    cid = new_conversation(app)
    huge = {"type": "function", "function": {"name": "huge", "description": "x" * 2_000_000}}
    body = run_body(cid, query="hi", tools=[huge])
    with frames_left_in_cycles() as frames:
        for _ in range(3):
            assert call_app(app, "/v2/app/conversation/runs", body).status == 400
    assert frames == []


def test_large_tools_are_checked_but_not_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool over the cached size is validated on each run; the cache keeps the last 512."""
    normalized: list[str] = []

    def normalize(raw: dict[str, Any]) -> dict[str, Any]:
        normalized.append(raw["function"]["name"])
        return normalize_tool(raw)

    monkeypatch.setattr(_validation, "normalize_tool", normalize)
    _validation._check_tool.cache_clear()

    def tool(name: str, description: str = "d") -> dict[str, Any]:
        return {"type": "function", "function": {"name": name, "description": description}}

    big = tool("big", "d" * 100_000)
    for _ in range(2):
        (checked,) = validate_tools([big])
        assert checked["function"]["name"] == "big"
    assert normalized == ["big", "big"]
    small = [tool(f"t{index}") for index in range(513)]
    for each in small:
        validate_tools([each])
        validate_tools([each])
    assert normalized[2:] == [f"t{index}" for index in range(513)]
    validate_tools([small[0]])  # pushed out by the 512 after it
    assert normalized[-1] == "t0"


def test_short_keys_are_cached_and_long_ones_computed_each_time() -> None:
    """cache_short_keys keeps short keys only, so it is bounded in bytes."""
    calls: list[str] = []

    @cache_short_keys(8, max_chars=10)
    def upper(text: str) -> str:
        calls.append(text)
        return text.upper()

    assert upper("short") == upper("short") == "SHORT"
    assert upper("x" * 11) == upper("x" * 11)
    assert calls == ["short", "x" * 11, "x" * 11]


def test_refused_requests_do_not_change_the_conversation() -> None:
    """A run refused for its tools leaves the conversation as it was (no half state)."""
    app = make_app()
    cid = new_conversation(app)
    huge = {
        "type": "function",
        "function": {"name": "h", "description": "y" * (MAX_TOOLS_CHARS + 1)},
    }
    reply = call_app(app, "/v2/app/conversation/runs", run_body(cid, query="hi", tools=[huge]))
    assert reply.status == 400
    assert app.store.get_conversation(cid).tools == ()  # type: ignore[union-attr]
