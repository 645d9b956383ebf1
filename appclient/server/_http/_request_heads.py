"""New connections wait for their request head here, without a thread each (slowloris).

One thread watches every new connection through the selector and hands it to a serving
thread only once its head is whole (or has outgrown ``max_bytes``, to be refused), so
clients sending a byte at a time cannot hold a thread each.
"""

from __future__ import annotations

import contextlib
import io
import selectors
import socket
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["HeadReader", "PrefixedReader"]

_RECV_BYTES = 65536


class HeadReader:
    """Buffers new connections' request heads on one thread; hands whole ones on.

    Args:
        on_head: Called (on the reader's thread) with a connection, its address and the
            bytes read so far, once they hold a whole head or more than ``max_bytes``.
        on_gone: Called with a connection that closed or failed before its head was
            whole (it is not closed here).
        max_bytes: Bytes after which a head is handed on unfinished (to be refused).
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
        self._waiting: dict[socket.socket, tuple[Any, bytes]] = {}  # -> address, bytes so far
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="appclient-heads", daemon=True)
        self._thread.start()

    def __len__(self) -> int:
        return len(self._waiting)

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
                        self._receive(key.fileobj)  # type: ignore[arg-type]
        finally:
            for connection in list(self._waiting):
                self._forget(connection)
                self._on_gone(connection)
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
                self._selector.register(connection, selectors.EVENT_READ)
            except (OSError, ValueError):  # closed meanwhile (made room for another)
                self._on_gone(connection)
                continue
            self._waiting[connection] = (address, b"")

    def _receive(self, connection: socket.socket) -> None:
        address, head = self._waiting[connection]
        try:
            data = connection.recv(_RECV_BYTES)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._forget(connection)
            self._on_gone(connection)
            return
        head += data
        if b"\n\r\n" in head or b"\n\n" in head or len(head) > self._max_bytes:
            self._forget(connection)
            self._on_head(connection, address, head)
        else:
            self._waiting[connection] = (address, head)

    def _forget(self, connection: socket.socket) -> None:
        del self._waiting[connection]
        with contextlib.suppress(KeyError, ValueError, OSError):
            self._selector.unregister(connection)


class PrefixedReader(io.BufferedIOBase):
    """A connection's reader that first returns the bytes the head reader already took."""

    def __init__(self, prefix: bytes, rest: io.BufferedIOBase) -> None:
        super().__init__()
        self._prefix = prefix
        self._rest = rest

    def readable(self) -> bool:
        """Always readable."""
        return True

    def unwrapped(self) -> io.BufferedIOBase:
        """The socket's own reader once the kept prefix is read, else this reader."""
        return self if self._prefix else self._rest

    def read(self, size: int | None = -1) -> bytes:
        """Read ``size`` bytes (all when negative), the kept prefix first."""
        if not self._prefix:
            return self._rest.read(size)
        if size is None or size < 0:
            data, self._prefix = self._prefix, b""
            return data + self._rest.read()
        data, self._prefix = self._prefix[:size], self._prefix[size:]
        if len(data) < size:
            data += self._rest.read(size - len(data))
        return data

    def readline(self, size: int | None = -1) -> bytes:
        """Read one line of at most ``size`` bytes, the kept prefix first."""
        if not self._prefix:
            return self._rest.readline(size)
        limit = len(self._prefix) if size is None or size < 0 else min(size, len(self._prefix))
        end = self._prefix.find(b"\n", 0, limit)
        cut = end + 1 if end >= 0 else limit
        line, self._prefix = self._prefix[:cut], self._prefix[cut:]
        if not line.endswith(b"\n") and not self._prefix:  # the line goes on in the socket
            more = -1 if size is None or size < 0 else size - len(line)
            if more:
                line += self._rest.readline(more)
        return line
