"""Reading a request off a connection: its head without a thread each, a chunked body.

A client sending its request a byte at a time (slowloris) would hold a serving thread for
every byte; :class:`HeadReader` instead watches new connections through one selector and
hands a connection on only once its head is whole (or over its limit, to be refused).
:func:`read_chunked` decodes a chunked body, bounded in size, line length and trailers;
:class:`BodyReader` is ``wsgi.input``.
"""

from __future__ import annotations

import contextlib
import io
import selectors
import socket
import threading
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

#: Longest request line or header line accepted.
MAX_LINE = 65536
#: Longest chunk-size line (hex size and extensions) and most trailer lines accepted.
_MAX_CHUNK_LINE = 4096
_MAX_TRAILERS = 100


class ChunkedBodyError(ValueError):
    """A chunked body that cannot be read; ``status`` is the answer to give."""

    def __init__(self, message: str, *, status: HTTPStatus = HTTPStatus.BAD_REQUEST) -> None:
        super().__init__(message)
        self.status = status


def read_chunked(stream: io.BufferedIOBase, *, limit: int) -> bytes:
    """Decode a chunked body (RFC 9112 7.1), ignoring extensions and trailers.

    Raises ChunkedBodyError: bad framing (400), over ``limit`` bytes (413), a client that
    stopped sending (408).
    """
    body = bytearray()
    try:
        while True:
            line = stream.readline(_MAX_CHUNK_LINE + 1)
            if len(line) > _MAX_CHUNK_LINE or not line.endswith(b"\n"):
                raise ChunkedBodyError("chunked body: a chunk-size line is cut or too long")
            size_text = line.split(b";", 1)[0].strip()
            if not size_text or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
                raise ChunkedBodyError(f"chunked body: {size_text[:20]!r} is not a hex size")
            size = int(size_text, 16)
            if size == 0:
                break
            if len(body) + size > limit:
                raise ChunkedBodyError(
                    f"chunked body: over the limit of {limit} bytes",
                    status=HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                )
            data = stream.read(size)
            if len(data) < size or stream.read(2) != b"\r\n":
                raise ChunkedBodyError("chunked body: a chunk is cut short or not ended by CRLF")
            body += data
        for _ in range(_MAX_TRAILERS):
            if stream.readline(MAX_LINE + 1) in (b"\r\n", b"\n", b""):
                return bytes(body)
        raise ChunkedBodyError("chunked body: too many trailer lines")
    except OSError:  # a timeout or a reset while the body was still coming
        raise ChunkedBodyError(
            "chunked body: the client stopped sending", status=HTTPStatus.REQUEST_TIMEOUT
        ) from None


_RECV_BYTES = 65536


class HeadReader:
    """Buffers new connections' request heads on one thread; hands whole ones on.

    ``on_head(connection, address, bytes_so_far)`` runs on the reader's thread once the bytes
    hold a whole head or more than ``max_bytes``; ``on_gone(connection)`` for one that closed
    first (it is not closed here).
    """

    def __init__(
        self,
        *,
        on_head: Callable[[socket.socket, Any, bytes], None],
        on_gone: Callable[[socket.socket], None],
        max_bytes: int,
    ) -> None:
        self._on_head = on_head
        self._on_gone = on_gone
        self._max_bytes = max_bytes
        self._selector = selectors.DefaultSelector()
        self._wake_read, self._wake_write = socket.socketpair()
        self._wake_read.setblocking(False)
        self._selector.register(self._wake_read, selectors.EVENT_READ)
        self._lock = threading.Lock()
        self._added: list[tuple[socket.socket, Any]] = []
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="appclient-heads", daemon=True)
        self._thread.start()

    def add(self, connection: socket.socket, address: Any) -> None:
        """Watch a new connection until its request head has arrived (thread-safe)."""
        with self._lock:
            self._added.append((connection, address))
        with contextlib.suppress(OSError):  # a full wake pipe already wakes the loop
            self._wake_write.send(b"\0")

    def close(self) -> None:
        """Stop the reader; connections still waiting are reported gone."""
        self._closed = True
        with contextlib.suppress(OSError):
            self._wake_write.send(b"\0")
        self._thread.join(timeout=10)

    def _run(self) -> None:
        try:
            while not self._closed:
                for key, _ in self._selector.select():
                    if key.fileobj is self._wake_read:
                        self._take_added()
                    else:
                        self._receive(key.fileobj, key.data)  # type: ignore[arg-type]
        finally:
            for key in list(self._selector.get_map().values()):
                if key.fileobj is not self._wake_read:
                    self._on_gone(key.fileobj)  # type: ignore[arg-type]
            self._selector.close()
            self._wake_read.close()
            self._wake_write.close()

    def _take_added(self) -> None:
        with contextlib.suppress(OSError):
            while self._wake_read.recv(4096):
                pass
        with self._lock:
            added, self._added = self._added, []
        for connection, address in added:
            try:
                connection.setblocking(False)
                # The key's data: the address, and the bytes so far.
                self._selector.register(connection, selectors.EVENT_READ, [address, bytearray()])
            except (OSError, ValueError):  # closed meanwhile (made room for another)
                self._on_gone(connection)

    def _receive(self, connection: socket.socket, state: list[Any]) -> None:
        try:
            data = connection.recv(_RECV_BYTES)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        head: bytearray = state[1]
        head += data
        # Only the new bytes and the two before them can end the head: a client dripping a
        # byte at a time costs this thread linear work, not a rescan and a copy per byte.
        tail = head[-len(data) - 2 :]
        whole = b"\n\r\n" in tail or b"\n\n" in tail or len(head) > self._max_bytes
        if data and not whole:
            return
        with contextlib.suppress(KeyError, ValueError, OSError):
            self._selector.unregister(connection)
        if data:
            self._on_head(connection, state[0], bytes(head))
        else:
            self._on_gone(connection)


class PrefixedReader(io.RawIOBase):
    """A connection's raw reader returning first the bytes the head reader already took."""

    def __init__(self, prefix: bytes, rest: io.BufferedIOBase) -> None:
        super().__init__()
        self._prefix = prefix
        self._rest = rest  # the socket's unbuffered reader

    def readable(self) -> bool:
        """Always readable."""
        return True

    def readinto(self, buffer: Any) -> int | None:
        """Read into ``buffer``, the kept prefix first."""
        if not self._prefix:
            return self._rest.readinto(buffer)
        size = min(len(buffer), len(self._prefix))
        buffer[:size], self._prefix = self._prefix[:size], self._prefix[size:]
        return size

    def close(self) -> None:
        """Close this reader and the socket's."""
        super().close()
        self._rest.close()


class BodyReader:
    """``wsgi.input``: the request body, never read past its length."""

    def __init__(self, stream: io.BufferedIOBase, length: int, on_done: Callable[[], None]) -> None:
        self._stream = stream
        self.remaining = length
        self.broken = False  # the client stopped sending: the connection cannot go on
        self._on_done = on_done  # called once the whole body has arrived
        if not length:
            on_done()

    def read(self, size: int = -1) -> bytes:
        """Read up to ``size`` bytes of the body (the rest when negative)."""
        return self._take(self._stream.read, size)

    def readline(self, size: int = -1) -> bytes:
        """Read one line of the body."""
        return self._take(self._stream.readline, size)

    def _take(self, method: Callable[[int], bytes], size: int) -> bytes:
        if size < 0 or size > self.remaining:
            size = self.remaining
        try:
            data = method(size) if size else b""
        except OSError:
            self.broken = True
            raise
        self.remaining -= len(data)
        if not self.remaining:
            self._on_done()
        return data

    def __iter__(self) -> Any:
        return iter(self.readline, b"")
