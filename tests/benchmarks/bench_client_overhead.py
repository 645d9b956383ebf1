"""AppClient overhead per tool round trip, next to a bare ``requests.Session``.

One round trip is what the AppBuilder ToolCall docs show: create a conversation, run a query
with a local tool (the agent answers with the tool call), and post the tool output (the agent
answers). AppClient does it with its validation, typed models, retry machinery, headers and
error mapping; the baseline posts the same JSON bodies with a bare ``requests.Session`` and
reads the ids it needs with ``response.json()``. The baseline also sends an
``Idempotency-Key`` (a fresh uuid4 per request) because the reference server does real work
for that header (it keeps the answer for replays): without it the comparison would time the
server's idempotency store instead of the client. Both talk to the same local server over
keep-alive connections, interleaved (ABBA order) so drift in the machine or the server hits
both alike. The ratio of the medians is the overhead (target: within 1.10x; the official
Python client measures about 1.29x on such a test).

Servers: ``reference`` (default) is :class:`appclient.testing.ReferenceServer` with its rule
agent; ``stdlib`` is a minimal standard-library server answering the protocol's fixed bodies,
which costs almost nothing per request and so shows the client's overhead at its largest.
The server runs in a child process, as a real gateway would: in the client's own process its
threads would compete with the client for the GIL and blur both timings (``--in-process``
shows that setting anyway).

Run: ``python tests/benchmarks/bench_client_overhead.py [--quick]
[--server reference|stdlib] [--rounds N] [--in-process]``
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import requests

from appclient import AppClient
from tests.seed import SEED_WEATHER_TOOL, official_run_body

APP_ID = "bench-app"
QUERY = "今天北京天气怎么样？"
OUTPUT = "北京今天25度，晴"
WEATHER_TOOL = SEED_WEATHER_TOOL


# --- the servers ------------------------------------------------------------------------------


def _event(status: str, content_type: str, outputs: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "event_code": 0,
        "event_message": "",
        "event_type": "Interrupt" if status == "interrupt" else "ChatAgent",
        "event_id": str(uuid.uuid4()),
        "event_status": status,
        "content_type": content_type,
        "outputs": outputs,
        **extra,
    }


def _fixed_answer(body: dict[str, Any]) -> dict[str, Any]:
    """The protocol's answer to a run: an interrupt for a query, the final answer for outputs."""
    base = {
        "request_id": str(uuid.uuid4()),
        "date": "2026-01-01T00:00:00Z",
        "conversation_id": body.get("conversation_id", ""),
        "message_id": str(uuid.uuid4()),
    }
    if body.get("tool_outputs"):
        text = f"根据工具结果：{body['tool_outputs'][0]['output']}"
        events = [
            _event("running", "text", {"text": text}),
            _event("done", "text", {"text": ""}),
            _event("success", "status", {}),
        ]
        return {**base, "answer": text, "is_completion": True, "content": events}
    arguments = {"location": "北京", "unit": "celsius"}
    call = {
        "id": str(uuid.uuid4()),
        "type": "function",
        "function": {"name": "get_current_weather", "arguments": arguments},
    }
    outputs = {
        "text": {
            "function_call": {
                "thought": "调用 get_current_weather",
                "name": "get_current_weather",
                "arguments": arguments,
                "tool_call_id": call["id"],
            },
            "used_tool": [],
        }
    }
    events = [
        _event(
            "done",
            "function_call",
            {"text": {"arguments": arguments, "component_code": "get_current_weather"}},
        ),
        _event("interrupt", "contexts", outputs, tool_calls=[call]),
    ]
    return {**base, "answer": "", "is_completion": False, "content": events}


class _FixedHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        """Send each write at once: Nagle plus delayed ACKs would add 40 ms per answer."""
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet while timing."""

    def do_POST(self) -> None:
        """Answer create-conversation and runs with the protocol's fixed bodies."""
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        request_id = str(uuid.uuid4())
        if self.path == "/v2/app/conversation":
            answer: dict[str, Any] = {
                "request_id": request_id,
                "conversation_id": str(uuid.uuid4()),
            }
        else:
            answer = _fixed_answer(body)
        data = json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Appbuilder-Request-Id", request_id)
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def stdlib_server() -> Iterator[tuple[str, str]]:
    """A minimal protocol server on 127.0.0.1; yields ``(url, token)``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FixedHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", "bench-token"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def reference_server() -> Iterator[tuple[str, str]]:
    """The reference server with its rule agent; yields ``(url, token)``."""
    from appclient.testing import ReferenceServer

    with ReferenceServer(app_id=APP_ID) as server:
        yield server.url, server.token


SERVERS: dict[str, Callable[[], Any]] = {"reference": reference_server, "stdlib": stdlib_server}


@contextmanager
def server_process(kind: str) -> Iterator[tuple[str, str]]:
    """Run a server in a child process (this script with ``--serve``); yields ``(url, token)``."""
    command = [sys.executable, str(Path(__file__).resolve()), "--serve", kind]
    child = subprocess.Popen(  # noqa: S603 - our own script, fixed arguments, no shell
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    if child.stdin is None or child.stdout is None:  # pragma: no cover - PIPE sets both
        raise RuntimeError("the server process has no pipes")
    try:
        url, token = child.stdout.readline().split()
        yield url, token
    finally:
        child.stdin.close()  # the child serves until its stdin closes
        child.wait(timeout=30)
        child.stdout.close()


def serve(kind: str) -> int:
    """Child mode: serve, print ``url token``, and stop when stdin closes."""
    with SERVERS[kind]() as (url, token):
        print(url, token, flush=True)
        sys.stdin.read()
    return 0


# --- the two clients --------------------------------------------------------------------------


def appclient_round_trip(client: AppClient) -> str:
    """Create a conversation, run with the tool, post its output; return the answer."""
    conversation_id = client.create_conversation()
    message = client.run(conversation_id, QUERY, tools=[WEATHER_TOOL])
    tool_call = message.content.events[-1].tool_calls[-1]  # type: ignore[index]
    final = client.run(
        conversation_id, tool_outputs=[{"tool_call_id": tool_call.id, "output": OUTPUT}]
    )
    return final.content.answer


def _run_body(conversation_id: str, **fields: Any) -> dict[str, Any]:
    return official_run_body(conversation_id, app_id=APP_ID, **fields)


def bare_round_trip(session: requests.Session, url: str, token: str) -> str:
    """The same three requests and bodies with a bare session; return the answer."""

    def post(path: str, body: dict[str, Any]) -> Any:
        headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": str(uuid.uuid4())}
        return session.post(url + path, json=body, headers=headers).json()

    conversation_id = post("/v2/app/conversation", {"app_id": APP_ID})["conversation_id"]
    first = post(
        "/v2/app/conversation/runs", _run_body(conversation_id, query=QUERY, tools=[WEATHER_TOOL])
    )
    tool_call_id = first["content"][-1]["tool_calls"][-1]["id"]
    outputs = [{"tool_call_id": tool_call_id, "output": OUTPUT}]
    final = post("/v2/app/conversation/runs", _run_body(conversation_id, tool_outputs=outputs))
    answer: str = final["answer"]
    return answer


# --- measuring --------------------------------------------------------------------------------


def measure(
    *, server: str, rounds: int, warmup: int, in_process: bool = False
) -> tuple[list[float], list[float]]:
    """Time ``rounds`` round trips of each client, interleaved; return both lists in ms."""
    hosting = SERVERS[server]() if in_process else server_process(server)
    with hosting as (url, token):
        client = AppClient(APP_ID, token=token, base_url=url)
        session = requests.Session()

        def with_appclient() -> str:
            return appclient_round_trip(client)

        def with_session() -> str:
            return bare_round_trip(session, url, token)

        if with_appclient() != with_session():
            raise RuntimeError("the two clients got different answers; the comparison is off")
        for _ in range(warmup):
            with_appclient()
            with_session()
        timings: dict[str, list[float]] = {"appclient": [], "session": []}
        runners = {"appclient": with_appclient, "session": with_session}
        for index in range(rounds):
            order = ("appclient", "session") if index % 2 == 0 else ("session", "appclient")
            for name in order:
                started = time.perf_counter()
                runners[name]()
                timings[name].append((time.perf_counter() - started) * 1000)
        client.close()
        session.close()
    return timings["appclient"], timings["session"]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print both medians and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="a few rounds (smoke test)")
    parser.add_argument("--server", choices=sorted(SERVERS), default="reference")
    parser.add_argument("--rounds", type=int, default=None, help="round trips per client")
    parser.add_argument("--in-process", action="store_true", help="host the server in a thread")
    parser.add_argument("--serve", choices=sorted(SERVERS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.serve)
    rounds = args.rounds or (20 if args.quick else 400)
    warmup = 3 if args.quick else 30
    client_ms, session_ms = measure(
        server=args.server, rounds=rounds, warmup=warmup, in_process=args.in_process
    )
    client_median = statistics.median(client_ms)
    session_median = statistics.median(session_ms)
    ratio = client_median / session_median
    where = "in this process" if args.in_process else "in a child process"
    print(f"server: {args.server} ({where}); {rounds} round trips each (3 requests), interleaved")
    print(f"AppClient        median {client_median:7.3f} ms per round trip")
    print(f"requests.Session median {session_median:7.3f} ms per round trip")
    print(f"ratio (AppClient / bare session): {ratio:.3f}x (target <= 1.10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
