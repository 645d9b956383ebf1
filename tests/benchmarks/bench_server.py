"""Benchmark: the reference server's round trips, next to a stub that answers fixed bodies.

A round trip is the protocol's two requests: a run with a query and a tool (answered with
an interrupt) and a run with the tool's output (answered with the final answer). Every
server runs in its own process, so the clients here do not share a GIL with it:

- the reference server with a fixed-decision agent (call the tool, then answer with its
  output): the server itself (HTTP, validation, store, run engine, events);
- the reference server with its default rule agent (as ``appclient serve`` runs it): the
  same plus the agent's query matching and argument filling;
- a minimal standard-library stub (``http.server``, keep-alive, one write per response)
  that answers the same two requests with fixed, recorded-shape bodies.

Printed: round trips per second and p50/p99 latency at 1, 4 and 16 concurrent clients
(keep-alive ``http.client`` connections, one per client) for both reference servers, and
the median single round trip against each server, measured in the same run and
interleaved, with the ratios to the stub (target for the server itself: within 1.5x).

Where the OS allows it (Linux, two or more CPUs) the clients run on the first CPU and the
servers on the others, as loopback load tools are usually run: then client and server
never wait for each other's core, and the scheduler moving them around adds no noise.

Run: ``python tests/benchmarks/bench_server.py [--quick]``.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.seed import SEED_WEATHER_TOOL

TOKEN = "bench-token"
APP_ID = "bench-app"
RUNS = "/v2/app/conversation/runs"
TOOL = SEED_WEATHER_TOOL
HEADERS = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}

# --- the stub: fixed answers shaped like the recorded hosted responses -------------------

_ARGUMENTS = {"location": "北京", "unit": "celsius"}
_USAGE = {"prompt_tokens": 513, "completion_tokens": 37, "total_tokens": 550, "name": "ERNIE"}


def _event(event_type: str, status: str, content_type: str, outputs: dict[str, Any]) -> dict:
    return {
        "event_code": 0,
        "event_message": "",
        "event_type": event_type,
        "event_id": "b1c2d3e4-0000-4000-8000-000000000001",
        "event_status": status,
        "content_type": content_type,
        "outputs": outputs,
    }


_CALL_ID = "baf86c61-6627-4229-bc81-a17eda1bce36"
_ENVELOPE = {
    "request_id": "5e0b4b2c-1111-4c7e-9d7e-000000000001",
    "date": "2024-09-23T08:05:00Z",
    "answer": "",
    "conversation_id": "9a3b1f2e-2222-4c7e-9d7e-000000000002",
    "message_id": "7d1c2b3a-3333-4c7e-9d7e-000000000003",
    "is_completion": False,
}
_INTERRUPT = {
    **_ENVELOPE,
    "content": [
        _event(
            "function_call",
            "done",
            "function_call",
            {
                "text": {
                    "arguments": _ARGUMENTS,
                    "component_code": "get_current_weather",
                    "component_name": "get_current_weather",
                }
            },
        ),
        {
            **_event(
                "Interrupt",
                "interrupt",
                "contexts",
                {
                    "text": {
                        "function_call": {
                            "thought": "需要调用本地工具 get_current_weather",
                            "name": "get_current_weather",
                            "arguments": _ARGUMENTS,
                            "usage": {**_USAGE, "type": "plan"},
                            "tool_call_id": _CALL_ID,
                        },
                        "used_tool": [],
                    }
                },
            ),
            "tool_calls": [
                {
                    "id": _CALL_ID,
                    "type": "function",
                    "function": {"name": "get_current_weather", "arguments": _ARGUMENTS},
                }
            ],
        },
    ],
}
_TEXT = "根据工具 get_current_weather 的结果：北京今天25度"
_ANSWER = {
    **_ENVELOPE,
    "answer": _TEXT,
    "is_completion": True,
    "content": [
        _event("ChatAgent", "preparing", "status", {}),
        {**_event("ChatAgent", "done", "text", {"text": _TEXT}), "usage": _USAGE},
        _event("ChatAgent", "success", "status", {}),
    ],
}


class _StubHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet."""

    def do_POST(self) -> None:
        """Answer fixed bodies: a conversation, an interrupt, or the answer."""
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path.endswith("/conversation"):
            payload: dict[str, Any] = {"request_id": "r", "conversation_id": "stub-conversation"}
        else:
            payload = _ANSWER if body.get("tool_outputs") else _INTERRUPT
        data = json.dumps(payload, ensure_ascii=False).encode()
        head = (
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            f"X-Appbuilder-Request-Id: r\r\nContent-Length: {len(data)}\r\n\r\n"
        ).encode()
        self.wfile.write(head + data)


class _FixedAgent:
    """Calls the first tool with fixed arguments, then answers with the outputs."""

    def decide(self, agent_input: Any) -> Any:
        from appclient.server import Decision, PlannedCall

        if agent_input.results:
            return Decision.reply("根据工具结果：" + agent_input.results[-1].output)
        name = agent_input.tools[0].function.name
        return Decision.call(PlannedCall(name, {"location": "北京", "unit": "celsius"}))


def _serve_reference(agent_name: str) -> int:
    from appclient.testing import ReferenceServer

    agent = _FixedAgent() if agent_name == "fixed" else None
    # terminate() is SIGTERM: exit through the with-block, so the server removes its
    # temporary upload folder instead of leaving it behind.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with ReferenceServer(agent, token=TOKEN, app_id=APP_ID) as server:
        print(f"listening on {server.url}", flush=True)
        threading.Event().wait()
    return 0


def _serve_stub() -> int:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _StubHandler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_port}", flush=True)
    server.serve_forever()
    return 0


# --- clients -------------------------------------------------------------------------------


def _cpu_split() -> tuple[set[int], set[int]] | None:
    """Return (client CPUs, server CPUs), or ``None`` where processes cannot be pinned."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    return {cpus[0]}, set(cpus[1:])


@contextmanager
def _process(command: list[str], cpus: set[int] | None) -> Iterator[int]:
    """Start a server process, yield its port once it prints it, stop it afterwards."""
    process = subprocess.Popen(  # noqa: S603 - fixed argument list, no shell
        command, stdout=subprocess.PIPE, text=True
    )
    drain: threading.Thread | None = None  # reads what the server prints after its port
    try:
        if cpus is not None:
            os.sched_setaffinity(process.pid, cpus)
        assert process.stdout is not None
        port = 0
        for line in process.stdout:
            if "listening on" in line:
                port = int(line.rsplit(":", 1)[1])
                break
        if not port:
            raise RuntimeError(f"{command} did not start")
        drain = threading.Thread(target=process.stdout.read, daemon=True)
        drain.start()
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)
        if drain is not None:
            drain.join(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def _post(conn: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> dict[str, Any]:
    conn.request("POST", path, body=json.dumps(body), headers=HEADERS)
    response = conn.getresponse()
    data = response.read()
    if response.status != 200:
        raise RuntimeError(f"HTTP {response.status}: {data[:200]!r}")
    decoded: dict[str, Any] = json.loads(data)
    return decoded


_query_numbers = itertools.count(1)


class _Client:
    """One keep-alive connection with its own conversation."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.cid = _post(self.conn, "/v2/app/conversation", {"app_id": APP_ID})["conversation_id"]

    def round_trip(self) -> float:
        """Run one tool round trip; return its duration in seconds."""
        # Every turn asks a new query, as users do: the rule agent plans each one afresh
        # (it remembers a plan only for the rest of its turn, and for a repeated query).
        query = f"今天北京天气怎么样？#{next(_query_numbers)}"
        start = time.perf_counter()
        base = {"app_id": APP_ID, "conversation_id": self.cid}
        first = _post(self.conn, RUNS, {**base, "query": query, "tools": [TOOL]})
        call = first["content"][-1]["tool_calls"][-1]
        outputs = [{"tool_call_id": call["id"], "output": "北京今天25度"}]
        answer = _post(self.conn, RUNS, {**base, "tool_outputs": outputs})
        if "北京今天25度" not in answer["answer"]:
            raise RuntimeError(f"unexpected answer {answer['answer']!r}")
        return time.perf_counter() - start

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _concurrent(port: int, clients: int, per_client: int) -> tuple[float, list[float]]:
    """Run ``clients`` threads doing ``per_client`` round trips; return rate and latencies."""
    workers = [_Client(port) for _ in range(clients)]
    latencies: list[float] = []
    lock = threading.Lock()
    barrier = threading.Barrier(clients + 1)

    def work(client: _Client) -> None:
        barrier.wait()
        mine = [client.round_trip() for _ in range(per_client)]
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=work, args=(client,)) for client in workers]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    for client in workers:
        client.close()
    return clients * per_client / elapsed, latencies


def _median_round_trip(
    clients: dict[str, _Client], rounds: int, *, baseline: str
) -> tuple[dict[str, float], dict[str, float]]:
    """Alternate blocks of round trips between the servers.

    Blocks (rather than single round trips) keep each server's process warm on the CPU,
    as for a real client. Each block's median is divided by the baseline's block median
    taken right next to it, so a machine that gets busier or quieter during the run (other
    jobs on a shared CI machine) moves both sides of each ratio alike.

    Returns:
        The median round trip of each server (seconds), and the median of its block ratios
        to the baseline.
    """
    samples: dict[str, list[float]] = {name: [] for name in clients}
    ratios: dict[str, list[float]] = {name: [] for name in clients}
    block = 10
    for _ in range(max(rounds // block, 1)):
        medians = {}
        for name, client in clients.items():
            times = [client.round_trip() for _ in range(block)]
            samples[name].extend(times)
            medians[name] = statistics.median(times)
        for name, median in medians.items():
            ratios[name].append(median / medians[baseline])
    return (
        {name: statistics.median(values) for name, values in samples.items()},
        {name: statistics.median(values) for name, values in ratios.items()},
    )


def _table(port: int, per_client: int) -> None:
    print(f"{'clients':>8} {'round trips/s':>14} {'p50 ms':>8} {'p99 ms':>8}")
    for clients in (1, 4, 16):
        rate, latencies = _concurrent(port, clients, per_client)
        p50 = _percentile(latencies, 0.50) * 1000
        p99 = _percentile(latencies, 0.99) * 1000
        print(f"{clients:>8} {rate:>14.0f} {p50:>8.2f} {p99:>8.2f}")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few iterations (smoke test)")
    parser.add_argument("--serve-stub", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-reference", choices=["fixed", "rule"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_stub:
        return _serve_stub()
    if args.serve_reference:
        return _serve_reference(args.serve_reference)
    per_client = 5 if args.quick else 100
    single_rounds = 20 if args.quick else 500
    me = [sys.executable, __file__]
    split = _cpu_split()
    servers = None
    if split is not None:
        clients, servers = split
        os.sched_setaffinity(0, clients)
    with (
        _process([*me, "--serve-reference", "fixed"], servers) as fixed_port,
        _process([*me, "--serve-reference", "rule"], servers) as rule_port,
        _process([*me, "--serve-stub"], servers) as stub_port,
    ):
        ports = {"server": fixed_port, "server+rule agent": rule_port, "stub": stub_port}
        for port in ports.values():  # warm up imports, caches and connections
            warm = _Client(port)
            for _ in range(10):
                warm.round_trip()
            warm.close()
        print("Round trips (2 requests each), keep-alive http.client clients, 2-process setup")
        if split is None:
            print("CPUs: not pinned (the OS does not allow it here, or there is one CPU)")
        else:
            print(f"CPUs: clients on {sorted(split[0])}, servers on {sorted(split[1])}")
        print("\nReference server, fixed-decision agent (the server itself):")
        _table(fixed_port, per_client)
        print("\nReference server, default rule agent (as `appclient serve` runs):")
        _table(rule_port, per_client)
        pair = {name: _Client(port) for name, port in ports.items()}
        medians, ratios = _median_round_trip(pair, single_rounds, baseline="stub")
        for client in pair.values():
            client.close()
    print(f"\nOne round trip, median of {single_rounds} (alternating blocks of 10):")
    for name, median in medians.items():
        print(f"{name:>18}: {median * 1000:.3f} ms")
    print("Median of the block-by-block ratios to the stub:")
    print(f"ratio server/stub = {ratios['server']:.2f}x (target <= 1.5x)")
    print(
        f"ratio server+rule agent/stub = {ratios['server+rule agent']:.2f}x"
        " (includes the rule agent's planning)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
