r"""Server-sent events: bytes in, one ``data`` text per message out (pure, no I/O).

The WHATWG event-stream rules the protocol needs (docs/protocol.md section 5): lines end with
CR, LF or CRLF only, however the bytes are chunked; ``data:`` lines join with ``\n`` and a blank
line ends a message; other fields, comments, a leading BOM and ``[DONE]`` are dropped, and lines
that are no field are kept as :attr:`SSEDecoder.unframed_text`. At the end, a message lacking
only its blank line is delivered, an unterminated line is dropped (it broke mid-line). A line or
message over ``max_line_bytes`` raises :class:`~appclient.errors.ResponseDecodeError`.
"""

from __future__ import annotations

import re
from typing import Final

from ._constants import MAX_SSE_LINE_BYTES
from ._errors import ResponseDecodeError

_LINE_END: Final = re.compile(rb"\r\n|\r|\n")
_BOM: Final = "\ufeff"
_BOM_BYTES: Final = _BOM.encode()
_DONE_MARKER: Final = "[DONE]"
#: Field names of the event-stream format ("" is a comment line).
_FIELDS: Final = frozenset({"", "data", "event", "id", "retry"})


class SSEDecoder:
    r"""Incremental event-stream decoder: feed bytes, get the ``data`` text of each message.

    Example:
        >>> decoder = SSEDecoder()
        >>> decoder.feed(b'data: {"answer": "hi"}\r')
        []
        >>> decoder.feed(b"\n\r\n")
        ['{"answer": "hi"}']
    """

    def __init__(self, *, max_line_bytes: int = MAX_SSE_LINE_BYTES) -> None:
        if max_line_bytes < 1:
            raise ValueError(f"max_line_bytes must be at least 1, got {max_line_bytes}")
        self._max = max_line_bytes
        self._partial: list[bytes] = []  # pieces of the line not yet terminated
        self._partial_size = 0
        self._skip_lf = False  # the previous chunk ended with CR: a leading LF belongs to it
        self._first_line = True  # a byte-order mark may only start the stream
        self._data: list[str] = []  # data lines of the message being read
        self._data_size = 0
        self._unframed: list[str] = []  # lines that are no field: maybe a bare JSON body
        self._unframed_size = 0
        self._ended = False

    def feed(self, chunk: bytes) -> list[str]:
        """The data text of every message these bytes (split anywhere) complete, in order."""
        if self._ended:
            raise RuntimeError("feed() called after end()")
        if not chunk:
            return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk[0] == 0x0A:  # the LF of a CRLF split across chunks
                chunk = chunk[1:]
                if not chunk:
                    return []
        messages: list[str] = []
        if 0x0D not in chunk:
            # The common case (LF line ends), without a regex.
            if self._partial:
                if 0x0A not in chunk:  # the held line goes on (joined once, at its end)
                    self._hold(chunk)
                    return messages
                chunk = b"".join(self._partial) + chunk
                self._partial.clear()
                self._partial_size = 0
            *lines, rest = chunk.split(b"\n")
            if self._first_line and lines:
                if lines[0].startswith(_BOM_BYTES):  # the slow path skips it
                    self._take_line(lines.pop(0), messages)
                self._first_line = False
            data, limit = self._data, self._max
            for line in lines:
                # Inline, the two lines every message has: "data: ..." and the blank one.
                if line.startswith(b"data: ") and len(line) <= limit:
                    try:
                        value = line[6:].decode("utf-8")
                    except UnicodeDecodeError:
                        self._take_line(line, messages)  # raises the decode error
                        continue
                    self._data_size += len(value) + 1
                    if self._data_size > limit:
                        raise ResponseDecodeError(self._too_long("message"))
                    data.append(value)
                elif line:
                    self._take_line(line, messages)
                elif data:
                    self._dispatch(messages)
            if rest:
                self._hold(rest)
            return messages
        start = 0
        for match in _LINE_END.finditer(chunk):
            piece = chunk[start : match.start()]
            if self._partial:
                self._partial.append(piece)
                line = b"".join(self._partial)
                self._partial.clear()
                self._partial_size = 0
            else:
                line = piece
            self._take_line(line, messages)
            start = match.end()
        if start and chunk[start - 1] == 0x0D:  # the chunk ended on a CR: an LF may follow
            self._skip_lf = start == len(chunk)
        if start < len(chunk):
            self._hold(chunk[start:])
        return messages

    def end(self) -> list[str]:
        """Finish the stream: the message whose blank line never came, if any."""
        self._ended = True
        if self._partial:  # a bare JSON body may well end without a line end
            line = b"".join(self._partial).decode("utf-8", errors="replace")
            if line.partition(":")[0] not in _FIELDS:
                self._keep_unframed(line)
        self._partial.clear()
        self._partial_size = 0
        messages: list[str] = []
        self._dispatch(messages)
        return messages

    @property
    def unframed_text(self) -> str:
        """The lines that were no field (a plain JSON body), kept up to ``max_line_bytes``."""
        return "\n".join(self._unframed)

    def _take_line(self, raw: bytes, messages: list[str]) -> None:
        if len(raw) > self._max:
            raise ResponseDecodeError(self._too_long("line"))
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ResponseDecodeError(f"event stream line is not UTF-8: {exc}") from exc
        if self._first_line:
            self._first_line = False
            if line.startswith(_BOM):
                line = line[1:]
        if not line:
            self._dispatch(messages)
            return
        field, colon, value = line.partition(":")
        if field != "data":
            if field not in _FIELDS:
                self._keep_unframed(line)
            return  # comments (empty field), event, id, retry and unknown fields
        value = value[1:] if colon and value.startswith(" ") else value
        self._data_size += len(value) + 1
        if self._data_size > self._max:
            raise ResponseDecodeError(self._too_long("message"))
        self._data.append(value)

    def _hold(self, rest: bytes) -> None:
        """Keep the start of a line whose end has not arrived yet."""
        self._partial_size += len(rest)
        if self._partial_size > self._max:
            raise ResponseDecodeError(self._too_long("line"))
        self._partial.append(rest)

    def _keep_unframed(self, line: str) -> None:
        self._unframed_size += len(line) + 1
        if self._unframed_size <= self._max:
            self._unframed.append(line)

    def _dispatch(self, messages: list[str]) -> None:
        if not self._data:
            return
        data = "\n".join(self._data)
        self._data.clear()
        self._data_size = 0
        if data and data != _DONE_MARKER:
            messages.append(data)

    def _too_long(self, what: str) -> str:
        return f"event stream {what} longer than {self._max} bytes; the stream is broken"


def decode_sse(body: bytes, *, max_line_bytes: int = MAX_SSE_LINE_BYTES) -> list[str]:
    """Decode a whole event-stream body: the data text of every message, in order."""
    decoder = SSEDecoder(max_line_bytes=max_line_bytes)
    return decoder.feed(body) + decoder.end()
