"""Recent query plans of the rule agent, so one turn's decisions plan its query once.

The agent is asked again after every tool result of a turn, with the same query and the
same tools, and matching a query against tools is the costly part of a decision (tens of
microseconds; argument filling reads the whole query). :func:`match_intents` is a pure
function of the query, the tools and the date, so its recent results are kept here and
a turn's later decisions, and a query asked again, reuse them.

A tool's parameters are a dict and cannot be hashed, so the key holds their identity
and each entry keeps the dicts themselves: while an entry lives its ids cannot be reused,
and a hit is accepted only when the very same dicts are passed again. The run engine
hands the agent the same tool objects for as long as a conversation keeps its tools.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from ._tool_matching import Candidate, Intent, match_intents

__all__ = ["IntentMemo"]

#: Plans whose query and tool texts are longer are not kept, so the memo is bounded in bytes.
_MAX_KEY_CHARS = 64 * 1024

_Key = tuple[str, dt.date, tuple[tuple[str, str, int, bool], ...]]
_Entry = tuple[tuple[Mapping[str, Any], ...], tuple[Intent, ...]]


class IntentMemo:
    """The last ``size`` results of :func:`match_intents`, shared safely between threads.

    Args:
        size: Plans kept; the least recently used is dropped first.
    """

    def __init__(self, *, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[_Key, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def intents(
        self, query: str, candidates: Sequence[Candidate], *, today: dt.date
    ) -> list[Intent]:
        """Return ``match_intents(query, candidates, today=today)``, from memory if known."""
        parameters = tuple(candidate.parameters for candidate in candidates)
        key: _Key = (
            query,
            today,
            tuple((c.name, c.description, id(c.parameters), c.cloud) for c in candidates),
        )
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
        if entry is not None and all(
            kept is given for kept, given in zip(entry[0], parameters, strict=True)
        ):
            return list(entry[1])
        intents = match_intents(query, candidates, today=today)
        if len(query) + sum(len(c.name) + len(c.description) for c in candidates) > _MAX_KEY_CHARS:
            return intents  # kept `size` times over, large keys would pin a lot of memory
        with self._lock:
            self._entries[key] = (parameters, tuple(intents))
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return intents
