"""Real clients' latency while many connections drip their requests (slowloris).

A reference server runs in a child process. A real client creates conversations one after
another, each on a new connection, and its p99 latency is measured with the server idle
(the baseline), then again while ``--drippers`` connections each send the start of a
request and then one more header byte per second (a dripper the server drops is opened
again at once). Printed: both p99s, their ratio, and how many dripping connections the
server dropped. Target: the ratio under 2.

Run: ``python tests/benchmarks/bench_server_drip.py [--quick] [--drippers N]``
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _server_process import APP_ID, TOKEN, serving

BODY = json.dumps({"app_id": APP_ID})
HEADERS = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}


def _p99(host: str, port: int, requests: int, *, seconds: float = 0.0) -> float:
    """The p99 of ``requests`` conversation creations, spread over ``seconds``."""
    latencies = []
    gap = seconds / requests
    for _ in range(requests):
        time.sleep(gap)
        started = time.perf_counter()
        connection = http.client.HTTPConnection(host, port, timeout=30)
        connection.request("POST", "/v2/app/conversation", body=BODY, headers=HEADERS)
        response = connection.getresponse()
        response.read()
        connection.close()
        if response.status != 200:
            raise RuntimeError(f"a real client got HTTP {response.status}")
        latencies.append(time.perf_counter() - started)
    latencies.sort()
    return latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]


class _Drippers:
    """Connections that send a request's first line and then one header byte per second."""

    def __init__(self, host: str, port: int, count: int) -> None:
        self._address = (host, port)
        self._sockets: list[socket.socket | None] = [None] * count
        self._stop = threading.Event()
        self.reopened = 0  # dripping connections the server dropped
        self._thread = threading.Thread(target=self._drip, daemon=True)

    def _open(self) -> socket.socket | None:
        try:
            sock = socket.create_connection(self._address, timeout=5)
            sock.sendall(b"POST /v2/app/conversation HTTP/1.1\r\nHost: x\r\nX-Drip: ")
            return sock
        except OSError:
            return None

    def _drip(self) -> None:
        while not self._stop.is_set():
            for index, sock in enumerate(self._sockets):
                if self._stop.is_set():
                    break
                try:
                    if sock is None:
                        raise OSError
                    sock.send(b"a")
                except OSError:
                    if sock is not None:
                        sock.close()
                        self.reopened += 1
                    self._sockets[index] = self._open()
            self._stop.wait(1.0)

    def run(self) -> None:
        """Drip until the process is stopped, reporting drops on stdout every second."""
        self._thread.start()
        while True:
            time.sleep(1.0)
            print(self.reopened, flush=True)


@contextmanager
def _dripping(host: str, port: int, count: int) -> Iterator[list[int]]:
    """Run drippers in a child process (so they do not share this one's GIL)."""
    process = subprocess.Popen(  # noqa: S603 - this interpreter and script
        [sys.executable, __file__, "--drip", f"{host}:{port}:{count}"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    dropped = [0]

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            dropped[0] = int(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(2.0)  # let the drippers connect
    try:
        yield dropped
    finally:
        process.terminate()
        process.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer drippers and requests")
    parser.add_argument("--drippers", type=int, default=1000, help="dripping connections")
    parser.add_argument("--requests", type=int, default=400, help="real requests per phase")
    parser.add_argument(
        "--seconds",
        type=float,
        default=40.0,
        help="how long each phase lasts (the server drops a request that is not whole after 30 s)",
    )
    parser.add_argument("--drip", help=argparse.SUPPRESS)  # HOST:PORT:COUNT, the child's job
    args = parser.parse_args(argv)
    if args.drip:
        host, port, count = args.drip.rsplit(":", 2)
        _Drippers(host, int(port), int(count)).run()
        return 0
    drippers = 50 if args.quick else args.drippers
    requests = 30 if args.quick else args.requests
    seconds = 1.0 if args.quick else args.seconds
    with serving() as (_, url):
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        _p99(host, port, 20)  # warm up
        idle = _p99(host, port, requests, seconds=seconds)
        with _dripping(host, port, drippers) as dropped:
            loaded = _p99(host, port, requests, seconds=seconds)
            reopened = dropped[0]
    print(f"real client p99, idle: {idle * 1000:.2f} ms ({requests} requests in {seconds} s)")
    print(f"real client p99, {drippers} connections dripping: {loaded * 1000:.2f} ms")
    print(f"dripping connections the server dropped meanwhile: {reopened}")
    print(f"ratio (dripping / idle p99): {loaded / idle:.2f}x; target: < 2x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
