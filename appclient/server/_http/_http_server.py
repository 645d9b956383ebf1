"""A small threaded HTTP/1.1 server for WSGI apps, from the standard library only.

Built for the round trip's latency: keep-alive, Nagle off, each non-stream response in ONE
send; a stream goes out one SSE message per send and closes after the last. A chunked body
(the official Go SDK sends them) is decoded before the app sees it. New connections wait for
their head in a :class:`~._request_reading.HeadReader`, without a thread each (slowloris).
"""

from __future__ import annotations

import contextlib
import email.utils
import io
import itertools
import logging
import re
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterable
from http import HTTPStatus
from typing import Any
from urllib.parse import unquote, urlsplit

from ..._core._constants import HEADER_REQUEST_ID
from .._settings import DEFAULT_KEEPALIVE_TIMEOUT, DEFAULT_MAX_CONNECTIONS
from ._request_reading import (
    MAX_LINE,
    BodyReader,
    ChunkedBodyError,
    HeadReader,
    PrefixedReader,
    read_chunked,
)
from ._responses import HTTPProblem, error_response, new_id

#: Seconds a request (line, headers, body) may take to arrive before its client is dropped.
DEFAULT_REQUEST_READ_TIMEOUT = 30.0

_log = logging.getLogger("appclient.server.http")

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

#: Unread request bytes drained (instead of closing the connection) after a response.
_DRAIN_LIMIT = 64 * 1024 * 1024
_DRAIN_CHUNK = 64 * 1024
_MAX_HEADERS = 100
#: Seconds a new client waits, when every connection is serving, for one to finish (one that
#: has just sent its answer is marked done a moment later) before its 503.
_ROOM_GRACE = 0.05
#: Connections that may wait for their head, per thread the server may run (a buffer each).
_HEADS_PER_THREAD = 4
#: A head still incomplete at this size is handed on, to be answered 431 or 414.
_MAX_HEAD_BYTES = 4 * MAX_LINE
_DIGITS = re.compile(r"[0-9]+")
_date_cache: tuple[int, str] = (0, "")


def _http_date() -> str:
    global _date_cache  # a one-entry cache; a race only recomputes it
    now = int(time.time())
    if _date_cache[0] != now:
        _date_cache = (now, email.utils.formatdate(now, usegmt=True))
    return _date_cache[1]


def _error_message(status: HTTPStatus, message: str, *headers: tuple[str, str]) -> bytes:
    """A whole HTTP error response, in the protocol's JSON error shape, that closes."""
    problem = HTTPProblem(status.value, status.phrase.replace(" ", ""), message)
    response = error_response(problem, request_id=new_id())
    lines = [
        f"HTTP/1.1 {status.value} {status.phrase}",
        "Content-Type: application/json; charset=utf-8",
        f"{HEADER_REQUEST_ID}: {response.request_id}",
        *(f"{name}: {value}" for name, value in headers),
        f"Content-Length: {len(response.body)}",
        "Connection: close",
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + response.body


class _Handler(socketserver.StreamRequestHandler):
    disable_nagle_algorithm = True
    rbufsize = 0  # buffered below, after what the head reader took of the first request
    server: WSGIHTTPServer

    def setup(self) -> None:
        # The idle keep-alive limit: a silent client frees its thread after this long.
        self.request.settimeout(self.server.keepalive_timeout)
        super().setup()
        head = self.server.take_head(self.connection)
        self.rfile = io.BufferedReader(PrefixedReader(head, self.rfile))

    def handle(self) -> None:
        self.close_connection = False
        while not self.close_connection:
            self.handle_one_request()

    def handle_one_request(self) -> None:
        # The whole request must arrive within the read timeout from here: a client dripping
        # a byte now and then is dropped instead of holding a thread for ever (slowloris).
        self.server.reading(self.connection)
        try:
            line = self.rfile.readline(MAX_LINE + 1)
            if len(line) > MAX_LINE:
                self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
            elif not line:
                self.close_connection = True
            elif self._parse_request(line.decode("latin-1").rstrip("\r\n")):
                self._serve()
        except OSError:  # a timeout, a reset, or a socket that timed out earlier
            self.close_connection = True

    def _parse_request(self, request_line: str) -> bool:
        # http.server's parse_request reads headers with the email parser (~40 us a
        # request); this reads the same HTTP/1.x grammar directly, with the same limits.
        self.close_connection = True
        parts = request_line.split()
        if len(parts) != 3 or not parts[2].startswith("HTTP/"):
            self.send_error(HTTPStatus.BAD_REQUEST, f"bad request line {request_line[:80]!r}")
            return False
        self.command, self.path, self.request_version = parts
        if self.request_version not in ("HTTP/1.1", "HTTP/1.0"):
            self.send_error(HTTPStatus.HTTP_VERSION_NOT_SUPPORTED, "use HTTP/1.1")
            return False
        # Kept as the WSGI environ keys they become (repeats joined with commas), so the
        # environ is one dict update later, not a second pass over the headers.
        fields: dict[str, str] = {}
        for count in itertools.count():
            line = self.rfile.readline(MAX_LINE + 1)
            if line in (b"\r\n", b"\n", b""):
                break
            if len(line) > MAX_LINE or count >= _MAX_HEADERS:
                self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)
                return False
            name, separator, value = line.decode("latin-1").partition(":")
            if not separator or not name or name != name.strip():
                self.send_error(HTTPStatus.BAD_REQUEST, "malformed header line")
                return False
            key, value = "HTTP_" + name.upper().replace("-", "_"), value.strip()
            fields[key] = f"{fields[key]},{value}" if key in fields else value
        self.fields = fields
        connection = fields.get("HTTP_CONNECTION", "").lower()
        if self.request_version == "HTTP/1.1":
            self.close_connection = "close" in connection
        else:
            self.close_connection = "keep-alive" not in connection
        if fields.get("HTTP_EXPECT", "").lower() == "100-continue":
            self._send(b"HTTP/1.1 100 Continue\r\n\r\n")
        return True

    def send_error(self, status: HTTPStatus, message: str | None = None) -> None:
        """Answer an HTTP-level error in the protocol's JSON error shape, then close."""
        self.close_connection = True
        date = ("Date", _http_date())
        self._send(_error_message(status, message or status.description, date))

    def _send(self, data: bytes) -> None:
        try:
            self.wfile.write(data)
        except OSError:
            self.close_connection = True
            raise ConnectionError("the client went away") from None

    def _environ(self, body: BodyReader) -> dict[str, Any]:
        target = self.path
        if "://" in target.split("?", 1)[0]:
            parts = urlsplit(target)
            target = parts.path + (f"?{parts.query}" if parts.query else "")
        path, _, query = target.partition("?")
        environ: dict[str, Any] = {
            "REQUEST_METHOD": self.command,
            "SCRIPT_NAME": "",
            "PATH_INFO": unquote(path, "latin-1"),
            "QUERY_STRING": query,
            "SERVER_NAME": self.server.server_name,
            "SERVER_PORT": str(self.server.server_port),
            "SERVER_PROTOCOL": self.request_version,
            "REMOTE_ADDR": self.client_address[0],
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.input": body,
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        environ.update(self.fields)
        # CGI names these two without the HTTP_ prefix.
        environ["CONTENT_TYPE"] = environ.pop("HTTP_CONTENT_TYPE", "")
        environ["CONTENT_LENGTH"] = environ.pop("HTTP_CONTENT_LENGTH", "")
        return environ

    def _serve(self) -> None:
        length_text = self.fields.get("HTTP_CONTENT_LENGTH", "0")
        coding = self.fields.pop("HTTP_TRANSFER_ENCODING", None)
        body: io.BufferedIOBase = self.rfile
        if coding is not None:
            if "HTTP_CONTENT_LENGTH" in self.fields:
                # A proxy in front may frame the body by the other header: serving it would
                # let a second request hide in the body.
                self.send_error(
                    HTTPStatus.LENGTH_REQUIRED, "send a Content-Length or chunks, not both"
                )
                return
            if coding.strip().lower() != "chunked":
                self.send_error(
                    HTTPStatus.NOT_IMPLEMENTED, f"Transfer-Encoding {coding!r} is not supported"
                )
                return
            try:
                decoded = read_chunked(self.rfile, limit=_DRAIN_LIMIT)
            except ChunkedBodyError as exc:
                self.send_error(exc.status, str(exc))
                return
            # The app sees an ordinary body of known length, as a proxy would pass it on.
            length_text = self.fields["HTTP_CONTENT_LENGTH"] = str(len(decoded))
            body = io.BytesIO(decoded)
        if not _DIGITS.fullmatch(length_text.strip()):  # int() would take "+31" or "3_1"
            self.send_error(HTTPStatus.BAD_REQUEST, "Content-Length is not a number")
            return
        if not self.server.begin_request(self.connection):
            # The server is stopping: drop the connection unanswered (a client may retry).
            self.close_connection = True
            return
        try:
            self._run_app(body, int(length_text))
        finally:
            self.server.end_request(self.connection)

    def _run_app(self, stream: io.BufferedIOBase, length: int) -> None:
        connection = self.connection
        body = BodyReader(stream, length, lambda: self.server.read_done(connection))
        captured: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], *_: Any) -> Any:
            captured[:] = [status, headers]
            return self._send

        result = self.server.app(self._environ(body), start_response)
        if body.broken:
            self.close_connection = True
        try:
            self._write(result, *captured)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        if body.remaining and not body.broken:
            # Read what the client still sends, so it sees our answer instead of a reset.
            while body.remaining <= _DRAIN_LIMIT and body.read(_DRAIN_CHUNK):
                pass
            if body.remaining:
                self.close_connection = True

    def _write(self, result: Iterable[bytes], status: str, headers: list[tuple[str, str]]) -> None:
        streaming = not any(name.lower() == "content-length" for name, _ in headers)
        if streaming:
            # No length to frame the body: the end of the stream is the end of the connection.
            self.close_connection = True
        # No Server header: every header costs the client parsing time on each response.
        lines = [f"HTTP/1.1 {status}", *(f"{name}: {value}" for name, value in headers)]
        lines.append(f"Date: {_http_date()}")
        if self.close_connection:
            lines.append("Connection: close")
        pending = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        if self.command == "HEAD":
            self._send(pending)
        elif not streaming:
            self._send(pending + b"".join(result))
        else:
            for chunk in result:
                if chunk:
                    self._send(pending + chunk)
                    pending = b""
            if pending:
                self._send(pending)


class WSGIHTTPServer(socketserver.ThreadingTCPServer):
    """Serves a WSGI app over HTTP/1.1 at ``address`` (port 0: a free one, ``server_port``).

    One thread per connection with a request in, at most ``max_connections``: at the limit a
    new one takes the place of the one waiting longest for a request, or is answered 503
    when all are serving one.
    """

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(
        self,
        address: tuple[str, int],
        app: WSGIApp,
        *,
        keepalive_timeout: float = DEFAULT_KEEPALIVE_TIMEOUT,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        request_read_timeout: float = DEFAULT_REQUEST_READ_TIMEOUT,
    ) -> None:
        self.app = app
        self.keepalive_timeout = keepalive_timeout
        self.max_connections = max_connections
        self.request_read_timeout = request_read_timeout
        #: Connections dropped for sending a request too slowly, or to make room.
        self.slow_clients_dropped = 0
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)  # notified when a request ends
        self._connections: set[socket.socket] = set()
        self._busy: set[socket.socket] = set()  # an app is serving their request
        self._in_head: set[socket.socket] = set()  # their head is still coming
        self._reading: dict[socket.socket, float] = {}  # -> when their request is due
        self._heads_read: dict[socket.socket, bytes] = {}
        self._draining = False
        self._thread: threading.Thread | None = None
        if ":" in address[0]:  # an IPv6 literal; the class default is IPv4 only
            self.address_family = socket.AF_INET6
        self._heads = HeadReader(  # before binding: a failed bind calls server_close()
            on_head=self._head_arrived, on_gone=self.shutdown_request, max_bytes=_MAX_HEAD_BYTES
        )
        try:
            super().__init__(address, _Handler)
        except BaseException:  # also before binding (no such address family)
            self._heads.close()
            raise
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)

    def reading(self, connection: socket.socket) -> None:
        """Start the read deadline of the connection's next request."""
        with self._lock:
            self._reading[connection] = time.monotonic() + self.request_read_timeout

    def read_done(self, connection: socket.socket) -> None:
        """The request has arrived: end its read deadline."""
        with self._lock:
            self._reading.pop(connection, None)

    def service_actions(self) -> None:
        """Drop the connections whose request is late (every poll)."""
        now = time.monotonic()
        with self._lock:
            late = [conn for conn, deadline in self._reading.items() if deadline <= now]
        for connection in late:
            self._drop(connection, late=True)  # also a busy one whose body still drips

    def _drop(self, connection: socket.socket, *, late: bool = False) -> None:
        with self._lock:
            self._reading.pop(connection, None)
            if connection not in self._connections or (connection in self._busy and not late):
                return  # gone already, or (making room) its request is being served now
            self._connections.discard(connection)  # its slot is free at once
            self.slow_clients_dropped += 1
        _shut([connection])  # wakes the handler's read, which then ends

    def _most_idle(self, connections: Collection[socket.socket]) -> socket.socket | None:
        # The caller holds the lock: the one with the nearest read deadline (none: idle).
        return min(connections, key=lambda c: self._reading.get(c, 0.0), default=None)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Watch a new connection until its request head is in (no thread until then)."""
        with self._lock:
            oldest = None
            if len(self._in_head) >= self.max_connections * _HEADS_PER_THREAD:
                oldest = self._most_idle(self._in_head)
            self._connections.add(request)  # for close_connections to end
            self._in_head.add(request)
            self._reading[request] = time.monotonic() + self.request_read_timeout  # its head too
        if oldest is not None:
            self._drop(oldest)
        self._heads.add(request, client_address)

    def _head_arrived(self, connection: socket.socket, address: Any, head: bytes) -> None:
        """Serve a connection whose head is in on a thread, or refuse it (503) when full."""
        with self._lock:
            self._in_head.discard(connection)
            self._heads_read[connection] = head
            full = len(self._connections) - len(self._in_head) > self.max_connections
            oldest = None
            if full:
                # Only a connection waiting for a request (idle, or dripping its body) gives
                # way, the one waiting longest first; one being served is never cut. One just
                # answered may not be marked done yet: wait a moment for it.
                waiting = self._idle.wait_for(
                    lambda: self._connections - self._busy - self._in_head - {connection},
                    timeout=_ROOM_GRACE,
                )
                oldest = self._most_idle(waiting)
        if oldest is not None:
            self._drop(oldest)
        elif full:
            _log.warning("refused a connection: %d are open", self.max_connections)
            refusal = _error_message(
                HTTPStatus.SERVICE_UNAVAILABLE,
                "too many open connections; retry later",
                ("Retry-After", "1"),
            )
            with contextlib.suppress(OSError):
                connection.settimeout(1.0)
                connection.sendall(refusal)
            self.shutdown_request(connection)
            return
        socketserver.ThreadingMixIn.process_request(self, connection, address)

    def shutdown_request(self, request: Any) -> None:
        """Forget and close a finished connection."""
        with self._lock:
            self._connections.discard(request)
            self._reading.pop(request, None)
            self._heads_read.pop(request, None)
            self._in_head.discard(request)
        super().shutdown_request(request)

    def take_head(self, connection: socket.socket) -> bytes:
        """Return (once) what the head reader read of the connection's first request."""
        with self._lock:
            return self._heads_read.pop(connection, b"")

    def server_close(self) -> None:
        """Stop the head reader, then close the listening socket."""
        self._heads.close()
        super().server_close()

    def begin_request(self, connection: socket.socket) -> bool:
        """Mark a connection busy with a request; False once :meth:`stop` has begun."""
        with self._lock:
            if not self._draining:
                self._busy.add(connection)
            return not self._draining

    def end_request(self, connection: socket.socket) -> None:
        """Mark a connection's request finished (waking whoever waits for room or the end)."""
        with self._lock:
            self._busy.discard(connection)
            self._idle.notify_all()

    def close_connections(self) -> None:
        """End every open connection (idle keep-alive ones included)."""
        with self._lock:
            connections = list(self._connections)
        _shut(connections)

    def start(self, name: str | None = None) -> None:
        """Serve on a daemon thread (named ``name``) until :meth:`stop`."""
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, name=name, daemon=True
        )
        self._thread.start()

    def stop(self, grace: float = 0.0) -> None:
        """End :meth:`start`: requests in flight get ``grace`` seconds, then all is closed."""
        self.shutdown()
        with self._lock:  # new requests are refused, idle connections end, busy ones finish
            self._draining = True
            _shut(self._connections - self._busy)
            self._idle.wait_for(lambda: not self._busy, timeout=grace)
        self.close_connections()
        self.server_close()
        if self._thread is not None:
            self._thread.join()


def _shut(connections: Iterable[socket.socket]) -> None:
    for connection in connections:
        with contextlib.suppress(OSError):
            connection.shutdown(socket.SHUT_RDWR)
