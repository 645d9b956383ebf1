"""The SQLite store survives a reopen and is safe to share between store instances."""

from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import appclient.server._state._sqlite_store as sqlite_store_module
from appclient.server import SQLiteStore
from appclient.server._state._sqlite_store import _SCHEMA, SCHEMA_VERSION
from appclient.server._state._state import ConversationState, OpenTurn, PendingCall, StoredResponse
from appclient.server._state._store import StoreBusyError
from tests.server.helpers import (
    APP_ID,
    WEATHER_TOOL,
    call_app,
    forks,
    make_app,
    new_conversation,
    run_body,
)

RUNS = "/v2/app/conversation/runs"

STATE = ConversationState("c1", "owner", "app", 1.0)


def test_state_survives_reopening_the_file(tmp_path: Path) -> None:
    """A pending call saved before closing is there after reopening."""
    path = tmp_path / "state.db"
    first = SQLiteStore(path)
    waiting = replace(STATE, open_turn=OpenTurn("q", pending=(PendingCall("p1", "t", {}),)))
    first.create_conversation(STATE)
    first.acquire_run("c1", lease_id="a", now=0, lease_seconds=60)
    first.commit_run(waiting, lease_id="a", message_id="m1")
    first.reserve_key("k", "fp", now=0, stale_after=60)
    first.complete_key("k", StoredResponse(200, "r", "application/json", b"{}", stream=False))
    first.close()
    second = SQLiteStore(path)
    assert second.get_conversation("c1") == waiting
    assert second.has_message("c1", "m1")
    assert second.reserve_key("k", "fp", now=1, stale_after=60).outcome == "replay"
    second.close()


def test_two_instances_on_one_file_share_leases(tmp_path: Path) -> None:
    """Two stores on one file (two worker processes) never both hold a conversation."""
    path = tmp_path / "shared.db"
    one, two = SQLiteStore(path), SQLiteStore(path)
    one.create_conversation(STATE)
    assert one.acquire_run("c1", lease_id="a", now=0, lease_seconds=60)
    assert not two.acquire_run("c1", lease_id="b", now=0, lease_seconds=60)
    assert two.reserve_key("k", "fp", now=0, stale_after=60).outcome == "new"
    assert one.reserve_key("k", "fp", now=0, stale_after=60).outcome == "busy"
    one.close()
    two.close()


def test_concurrent_lease_attempts_have_one_winner(tmp_path: Path) -> None:
    """Of many threads racing for a lease, exactly one wins."""
    store = SQLiteStore(tmp_path / "race.db")
    store.create_conversation(STATE)
    wins: list[str] = []
    barrier = threading.Barrier(8)

    def attempt(name: str) -> None:
        barrier.wait()
        if store.acquire_run("c1", lease_id=name, now=0, lease_seconds=60):
            wins.append(name)

    threads = [threading.Thread(target=attempt, args=(f"t{i}",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(wins) == 1
    store.close()


def test_closed_store_refuses_work(tmp_path: Path) -> None:
    """Using a closed store is a clear error."""
    store = SQLiteStore(tmp_path / "closed.db")
    store.close()
    with pytest.raises(RuntimeError, match="closed"):
        store.get_conversation("c1")


def test_repr_names_the_file(tmp_path: Path) -> None:
    """The repr shows the database path."""
    store = SQLiteStore(tmp_path / "named.db")
    assert "named.db" in repr(store)
    store.close()


def test_two_wsgi_workers_share_one_round_trip(tmp_path: Path) -> None:
    """Like gunicorn workers over one SQLite file: a round trip may hop between apps."""
    db = tmp_path / "shared.db"
    worker_a = make_app(db_path=db, data_dir=tmp_path / "files")
    worker_b = make_app(db_path=db, data_dir=tmp_path / "files")
    try:
        cid = new_conversation(worker_a)
        interrupt = call_app(worker_b, RUNS, run_body(cid, query="北京天气", tools=[WEATHER_TOOL]))
        (call,) = interrupt.json()["content"][-1]["tool_calls"]
        outputs = [{"tool_call_id": call["id"], "output": "北京今天25度"}]
        answer = call_app(worker_a, RUNS, run_body(cid, tool_outputs=outputs))
        assert answer.status == 200, answer.body
        assert "北京今天25度" in answer.json()["answer"]
    finally:
        worker_a.close()
        worker_b.close()


@forks
def test_forked_child_opens_its_own_connections(tmp_path: Path) -> None:
    """After a fork (gunicorn --preload) the child never uses a connection of its parent."""
    store = SQLiteStore(tmp_path / "s.db")
    inherited = set(map(id, store._all))
    assert inherited
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if it worked on a connection of its own
        status = 1
        try:
            store.create_conversation(ConversationState("child", "o", "a", 1.0))
            fresh = set(map(id, store._all))
            status = 0 if fresh and not fresh & inherited else 2
        finally:
            os._exit(status)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert store.get_conversation("child") is not None
    store.close()


def test_locked_database_raises_store_busy(tmp_path: Path) -> None:
    """A write lock held by another process past the timeout is a StoreBusyError."""
    path = tmp_path / "s.db"
    store = SQLiteStore(path, timeout=0.01)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreBusyError, match="locked"):
            store.create_conversation(STATE)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    store.create_conversation(STATE)
    assert store.get_conversation("c1") == STATE
    store.close()


def test_locked_database_answers_503_with_retry_after(tmp_path: Path) -> None:
    """A request that finds the database locked gets a retryable 503, not a 500."""
    path = tmp_path / "s.db"
    store = SQLiteStore(path, timeout=0.01)
    app = make_app(store=store)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        answer = call_app(app, "/v2/app/conversation", {"app_id": APP_ID})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        app.close()
        store.close()
    assert answer.status == 503
    assert answer.json()["code"] == "ServiceUnavailable"
    assert answer.headers["Retry-After"] == "1"


def test_new_file_records_the_schema_version(tmp_path: Path) -> None:
    """A database the store creates carries its schema version in PRAGMA user_version."""
    path = tmp_path / "s.db"
    SQLiteStore(path).close()
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_file_of_a_newer_schema_is_refused(tmp_path: Path) -> None:
    """A database written by a newer layout is refused with a clear error, not misread."""
    path = tmp_path / "s.db"
    with closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(sqlite3.DatabaseError, match="newer appclient"):
        SQLiteStore(path)


def test_a_connection_left_in_a_transaction_is_rolled_back_before_reuse(tmp_path: Path) -> None:
    """A transaction a failure left open (a failed COMMIT) does not hold the lock for good."""
    store = SQLiteStore(tmp_path / "s.db", timeout=0.01)
    other = SQLiteStore(tmp_path / "s.db", timeout=0.01)

    def fail_inside_a_transaction() -> None:
        with store._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute("SELECT * FROM no_such_table")

    with pytest.raises(sqlite3.OperationalError):
        fail_inside_a_transaction()
    other.create_conversation(STATE)
    store.create_conversation(replace(STATE, conversation_id="c2"))
    assert store.get_conversation("c1") == STATE
    store.close()
    other.close()


def test_an_error_sqlite_rolled_back_itself_is_raised_as_is(tmp_path: Path) -> None:
    """When SQLite already ended the transaction, the original error is what surfaces."""
    store = SQLiteStore(tmp_path / "s.db")

    def fail_after_sqlite_rolled_back() -> None:
        with store._transaction() as db:
            db.execute("ROLLBACK")
            raise ValueError("original")

    with pytest.raises(ValueError, match="original"):
        fail_after_sqlite_rolled_back()
    store.create_conversation(STATE)
    assert store.get_conversation("c1") == STATE
    store.close()


def test_message_ids_are_capped_per_conversation(tmp_path: Path) -> None:
    """Like the memory store, only the latest runs' message ids are kept per conversation."""
    store = SQLiteStore(tmp_path / "s.db", max_messages_per_conversation=2)
    store.create_conversation(STATE)
    for number in range(3):
        assert store.acquire_run("c1", lease_id=f"l{number}", now=0, lease_seconds=60)
        store.commit_run(STATE, lease_id=f"l{number}", message_id=f"m{number}")
    kept = [store.has_message("c1", f"m{number}") for number in range(3)]
    store.close()
    assert kept == [False, True, True]


class _FlakyWalSwitch(sqlite3.Connection):
    """Says "locked" at once to the first WAL switches, as while another process switches."""

    failures = 0

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:  # type: ignore[override]
        if sql == "PRAGMA journal_mode=WAL" and _FlakyWalSwitch.failures:
            _FlakyWalSwitch.failures -= 1
            raise sqlite3.OperationalError("database is locked")
        return super().execute(sql, *args)


def test_opening_waits_while_another_process_switches_the_file_to_wal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers starting together on a new file: an immediate "locked" is retried, not raised."""
    real_connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3, "connect", lambda *a, **k: real_connect(*a, factory=_FlakyWalSwitch, **k)
    )
    pauses: list[float] = []
    monkeypatch.setattr(sqlite_store_module, "_sleep", pauses.append)
    monkeypatch.setattr(_FlakyWalSwitch, "failures", 3)
    store = SQLiteStore(tmp_path / "s.db")
    store.create_conversation(STATE)
    assert store.get_conversation("c1") == STATE
    store.close()
    assert len(pauses) == 3


def test_replays_are_bounded_by_total_bytes(tmp_path: Path) -> None:
    """Like the memory store, kept replay bodies stay within max_idempotency_bytes."""
    store = SQLiteStore(tmp_path / "s.db", max_idempotency_bytes=100)
    body = b"x" * 10
    for number in range(sqlite_store_module._TRIM_EVERY + 1):
        key = f"k{number}"
        assert store.reserve_key(key, "fp", now=number, stale_after=60).outcome == "new"
        store.complete_key(key, StoredResponse(200, "r", "application/json", body, stream=False))
    replays = [
        store.reserve_key(f"k{number}", "fp", now=1e6, stale_after=60).outcome
        for number in range(sqlite_store_module._TRIM_EVERY)
    ]
    store.close()
    assert replays.count("replay") <= 11  # ten bodies at the trim, and one completed after
    assert replays[-1] == "replay"


def test_a_reply_over_the_byte_limit_is_not_kept(tmp_path: Path) -> None:
    """A body bigger than the whole replay budget is not stored; a repeat runs again."""
    store = SQLiteStore(tmp_path / "s.db", max_idempotency_bytes=4)
    store.reserve_key("k", "fp", now=0, stale_after=60)
    store.complete_key("k", StoredResponse(200, "r", "application/json", b"12345", stream=False))
    outcome = store.reserve_key("k", "fp", now=1, stale_after=60).outcome
    store.close()
    assert outcome == "new"


class _Refused:
    """Stands in for a built-in aggregate: it has no window step, and refuses to run."""

    def step(self, *values: object) -> None:
        raise AssertionError("the store called an aggregate or window function")

    def finalize(self) -> None:
        raise AssertionError("the store called an aggregate or window function")


def test_the_store_works_without_window_functions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite 3.25 is not needed: a run's round and both replay trims use no window function.

    Every built-in that can be a window function is replaced by :class:`_Refused` on the
    store's connections, so ``... OVER (...)`` fails to prepare, as before SQLite 3.25.
    """
    with closing(sqlite3.connect(":memory:")) as db:
        listed = db.execute("PRAGMA function_list").fetchall()  # nothing before SQLite 3.30
    names = [name for name, _, kind, *_ in listed if kind == "w"]
    if "sum" not in names:
        pytest.skip("this SQLite does not list its window functions")
    real_connect = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = real_connect(*args, **kwargs)
        for name in names:
            db.create_aggregate(name, -1, _Refused)
        return db

    monkeypatch.setattr(sqlite3, "connect", connect)
    store = SQLiteStore(tmp_path / "s.db", max_idempotency_keys=20, max_idempotency_bytes=100)
    store.create_conversation(STATE)
    assert store.acquire_run("c1", lease_id="l", now=0, lease_seconds=60)
    answer = StoredResponse(200, "r", "application/json", b"x" * 10, stream=False)
    store.reserve_key("run", "fp", now=0, stale_after=60)
    assert store.commit_run(STATE, lease_id="l", message_id="m", replay=("run", answer))
    for number in range(1, sqlite_store_module._TRIM_EVERY):
        store.reserve_key(f"k{number}", "fp", now=number, stale_after=60)
        store.complete_key(f"k{number}", answer)
    kept = store._execute("SELECT key FROM idempotency ORDER BY reserved_at")
    assert store.list_conversations("owner", limit=5) == [STATE]
    assert store.has_message("c1", "m")
    store.close()
    assert [key for (key,) in kept] == [f"k{n}" for n in range(245, 256)]
    # The 256th reservation (k255, not completed yet) trimmed to the ten newest bodies.


def test_the_connection_pool_shrinks_after_a_burst(tmp_path: Path) -> None:
    """After 32 concurrent users, no more than max_idle_connections stay open."""
    store = SQLiteStore(tmp_path / "state.sqlite3", max_idle_connections=2)
    barrier = threading.Barrier(32)
    opened: list[int] = []

    def use() -> None:
        with store._connection() as db:
            barrier.wait(timeout=10)
            opened.append(len(store._all))
            db.execute("SELECT 1")

    workers = [threading.Thread(target=use) for _ in range(32)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert max(opened) >= 32
    assert len(store._all) <= 2
    store.close()


def test_a_file_that_cannot_be_opened_is_a_retryable_busy_error(tmp_path: Path) -> None:
    """'unable to open database file' (out of descriptors) becomes StoreBusyError (a 503)."""
    store = SQLiteStore(tmp_path / "state.sqlite3", max_idle_connections=0)

    def refuse(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("unable to open database file")

    store._connect = refuse  # type: ignore[method-assign]
    with pytest.raises(StoreBusyError, match="cannot be opened now"):
        store.get_conversation("c1")
    store.close()


def _pid_of_an_ended_process() -> int:
    import subprocess
    import sys

    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(ended.stdout)


def test_key_reservations_of_processes_that_ended_are_freed_when_the_store_opens(
    tmp_path: Path,
) -> None:
    """A key a killed worker reserved (its run never committed) is free at once, not in 300 s."""
    dead_pid = _pid_of_an_ended_process()
    path = tmp_path / "state.sqlite3"
    store = SQLiteStore(path)
    store.reserve_key("k-dead", "fp", now=0, stale_after=300, holder=f"{dead_pid}-1")
    store.reserve_key("k-live", "fp", now=0, stale_after=300, holder=f"{os.getppid()}-1")
    store.close()
    reopened = SQLiteStore(path)
    assert reopened.released_stale_keys == 1
    assert reopened.reserve_key("k-dead", "fp", now=1, stale_after=300).outcome == "new"
    assert reopened.reserve_key("k-live", "fp", now=1, stale_after=300).outcome == "busy"
    reopened.close()


@pytest.mark.parametrize("version", [0, 1], ids=["before-versions", "version-1"])
def test_an_older_file_is_migrated_and_keeps_its_replays(tmp_path: Path, version: int) -> None:
    """A file of an older layout gains the reservation holder column; stored answers stay."""
    path = tmp_path / "old.sqlite3"
    with closing(sqlite3.connect(path)) as db:
        db.executescript(_SCHEMA.replace(",\n    holder TEXT", ""))
        db.execute(
            "INSERT INTO idempotency VALUES ('k', 'fp', 0, 200, 'r', 'application/json', "
            "x'7b7d', 0)"
        )
        db.execute(f"PRAGMA user_version = {version}")
        db.commit()
    store = SQLiteStore(path)
    replay = store.reserve_key("k", "fp", now=1, stale_after=60)
    assert (replay.outcome, replay.response and replay.response.body) == ("replay", b"{}")
    assert store.reserve_key("k2", "fp", now=1, stale_after=60, holder="1-1").outcome == "new"
    store.close()
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_leases_of_processes_that_ended_are_freed_when_the_store_opens(tmp_path: Path) -> None:
    """A run lease left by a killed process is freed at once; a live process keeps its own."""
    dead_pid = _pid_of_an_ended_process()
    path = tmp_path / "state.sqlite3"
    store = SQLiteStore(path)
    for cid in ("c-dead", "c-live"):
        store.create_conversation(
            ConversationState(conversation_id=cid, owner="o", app_id="a", created_at=0.0)
        )
    assert store.acquire_run("c-dead", lease_id=f"{dead_pid}-lease", now=0, lease_seconds=300)
    assert store.acquire_run("c-live", lease_id=f"{os.getppid()}-lease", now=0, lease_seconds=300)
    store.close()
    reopened = SQLiteStore(path)
    assert reopened.released_stale_leases == 1
    assert reopened.acquire_run("c-dead", lease_id="x", now=1, lease_seconds=300)
    assert not reopened.acquire_run("c-live", lease_id="x", now=1, lease_seconds=300)
    reopened.close()
