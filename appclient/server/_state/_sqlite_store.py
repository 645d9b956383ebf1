"""A store in one SQLite file: survives restarts and is shared by several worker processes.

States are saved whole as JSON; leases and key reservations are single conditional
statements, so two processes never both win. The file runs in WAL mode, connections come
from a small pool, and a process forked from one holding the store opens its own.
"""

from __future__ import annotations

import json
import os
import queue
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, astuple
from pathlib import Path
from typing import Any, TypeVar

from .._settings import (
    DEFAULT_IDEMPOTENCY_CACHE_BYTES,
    DEFAULT_IDEMPOTENCY_CACHE_SIZE,
    DEFAULT_MAX_MESSAGES_PER_CONVERSATION,
)
from ._state import ConversationState, FeedbackRecord, FileRecord, StoredResponse, load_record
from ._store import KeyEntry, KeyReservation, Store, StoreBusyError, lease_holder_gone

_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    lease_id TEXT,
    lease_expires REAL
);
CREATE TABLE IF NOT EXISTS messages (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages (conversation_id);
CREATE TABLE IF NOT EXISTS files (
    id TEXT PRIMARY KEY,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS feedback (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS feedback_by_conversation ON feedback (conversation_id);
CREATE TABLE IF NOT EXISTS idempotency (
    key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    reserved_at REAL NOT NULL,
    status INTEGER,
    request_id TEXT,
    content_type TEXT,
    body BLOB,
    stream INTEGER,
    holder TEXT
);
CREATE INDEX IF NOT EXISTS idempotency_by_age ON idempotency (reserved_at);
"""

#: The layout of the tables above, in the file's ``PRAGMA user_version``: older files are
#: migrated when opened; a newer one is refused instead of misread.
SCHEMA_VERSION = 2

# Waits between attempts to open a file another process is switching to WAL (for tests).
_sleep = time.sleep

_RELEASE_LEASE = (
    "UPDATE conversations SET lease_id = NULL, lease_expires = NULL WHERE id = ? AND lease_id = ?"
)

#: Reservations between two trims of the idempotency table down to its size limit.
_TRIM_EVERY = 256

# Open stores, so a forked child (gunicorn --preload) can drop the connections it inherited.
_open_stores: weakref.WeakSet[SQLiteStore] = weakref.WeakSet()

_R = TypeVar("_R", FileRecord, FeedbackRecord)


def _after_fork_in_child() -> None:
    for store in list(_open_stores):
        store._forget_inherited_connections()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class SQLiteStore(Store):
    """A store in a SQLite database file.

    Args:
        path: The database file; created (with its tables) when missing.
        max_idempotency_keys: Replays kept; the oldest are forgotten first.
        max_idempotency_bytes: Total body bytes the replays may hold; the oldest are
            forgotten first (a body over it alone is not kept). Both limits are enforced
            every few hundred reservations, so the table may run a little over between.
        timeout: Seconds to wait for another process's write lock.
        max_messages_per_conversation: Run message ids remembered per conversation (what
            feedback may name); the oldest are forgotten first.
        max_idle_connections: Connections kept open when no request is using them; a burst
            of concurrent requests opens more, which close as they finish.

    Raises:
        sqlite3.DatabaseError: The file is not a database, or was written by a newer
            appclient (its ``PRAGMA user_version`` is above :data:`SCHEMA_VERSION`).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        max_idempotency_keys: int = DEFAULT_IDEMPOTENCY_CACHE_SIZE,
        max_idempotency_bytes: int = DEFAULT_IDEMPOTENCY_CACHE_BYTES,
        timeout: float = 10.0,
        max_messages_per_conversation: int = DEFAULT_MAX_MESSAGES_PER_CONVERSATION,
        max_idle_connections: int = 4,
    ) -> None:
        self.path = Path(path)
        self._max_idle = max_idle_connections
        self._timeout = timeout
        self._max_keys = max_idempotency_keys
        self._max_key_bytes = max_idempotency_bytes
        self._max_messages = max_messages_per_conversation
        self._pool: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._reservations = 0
        self._closed = False
        self._inherited: list[sqlite3.Connection] = []
        (found,) = self._execute("PRAGMA user_version")[0]
        if found > SCHEMA_VERSION:
            self.close()
            raise sqlite3.DatabaseError(
                f"the database has schema version {found}, written by a newer "
                f"appclient; this version reads schema version {SCHEMA_VERSION}"
            )
        with self._connection() as db:
            db.executescript(_SCHEMA)
            # Version 2 names the process holding each key reservation; files of version 1,
            # and those from before versions (0, the same layout), lack the column.
            if "holder" not in {row[1] for row in db.execute("PRAGMA table_info(idempotency)")}:
                db.execute("ALTER TABLE idempotency ADD COLUMN holder TEXT")
            if found < SCHEMA_VERSION:
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        self.released_stale_leases, self.released_stale_keys = self._release_stale_holds()
        _open_stores.add(self)

    def _release_stale_holds(self) -> tuple[int, int]:
        """Free at once the leases and key reservations of processes that no longer run."""
        leases = self._execute("SELECT id, lease_id FROM conversations WHERE lease_id IS NOT NULL")
        keys = self._execute(
            "SELECT key, holder FROM idempotency WHERE status IS NULL AND holder IS NOT NULL"
        )
        gone_leases = [(cid, lease) for cid, lease in leases if lease_holder_gone(lease)]
        gone_keys = [(key, holder) for key, holder in keys if lease_holder_gone(holder)]
        if gone_leases or gone_keys:
            with self._transaction() as db:
                db.executemany(_RELEASE_LEASE, gone_leases)
                db.executemany(
                    "DELETE FROM idempotency WHERE key = ? AND holder = ? AND status IS NULL",
                    gone_keys,
                )
        return len(gone_leases), len(gone_keys)

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(
            self.path, timeout=self._timeout, isolation_level=None, check_same_thread=False
        )
        try:
            self._enter_wal_mode(db)
            db.execute("PRAGMA synchronous=NORMAL")
        except BaseException:
            db.close()
            raise
        with self._lock:
            self._all.append(db)
        return db

    def _enter_wal_mode(self, db: sqlite3.Connection) -> None:
        # While another process switches a new file to WAL (or recovers its WAL), SQLite
        # answers "locked" at once, without waiting out the busy timeout: workers starting
        # together on one new file failed. So wait here, up to the same timeout.
        deadline = time.monotonic() + self._timeout
        pause = 0.005
        while True:
            try:
                db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
            _sleep(pause)
            pause = min(pause * 2, 0.1)

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        if self._closed:
            raise RuntimeError("the SQLite store is closed")
        try:
            try:
                db = self._pool.get_nowait()
            except queue.Empty:
                db = self._connect()
            try:
                yield db
            finally:
                if db.in_transaction:
                    # Never pool a connection inside a transaction (a COMMIT that failed):
                    # it would hold the write lock and block every other worker.
                    with suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                if self._pool.qsize() < self._max_idle:
                    self._pool.put(db)
                else:  # the pool shrinks back after a burst: two file descriptors each
                    with self._lock:
                        if db in self._all:
                            self._all.remove(db)
                    db.close()
        except sqlite3.OperationalError as exc:
            # Another process held the write lock past the timeout: a retryable condition,
            # not a server bug (the server answers 503 instead of 500).
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreBusyError(
                    f"the SQLite database {self.path.name!r} stayed locked for over "
                    f"{self._timeout:g}s; another process is writing to it"
                ) from exc
            if "unable to open" in str(exc):  # out of file descriptors, for one: may pass
                raise StoreBusyError(
                    f"the SQLite database {self.path.name!r} cannot be opened now: {exc}"
                ) from exc
            raise

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                # SQLite may have rolled back already (a full disk, an I/O error); a second
                # ROLLBACK would hide the real error behind "no transaction is active".
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

    def _execute(self, sql: str, *params: Any) -> list[Any]:
        """Run one statement outside a transaction; return its rows."""
        with self._connection() as db:
            return db.execute(sql, params).fetchall()

    def _records(self, cls: type[_R], sql: str, *params: Any) -> list[_R]:
        return [load_record(cls, text) for (text,) in self._execute(sql, *params)]

    def _forget_inherited_connections(self) -> None:
        # SQLite forbids using a connection in a process forked after it was opened. The
        # parent's connections are kept unused (closing one could disturb the parent's
        # locks) and the child opens its own; the lock may have been held at the fork.
        self._lock = threading.Lock()
        self._inherited.extend(self._all)
        self._all = []
        self._pool = queue.SimpleQueue()

    def close(self) -> None:
        """Close every connection; the store is unusable afterwards."""
        self._closed = True
        with self._lock:
            connections, self._all = self._all, []
        for db in connections:
            db.close()

    def create_conversation(self, state: ConversationState) -> None:
        self._execute(
            "INSERT INTO conversations (id, state) VALUES (?, ?)",
            state.conversation_id,
            state.to_json(),
        )

    def get_conversation(self, conversation_id: str) -> ConversationState | None:
        rows = self._execute("SELECT state FROM conversations WHERE id = ?", conversation_id)
        return ConversationState.from_json(rows[0][0]) if rows else None

    def list_conversations(self, owner: str, *, limit: int) -> list[ConversationState]:
        rows = self._execute(
            "SELECT state FROM conversations WHERE json_extract(state, '$.owner') = ? "
            "ORDER BY json_extract(state, '$.created_at') DESC LIMIT ?",
            owner,
            limit,
        )
        return [ConversationState.from_json(text) for (text,) in rows]

    def acquire_run(
        self, conversation_id: str, *, lease_id: str, now: float, lease_seconds: float
    ) -> bool:
        with self._connection() as db:
            cursor = db.execute(
                "UPDATE conversations SET lease_id = ?, lease_expires = ? "
                "WHERE id = ? AND (lease_id IS NULL OR lease_expires <= ?)",
                (lease_id, now + lease_seconds, conversation_id, now),
            )
            return cursor.rowcount == 1

    def commit_run(
        self,
        state: ConversationState,
        *,
        lease_id: str,
        message_id: str,
        replay: tuple[str, StoredResponse] | None = None,
    ) -> bool:
        cid = state.conversation_id
        with self._transaction() as db:
            cursor = db.execute(
                "UPDATE conversations SET state = ?, lease_id = NULL, lease_expires = NULL "
                "WHERE id = ? AND lease_id = ?",
                (state.to_json(), cid, lease_id),
            )
            if cursor.rowcount != 1:
                return False
            db.execute("INSERT OR REPLACE INTO messages VALUES (?, ?)", (message_id, cid))
            # rowid grows with each insert, so it orders the conversation's runs.
            db.execute(
                "DELETE FROM messages WHERE conversation_id = ? AND rowid NOT IN (SELECT rowid "
                "FROM messages WHERE conversation_id = ? ORDER BY rowid DESC LIMIT ?)",
                (cid, cid, self._max_messages),
            )
            if replay is not None and len(replay[1].body) <= self._max_key_bytes:
                self._complete_key(db, *replay)
            return True

    def release_run(self, conversation_id: str, *, lease_id: str) -> None:
        self._execute(_RELEASE_LEASE, conversation_id, lease_id)

    def has_message(self, conversation_id: str, message_id: str) -> bool:
        sql = "SELECT 1 FROM messages WHERE id = ? AND conversation_id = ?"
        return bool(self._execute(sql, message_id, conversation_id))

    def add_file(self, record: FileRecord) -> None:
        self._execute("INSERT INTO files VALUES (?, ?)", record.file_id, _json(record))

    def get_file(self, file_id: str) -> FileRecord | None:
        found = self._records(FileRecord, "SELECT record FROM files WHERE id = ?", file_id)
        return found[0] if found else None

    def files(self, conversation_id: str) -> list[FileRecord]:
        return self._records(
            FileRecord,
            "SELECT record FROM files WHERE json_extract(record, '$.conversation_id') = ? "
            "ORDER BY rowid",
            conversation_id,
        )

    def add_feedback(self, record: FeedbackRecord) -> None:
        self._execute(
            "INSERT INTO feedback (conversation_id, record) VALUES (?, ?)",
            record.conversation_id,
            _json(record),
        )

    def feedback(self, conversation_id: str) -> list[FeedbackRecord]:
        sql = "SELECT record FROM feedback WHERE conversation_id = ? ORDER BY seq"
        return self._records(FeedbackRecord, sql, conversation_id)

    def reserve_key(
        self, key: str, fingerprint: str, *, now: float, stale_after: float, holder: str = ""
    ) -> KeyReservation:
        with self._transaction() as db:
            row = db.execute(
                "SELECT fingerprint, reserved_at, status, request_id, content_type, body, stream "
                "FROM idempotency WHERE key = ?",
                (key,),
            ).fetchone()
            if row is not None:
                kept, reserved_at, status, request_id, content_type, body, stream = row
                response = None
                if status is not None:  # a BLOB reads as bytes, an INTEGER flag as 0 or 1
                    response = StoredResponse(status, request_id, content_type, body, bool(stream))
                entry = KeyEntry(kept, reserved_at, response)
                found = entry.reservation(fingerprint, now=now, stale_after=stale_after)
                if found.outcome != "new":
                    return found
            db.execute(
                "INSERT OR REPLACE INTO idempotency (key, fingerprint, reserved_at, holder) "
                "VALUES (?, ?, ?, ?)",
                (key, fingerprint, now, holder or None),
            )
            self._reservations += 1
            if self._reservations % _TRIM_EVERY == 0:
                self._trim_keys(db)
            return KeyReservation("new")

    def _trim_keys(self, db: sqlite3.Connection) -> None:
        # Inside the caller's transaction: the newest keys up to the count limit, then the
        # newest bodies up to the bytes limit, by a running total from the newest down (in
        # Python: SQLite before 3.25 has no window functions); equal ages go by insertion.
        db.execute(
            "DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency "
            "ORDER BY reserved_at DESC LIMIT -1 OFFSET ?)",
            (self._max_keys,),
        )
        newest_first = db.execute(
            "SELECT rowid, LENGTH(body) FROM idempotency WHERE body IS NOT NULL "
            "ORDER BY reserved_at DESC, rowid DESC"
        )
        kept, dropped = 0, []
        for rowid, size in newest_first:
            kept += size
            if kept > self._max_key_bytes:
                dropped.append((rowid,))
        db.executemany("DELETE FROM idempotency WHERE rowid = ?", dropped)

    def complete_key(self, key: str, response: StoredResponse) -> None:
        if len(response.body) > self._max_key_bytes:
            self.release_key(key)  # too big to keep: a repeat runs again
            return
        with self._connection() as db:
            self._complete_key(db, key, response)

    def _complete_key(self, db: sqlite3.Connection, key: str, response: StoredResponse) -> None:
        # Only a reservation still waiting for its answer: a first answer is never replaced.
        db.execute(
            "UPDATE idempotency SET status = ?, request_id = ?, content_type = ?, "
            "body = ?, stream = ? WHERE key = ? AND status IS NULL",
            (*astuple(response), key),
        )

    def release_key(self, key: str) -> None:
        self._execute("DELETE FROM idempotency WHERE key = ? AND status IS NULL", key)


def _json(record: FileRecord | FeedbackRecord) -> str:
    return json.dumps(asdict(record), ensure_ascii=False)
