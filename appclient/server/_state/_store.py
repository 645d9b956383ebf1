"""Where the reference server keeps its state: the store interface and the in-memory store.

Everything shared between requests goes through a :class:`Store`, so the WSGI app scales out
to several worker processes over one shared store. A run takes a *lease* on its
conversation (a second run meanwhile is a 409; a crashed worker's lease expires).
"""

from __future__ import annotations

import os
import threading
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .._http._responses import serial_id
from .._settings import (
    DEFAULT_IDEMPOTENCY_CACHE_BYTES,
    DEFAULT_IDEMPOTENCY_CACHE_SIZE,
    DEFAULT_MAX_MESSAGES_PER_CONVERSATION,
)
from ._state import (
    ConversationState,
    FeedbackRecord,
    FileRecord,
    RunRecord,
    StoredResponse,
    ToolMemo,
)


class QuotaExceededError(RuntimeError):
    """A token's conversations would take more of the store's memory than its quota.

    Nothing was changed; the server answers HTTP 429 with ``Retry-After``: the token's
    conversations that stay idle are forgotten in time, which frees its quota.

    Attributes:
        retry_after: Seconds to wait before trying again.
    """

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class StoreBusyError(RuntimeError):
    """The store's storage stayed locked by another worker longer than the store waits.

    Nothing was changed; the request may be retried (the server answers HTTP 503 with
    ``Retry-After``).
    """


@dataclass(frozen=True, slots=True)
class KeyReservation:
    """The answer to reserving an idempotency key.

    ``outcome``: ``"new"`` (go ahead, then complete or release the key), ``"replay"`` (answer
    ``response`` again), ``"busy"`` (the first request still runs) or ``"mismatch"`` (the key
    was used for a different request).
    """

    outcome: Literal["new", "replay", "busy", "mismatch"]
    response: StoredResponse | None = None


class Store(ABC):
    """The state of a reference server; every method is thread-safe and atomic.

    A method may raise :class:`StoreBusyError` when storage shared with other workers stays
    locked too long; it then changed nothing.
    """

    @abstractmethod
    def create_conversation(self, state: ConversationState) -> None:
        """Save a new conversation."""

    @abstractmethod
    def get_conversation(self, conversation_id: str) -> ConversationState | None:
        """Return the conversation's current state, or ``None`` if unknown."""

    @abstractmethod
    def list_conversations(self, owner: str, *, limit: int) -> list[ConversationState]:
        """Return the owner's latest ``limit`` conversations, newest first."""

    @abstractmethod
    def acquire_run(
        self, conversation_id: str, *, lease_id: str, now: float, lease_seconds: float
    ) -> bool:
        """Take the conversation's run lease; False if another unexpired lease holds it."""

    @abstractmethod
    def commit_run(
        self,
        state: ConversationState,
        *,
        lease_id: str,
        message_id: str,
        replay: tuple[str, StoredResponse] | None = None,
    ) -> bool:
        """Save the state a run produced, record its message id, and release the lease.

        Args:
            state: The conversation's new state.
            lease_id: The lease the run holds.
            message_id: The run's message id.
            replay: An idempotency key reserved for this request and the answer to keep for
                it, saved in the same transaction (a crash cannot apply the run without
                keeping its answer, so a retry never applies it twice).

        Returns:
            False (and saves nothing) when the lease is no longer held by ``lease_id``.
        """

    @abstractmethod
    def release_run(self, conversation_id: str, *, lease_id: str) -> None:
        """Release the lease without changing the conversation (the run failed)."""

    @abstractmethod
    def has_message(self, conversation_id: str, message_id: str) -> bool:
        """Whether ``message_id`` is a run of that conversation."""

    @abstractmethod
    def add_file(self, record: FileRecord) -> None:
        """Save an uploaded file's metadata."""

    @abstractmethod
    def get_file(self, file_id: str) -> FileRecord | None:
        """Return a file's metadata, or ``None`` if unknown."""

    @abstractmethod
    def files(self, conversation_id: str) -> list[FileRecord]:
        """Return a conversation's files, oldest first."""

    @abstractmethod
    def add_feedback(self, record: FeedbackRecord) -> None:
        """Record one feedback call."""

    @abstractmethod
    def feedback(self, conversation_id: str) -> list[FeedbackRecord]:
        """Return the feedback recorded for a conversation, oldest first."""

    @abstractmethod
    def reserve_key(
        self, key: str, fingerprint: str, *, now: float, stale_after: float, holder: str = ""
    ) -> KeyReservation:
        """Reserve an idempotency key for a request with the given fingerprint.

        A reservation older than ``stale_after`` seconds whose request never completed (a
        crashed worker) is taken over as ``"new"``. ``holder`` names the reserving process as
        a lease id does: a store shared by processes frees an ended one's reservations when it
        opens, as it frees its leases.
        """

    @abstractmethod
    def complete_key(self, key: str, response: StoredResponse) -> None:
        """Store the first answer for a reserved key."""

    @abstractmethod
    def release_key(self, key: str) -> None:
        """Forget a reserved key whose request did not succeed (it may be retried)."""

    def close(self) -> None:  # noqa: B027 - optional hook; the memory store has nothing to close
        """Release resources (connections); the store is unusable afterwards."""


@dataclass(slots=True)
class _Kept:
    state: ConversationState
    size: int
    tools_size: int
    used: float


def _weigh(state: ConversationState, tools_size: int) -> int:
    """Estimate a state's memory in bytes: its text, plus 2 KiB per conversation."""
    chars = sum(turn.chars for turn in state.history)
    turn = state.open_turn
    if turn is not None:
        chars += len(turn.query) + len(turn.thought) + len(turn.memo)
        chars += sum(len(result.output) for result in turn.results)
        chars += sum(len(str(call.arguments)) for call in turn.pending)
    chars += sum(run.chars for run in state.runs if isinstance(run, RunRecord))
    return 2048 + tools_size + 2 * chars  # str: up to 4 bytes a char


@dataclass(slots=True)
class KeyEntry:
    """A reserved idempotency key, as a store keeps it."""

    fingerprint: str
    reserved_at: float
    response: StoredResponse | None = None

    def reservation(self, fingerprint: str, *, now: float, stale_after: float) -> KeyReservation:
        """The answer to reserving the key again; ``"new"`` when a stale one is taken over."""
        if self.fingerprint != fingerprint:
            return KeyReservation("mismatch")
        if self.response is not None:
            return KeyReservation("replay", self.response)
        return KeyReservation("busy" if now - self.reserved_at < stale_after else "new")


class MemoryStore(Store):
    """A store in process memory: fast, shared by the threads of one process, lost at exit.

    Args:
        max_idempotency_keys: Replays kept; the oldest are forgotten first.
        max_idempotency_bytes: Total body bytes the replays may hold; the oldest are
            forgotten first (a body over it alone is not kept).
        max_messages_per_conversation: Run message ids remembered per conversation (what
            feedback may name); the oldest are forgotten first, so a long-lived
            conversation's memory does not grow with every run.
        max_conversation_bytes: The memory all conversations may take (estimated from
            their text); past it, the least recently used ones are forgotten (a run in
            progress keeps its own). A forgotten conversation is unknown (404).
        max_bytes_per_owner: The share of it one token's conversations may take; a request
            that would store more raises :class:`QuotaExceededError` (HTTP 429).
        idle_seconds: Conversations unused this long are forgotten (``None``: never).
        clock: Returns the time in seconds, for ``idle_seconds`` (injectable for tests).
        on_file_forgotten: Called with each file record of a forgotten conversation (the
            app removes the file's stored bytes).
    """

    def __init__(
        self,
        *,
        max_idempotency_keys: int = DEFAULT_IDEMPOTENCY_CACHE_SIZE,
        max_idempotency_bytes: int = DEFAULT_IDEMPOTENCY_CACHE_BYTES,
        max_messages_per_conversation: int = DEFAULT_MAX_MESSAGES_PER_CONVERSATION,
        max_conversation_bytes: int = 256 * 1024 * 1024,
        max_bytes_per_owner: int = 64 * 1024 * 1024,
        idle_seconds: float | None = 24 * 3600.0,
        clock: Callable[[], float] = time.monotonic,
        on_file_forgotten: Callable[[FileRecord], None] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._on_file_forgotten = on_file_forgotten
        # Least recently used first, each with its estimated size.
        self._conversations: OrderedDict[str, _Kept] = OrderedDict()
        self._bytes = 0
        self._owner_bytes: dict[str, int] = {}
        self._max_bytes = max_conversation_bytes
        self._max_owner_bytes = max_bytes_per_owner
        self._idle_seconds = idle_seconds
        self._clock = clock
        #: Conversations forgotten for memory or idleness so far.
        self.evicted_conversations = 0
        # Their text's length (about their JSON's), which is also what the memo weighs.
        self._tool_size = ToolMemo(lambda tool: len(str(tool)), size=1024, weigh=lambda _, n: n)
        self._leases: dict[str, tuple[str, float]] = {}  # conversation -> lease id, expiry
        # Per conversation, its message ids in run order (a dict is an ordered set).
        self._messages: dict[str, dict[str, None]] = {}
        self._max_messages = max_messages_per_conversation
        self._files: dict[str, FileRecord] = {}
        self._conversation_files: dict[str, dict[str, FileRecord]] = {}  # each one's, by id
        self._feedback: dict[str, list[FeedbackRecord]] = {}
        self._keys: OrderedDict[str, KeyEntry] = OrderedDict()
        self._max_keys = max_idempotency_keys
        self._max_key_bytes = max_idempotency_bytes
        self._key_bytes = 0

    def __repr__(self) -> str:
        return f"MemoryStore(conversations={len(self._conversations)})"

    def create_conversation(self, state: ConversationState) -> None:
        """Save a new conversation.

        Raises:
            QuotaExceededError: The owner's conversations would outgrow its quota.
        """
        with self._lock:
            self._keep(state)

    def get_conversation(self, conversation_id: str) -> ConversationState | None:
        with self._lock:
            kept = self._conversations.get(conversation_id)
            if kept is None:
                return None
            kept.used = self._clock()
            self._conversations.move_to_end(conversation_id)
            return kept.state

    def list_conversations(self, owner: str, *, limit: int) -> list[ConversationState]:
        with self._lock:
            owned = [
                kept.state for kept in self._conversations.values() if kept.state.owner == owner
            ]
        owned.sort(key=lambda state: state.created_at, reverse=True)
        return owned[:limit]

    def _keep(self, state: ConversationState) -> None:
        """Save ``state`` (the caller holds the lock); a refusal changes nothing."""
        cid, owner = state.conversation_id, state.owner
        previous = self._conversations.get(cid)
        if previous is not None and previous.state.tools == state.tools:  # same dicts: quick
            tools_size = previous.tools_size
        else:
            tools_size = sum(self._tool_size(tool) for tool in state.tools)
        size = _weigh(state, tools_size)
        grown = size - (previous.size if previous is not None else 0)
        owned = self._owner_bytes.get(owner, 0)
        if grown > 0 and owned + grown > self._max_owner_bytes:
            raise QuotaExceededError(
                f"this token's conversations would keep {(owned + grown) >> 20} MiB on the "
                f"server, over its quota of {self._max_owner_bytes >> 20} MiB; conversations "
                "left unused are forgotten in time",
                retry_after=int(self._idle_seconds or 3600),
            )
        now = self._clock()
        self._conversations[cid] = _Kept(state, size, tools_size, now)
        self._conversations.move_to_end(cid)
        self._owner_bytes[owner] = owned + grown
        self._bytes += grown
        self._forget_old(keep=cid, now=now)

    def _forget_old(self, *, keep: str, now: float) -> None:
        """Forget the least recently used idle or over-limit conversations, except leased ones."""
        idle_before = -1.0 if self._idle_seconds is None else now - self._idle_seconds
        over = self._bytes - self._max_bytes
        victims = []
        for cid, kept in self._conversations.items():  # usually stops at the first
            if kept.used >= idle_before and over <= 0:
                break
            if cid != keep and cid not in self._leases:
                victims.append(cid)
                over -= kept.size
        for cid in victims:
            kept = self._conversations.pop(cid)
            self._bytes -= kept.size
            owner = kept.state.owner
            self._owner_bytes[owner] -= kept.size
            if not self._owner_bytes[owner]:
                del self._owner_bytes[owner]
            self._messages.pop(cid, None)
            self._feedback.pop(cid, None)
            for file_id, record in self._conversation_files.pop(cid, {}).items():
                del self._files[file_id]
                if self._on_file_forgotten is not None:
                    self._on_file_forgotten(record)
            self.evicted_conversations += 1

    def acquire_run(
        self, conversation_id: str, *, lease_id: str, now: float, lease_seconds: float
    ) -> bool:
        with self._lock:
            lease = self._leases.get(conversation_id)
            if lease is not None and lease[1] > now:
                return False
            self._leases[conversation_id] = (lease_id, now + lease_seconds)
            return True

    def commit_run(
        self,
        state: ConversationState,
        *,
        lease_id: str,
        message_id: str,
        replay: tuple[str, StoredResponse] | None = None,
    ) -> bool:
        with self._lock:
            lease = self._leases.get(state.conversation_id)
            if lease is None or lease[0] != lease_id:
                return False
            self._keep(state)  # may refuse (quota): then nothing changed
            if replay is not None:
                self._complete_key(*replay)
            del self._leases[state.conversation_id]
            messages = self._messages.setdefault(state.conversation_id, {})
            messages[message_id] = None
            if len(messages) > self._max_messages:
                del messages[next(iter(messages))]
            return True

    def release_run(self, conversation_id: str, *, lease_id: str) -> None:
        with self._lock:
            lease = self._leases.get(conversation_id)
            if lease is not None and lease[0] == lease_id:
                del self._leases[conversation_id]

    def has_message(self, conversation_id: str, message_id: str) -> bool:
        with self._lock:
            return message_id in self._messages.get(conversation_id, {})

    def add_file(self, record: FileRecord) -> None:
        with self._lock:
            self._files[record.file_id] = record
            self._conversation_files.setdefault(record.conversation_id, {})[record.file_id] = record

    def get_file(self, file_id: str) -> FileRecord | None:
        with self._lock:
            return self._files.get(file_id)

    def files(self, conversation_id: str) -> list[FileRecord]:
        with self._lock:
            return list(self._conversation_files.get(conversation_id, {}).values())

    def add_feedback(self, record: FeedbackRecord) -> None:
        with self._lock:
            self._feedback.setdefault(record.conversation_id, []).append(record)

    def feedback(self, conversation_id: str) -> list[FeedbackRecord]:
        with self._lock:
            return list(self._feedback.get(conversation_id, ()))

    def reserve_key(
        self, key: str, fingerprint: str, *, now: float, stale_after: float, holder: str = ""
    ) -> KeyReservation:
        with self._lock:
            entry = self._keys.get(key)
            if entry is not None:
                found = entry.reservation(fingerprint, now=now, stale_after=stale_after)
                if found.outcome != "new":
                    return found
            self._keys[key] = KeyEntry(fingerprint, now)
            self._keys.move_to_end(key)
            self._trim_keys()
            return KeyReservation("new")

    def _trim_keys(self) -> None:
        while len(self._keys) > self._max_keys or self._key_bytes > self._max_key_bytes:
            _, entry = self._keys.popitem(last=False)
            if entry.response is not None:
                self._key_bytes -= len(entry.response.body)

    def complete_key(self, key: str, response: StoredResponse) -> None:
        with self._lock:
            self._complete_key(key, response)

    def _complete_key(self, key: str, response: StoredResponse) -> None:
        entry = self._keys.get(key)
        if entry is None or entry.response is not None:
            return
        if len(response.body) > self._max_key_bytes:
            del self._keys[key]  # too big to keep: a repeat runs again
            return
        entry.response = response
        self._key_bytes += len(response.body)
        self._trim_keys()

    def release_key(self, key: str) -> None:
        with self._lock:
            entry = self._keys.get(key)
            if entry is not None and entry.response is None:
                del self._keys[key]


def lease_owner_id() -> str:
    """A run lease's id: the holding process's pid (see :func:`lease_holder_gone`), a serial."""
    return f"{os.getpid()}-{serial_id()}"


def lease_holder_gone(lease_id: str) -> bool:
    """Whether the process that took ``lease_id`` has ended (on this machine).

    A lease of another form, or of a process that may still run (here or elsewhere), is never
    called gone: it waits out its lease.
    """
    pid_text, _, rest = lease_id.partition("-")
    if not pid_text.isdigit() or not rest or int(pid_text) == os.getpid():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists under another user, or the platform cannot tell
        return False
    return False
