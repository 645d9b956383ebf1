"""Which part of a model's reply is its answer, told while the reply still streams in (pure).

A tool call, or the words before one, must not stream as answer text (a tool round stays one
message for the official Go and Java clients). With native tool calling the text streams
until a tool call shows up; in a ReAct format, what follows ``Final Answer:`` streams; in the
other text formats nothing does, and the answer goes out whole when the reply ends.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

_FINAL_ANSWER: Final = re.compile(r"Final[ _]Answer\s*[:：]\s*")
#: Longest text held back while looking for ``Final Answer:`` (past it, nothing is streamed).
_MAX_HELD: Final = 64 * 1024


class AnswerFilter:
    """Passes on the answer part of a streaming reply.

    Args:
        tool_format: ``None`` or ``"native"`` for plain text, else a text format's name.
        emit: Receives the answer text, piece by piece; ``None`` to pass nothing.
    """

    def __init__(self, tool_format: str | None, emit: Callable[[str], None] | None) -> None:
        self._emit = emit
        self._open = tool_format in (None, "native")
        self._stopped = emit is None or not (self._open or tool_format in ("react_en", "react_zh"))
        self._held = ""
        self._started = False

    def stop(self) -> None:
        """The reply turned out to call tools: pass nothing more."""
        self._stopped = True

    def feed(self, text: str) -> None:
        """Take the next piece of the reply."""
        if self._stopped or not text:
            return
        if self._open:
            self._send(text)
            return
        self._held += text
        found = _FINAL_ANSWER.search(self._held)
        if found is not None:
            self._open = True
            self._send(self._held[found.end() :])
            self._held = ""
        elif len(self._held) > _MAX_HELD:
            self._stopped = True

    def _send(self, text: str) -> None:
        if not self._started:
            text = text.lstrip()  # the answer a parser reads is stripped at its start
        if text and self._emit is not None:
            self._started = True
            self._emit(text)
