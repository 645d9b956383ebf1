"""What the reference server remembers, as plain immutable values (pure, no I/O).

The run engine reads a :class:`ConversationState` and returns a new one; stores save and
load states whole, so the memory and SQLite stores behave the same. A state keeps its
latest runs as :class:`RunRecord` values for the run inspector: they only refer to what the
run made, and :func:`run_view` makes the inspector's JSON (what the SQLite store saves).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from types import EllipsisType
from typing import Any, Final, Generic, Literal, TypeVar

from pydantic import TypeAdapter

from .._agents._agent_api import ToolResult, Turn
from .._settings import DEFAULT_MAX_HISTORY_CHARS

#: Runs a conversation keeps for the inspector; older ones are dropped first.
MAX_RUNS_KEPT: Final = 20
#: The longest text the inspector shows of a run (a query, an output, an answer).
MAX_TEXT_CHARS: Final = 2000
RECORD_BYTES: Final = 512  # a record's own memory, besides the texts it refers to


@dataclass(frozen=True, slots=True)
class PendingCall:
    """A local tool call sent to the program and not answered yet."""

    call_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RunFailure:
    """Why a run ended with an ``error`` event."""

    code: int
    message: str


@dataclass(frozen=True, slots=True)
class RunResult:
    """What one run made, without the conversation state (which a :class:`RunRecord` keeps).

    Attributes:
        query: The query of the turn (for usage figures).
        calls: Local calls the run ends with (non-empty for an interrupt).
        usage: The model's token usage over the run's decisions, when the agent reported
            it; ``None`` means count characters.
    """

    message_id: str
    query: str
    cloud_steps: tuple[ToolResult, ...] = ()
    calls: tuple[PendingCall, ...] = ()
    thought: str = ""
    answer: str = ""
    failure: RunFailure | None = None
    usage: dict[str, int] | None = None

    @property
    def ending(self) -> Literal["interrupt", "answer", "error"]:
        """How the run ends: ``interrupt``, ``answer`` or ``error``."""
        if self.failure is not None:
            return "error"
        return "interrupt" if self.calls else "answer"


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One run, as the inspector shows it (see :func:`run_view`).

    Attributes:
        query: What the request asked ("" for a tool-outputs run).
        outputs: Tool call id, output, tool call id, output, ...
        chars: Roughly the characters it keeps alive (for the memory store's accounting).
    """

    run: RunResult
    request_id: str
    started: float
    seconds: float
    stream: bool
    query: str
    outputs: tuple[str, ...]
    chars: int


def _clip(text: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    return text[:MAX_TEXT_CHARS] + f"… ({len(text) - MAX_TEXT_CHARS:,} more characters)"


def _arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _clip(v) if isinstance(v, str) else v for key, v in arguments.items()}


def run_view(record: RunRecord | Mapping[str, Any]) -> dict[str, Any]:
    """Return a run as the inspector's JSON (texts clipped); a view passes through as is."""
    if not isinstance(record, RunRecord):
        return dict(record)  # loaded from the SQLite store, which saves views
    run = record.run
    events: list[dict[str, Any]] = [
        {
            "kind": "component",
            "name": step.name,
            "call_id": step.call_id,
            "arguments": _arguments(step.arguments),
            "output": _clip(step.output),
        }
        for step in run.cloud_steps
    ]
    if run.calls:
        calls = [
            {"id": call.call_id, "name": call.name, "arguments": _arguments(call.arguments)}
            for call in run.calls
        ]
        events.append({"kind": "tool_calls", "thought": _clip(run.thought), "calls": calls})
    elif run.failure is not None:
        failure = run.failure
        events.append({"kind": "error", "code": failure.code, "message": _clip(failure.message)})
    else:
        events.append({"kind": "answer", "text": _clip(run.answer)})
    return {
        "message_id": run.message_id,
        "request_id": record.request_id,
        "started": record.started,
        "seconds": record.seconds,
        "stream": record.stream,
        "query": _clip(record.query),
        "outputs": [
            {"tool_call_id": record.outputs[i], "output": _clip(record.outputs[i + 1])}
            for i in range(0, len(record.outputs), 2)
        ],
        "events": events,
        "ending": run.ending,
        "usage": run.usage,
    }


@dataclass(frozen=True, slots=True)
class OpenTurn:
    """A turn that stopped at an interrupt and waits for tool outputs.

    Attributes:
        results: Calls finished so far in this turn (cloud results and local outputs).
        thought: The agent's reason for the pending calls (repeated if re-asked).
        memo: The agent's note for its next decision in this turn (a plan, evidence).
    """

    query: str
    results: tuple[ToolResult, ...] = ()
    pending: tuple[PendingCall, ...] = ()
    thought: str = ""
    file_names: tuple[str, ...] = ()
    end_user_id: str | None = None
    memo: str = ""


@dataclass(frozen=True, slots=True)
class TurnRecord(Turn):
    """A finished turn, with its run and calls: a :class:`Turn`, as the agent reads history."""

    message_id: str = ""
    results: tuple[ToolResult, ...] = ()
    #: Characters of query, answer and outputs, which the history's size limit counts.
    chars: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        outputs = sum(len(result.output) for result in self.results)
        object.__setattr__(self, "chars", len(self.query) + len(self.answer) + outputs)


@dataclass(frozen=True, slots=True)
class ConversationState:
    """Everything the server keeps about one conversation.

    Attributes:
        owner: A fingerprint of the token that created it (never the token itself).
        tools: The conversation's local tools, normalised to JSON Schema.
        runs: The latest runs' records, oldest first (:class:`RunRecord`, or their JSON
            view once loaded from the SQLite store).
    """

    conversation_id: str
    owner: str
    app_id: str
    created_at: float
    tools: tuple[dict[str, Any], ...] = ()
    open_turn: OpenTurn | None = None
    history: tuple[TurnRecord, ...] = ()
    runs: tuple[RunRecord | dict[str, Any], ...] = ()

    def evolve(
        self,
        *,
        tools: tuple[dict[str, Any], ...] | None = None,
        open_turn: OpenTurn | EllipsisType | None = ...,  # ``...``: keep it (None clears it)
        history: tuple[TurnRecord, ...] | None = None,
        runs: tuple[RunRecord | dict[str, Any], ...] | None = None,
    ) -> ConversationState:
        """Return a copy with the given parts replaced (faster than ``dataclasses.replace``)."""
        return ConversationState(
            self.conversation_id,
            self.owner,
            self.app_id,
            self.created_at,
            self.tools if tools is None else tools,
            self.open_turn if isinstance(open_turn, EllipsisType) else open_turn,
            self.history if history is None else history,
            self.runs if runs is None else runs,
        )

    def with_turn_finished(self, record: TurnRecord, *, keep: int) -> ConversationState:
        """Return a copy with ``record`` appended to the history (at most ``keep`` turns).

        Older turns are kept only while the history fits in ``DEFAULT_MAX_HISTORY_CHARS``:
        every run reads and writes it whole. The latest turn is always kept.
        """
        kept = [record]
        budget = DEFAULT_MAX_HISTORY_CHARS - record.chars
        for turn in reversed(self.history[max(len(self.history) - keep + 1, 0) :]):
            budget -= turn.chars
            if budget < 0:
                break
            kept.append(turn)
        return self.evolve(open_turn=None, history=tuple(reversed(kept)))

    def to_json(self) -> str:
        """Return the state as JSON text (for the SQLite store)."""
        data = asdict(replace(self, runs=()))
        data["runs"] = [run_view(run) for run in self.runs]
        for turn in data["history"]:
            del turn["chars"]  # derived from the turn; recomputed when it is loaded
        # ASCII escapes: agent text could hold a lone surrogate, which SQLite refuses.
        return json.dumps(data, ensure_ascii=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> ConversationState:
        """Rebuild a state saved with :meth:`to_json`."""
        return load_record(ConversationState, text)


_T = TypeVar("_T")


def load_record(cls: type[_T], text: str) -> _T:
    """Rebuild a record (nested dataclasses included) from the JSON of its ``asdict``."""
    adapter = _adapters.get(cls) or _adapters.setdefault(cls, TypeAdapter(cls))
    record: _T = adapter.validate_python(json.loads(text))
    return record


_adapters: dict[type, TypeAdapter[Any]] = {}


class ToolMemo(Generic[_T]):
    """Values derived from the shared, read-only checked tool dicts, kept by identity.

    An entry holds its dict, so the id stays unique; the oldest entry is forgotten first, and
    a tool over 16 KiB (``weigh`` says how big: its text's length unless told) is not kept.
    """

    def __init__(
        self,
        derive: Callable[[dict[str, Any]], _T],
        *,
        size: int = 512,
        weigh: Callable[[dict[str, Any], _T], int] = lambda tool, _: len(str(tool)),
    ) -> None:
        self._derive = derive
        self._weigh = weigh
        self._size = size
        self._kept: OrderedDict[int, tuple[dict[str, Any], _T]] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, tool: dict[str, Any]) -> _T:
        # One lookup is atomic without the lock; the identity check catches a replaced entry.
        entry = self._kept.get(id(tool))
        if entry is not None and entry[0] is tool:
            return entry[1]
        value = self._derive(tool)
        if self._weigh(tool, value) <= 16 * 1024:
            with self._lock:
                self._kept[id(tool)] = (tool, value)
                while len(self._kept) > self._size:
                    self._kept.popitem(last=False)
        return value


@dataclass(frozen=True, slots=True)
class FileRecord:
    """An uploaded file (or a remembered ``file_url``) of a conversation.

    Attributes:
        name: The client's file name (or the URL's last segment).
        stored_as: The file's name inside the server's data directory ("" for a URL).
        url: The ``file_url`` given instead of a file ("" for an upload).
    """

    file_id: str
    conversation_id: str
    owner: str
    name: str
    size: int
    stored_as: str
    url: str
    created_at: float


@dataclass(frozen=True, slots=True)
class FeedbackRecord:
    """One feedback call against a message of a conversation."""

    conversation_id: str
    message_id: str
    type: str
    flag: tuple[str, ...]
    reason: str | None
    created_at: float


@dataclass(frozen=True, slots=True)
class StoredResponse:
    """A successful response (HTTP 200) kept for replays; a stream's ``body`` is its SSE text."""

    status: int
    request_id: str
    content_type: str
    body: bytes
    stream: bool
