"""A scripted HTTP server on 127.0.0.1 for the client tests that need a real socket.

Each request takes the next scripted reply (or the fallback when the script is empty) and is
recorded, so tests can check what the client sent and make the server misbehave in exactly
the ways a real gateway does: error statuses, slow or hung answers, streams flushed message by
message (chunked or close-delimited), and streams cut off mid-way.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer.

    Attributes:
        status: HTTP status.
        body: A JSON-able value or raw bytes for a plain body.
        headers: Extra headers.
        sse: SSE messages (dicts or raw bytes) for a stream body; overrides ``body``.
        chunked: Send the stream with chunked transfer encoding (else close-delimited).
        cut_after: Close the connection after this many SSE messages, mid-stream.
        hang: Hold the answer until the gateway closes (for timeouts).
        gate: Wait for this event before each message after the first.
        endless: After the headers, send these bytes again and again until the client hangs
            up (an endless body; ``headers`` may name its Content-Type and Content-Encoding).
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    sse: list[Any] | None = None
    chunked: bool = False
    cut_after: int | None = None
    hang: bool = False
    gate: threading.Event | None = None
    endless: bytes | None = None


@dataclass
class Recorded:
    """One request as the gateway received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    #: The client's port: requests on one kept-alive connection share it.
    port: int = 0

    def json(self) -> Any:
        """The body decoded as JSON."""
        return json.loads(self.body)


def sse_bytes(message: Any) -> bytes:
    """Encode one SSE message the way the protocol frames it."""
    if isinstance(message, bytes):
        return message
    return f"data: {json.dumps(message, ensure_ascii=False)}\n\n".encode()


class FakeGateway:
    """A threaded HTTP server answering from a script; use as a context manager."""

    def __init__(self, fallback: Reply | None = None) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        #: For each gate wait: True if the test opened the gate, False if the wait timed out.
        self.gate_waits: list[bool] = []
        self.fallback = fallback or Reply(status=500, body={"code": "NoScript", "message": "-"})
        self._closing = threading.Event()
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Keep test output quiet."""

            def do_POST(self) -> None:
                """Record the request and play the next reply."""
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                gateway.requests.append(
                    Recorded(
                        "POST", self.path, dict(self.headers.items()), body, self.client_address[1]
                    )
                )
                reply = gateway.replies.popleft() if gateway.replies else gateway.fallback
                gateway._play(self, reply)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        """The base URL to give the client."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def add(self, *replies: Reply) -> FakeGateway:
        """Queue replies, played in order."""
        self.replies.extend(replies)
        return self

    def __enter__(self) -> FakeGateway:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()

    def _play(self, handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        if reply.endless is not None:
            self._play_endless(handler, reply, reply.endless)
            return
        if reply.hang:
            self._closing.wait(10)
            handler.close_connection = True
            return
        if reply.sse is None:
            body = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
            handler.send_response(reply.status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(body)))
            for name, value in reply.headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(body)
            return
        handler.send_response(reply.status)
        handler.send_header("Content-Type", "text/event-stream")
        if reply.chunked:
            handler.send_header("Transfer-Encoding", "chunked")
        else:
            handler.send_header("Connection", "close")
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.close_connection = True
        for index, message in enumerate(reply.sse):
            if reply.cut_after is not None and index >= reply.cut_after:
                break
            if index and reply.gate is not None:
                self.gate_waits.append(reply.gate.wait(10))
            data = sse_bytes(message)
            if reply.chunked:
                data = f"{len(data):x}\r\n".encode() + data + b"\r\n"
            handler.wfile.write(data)
            handler.wfile.flush()
        else:
            if reply.chunked:
                handler.wfile.write(b"0\r\n\r\n")
            return
        if reply.chunked:  # a cut chunked stream: stop without the final zero-size chunk
            handler.wfile.flush()

    def _play_endless(self, handler: BaseHTTPRequestHandler, reply: Reply, data: bytes) -> None:
        handler.send_response(reply.status)
        handler.send_header("Connection", "close")
        for name, value in {"Content-Type": "application/json", **reply.headers}.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.close_connection = True
        try:
            while not self._closing.is_set():
                handler.wfile.write(data)
        except OSError:  # the client hung up: the point of the test
            return
