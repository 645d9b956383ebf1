"""Peak memory of a client iterating a very long stream, next to a bare requests loop.

A server on 127.0.0.1 sends one endless event stream of run deltas. A child process reads
``--megabytes`` of it, once through ``AppClient.run(..., stream=True)`` (SSE decoding,
answer models, the bounded accumulation for ``collect()``) and once as a bare
``requests`` loop over the same bytes that keeps nothing; each child prints its peak RSS
(``ru_maxrss``). The ratio is the client's peak over the bare loop's. Target: the client
stays under 100 MB for a 1 GB stream.

Run: ``python tests/benchmarks/bench_client_stream_memory.py [--quick] [--megabytes N]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MESSAGE = (
    "data: "
    + json.dumps({"answer": "x" * 65536, "content": [{"event_status": "running", "outputs": {}}]})
    + "\n\n"
).encode()

CLIENT = """
import resource, sys
from appclient import AppClient, Limits
from appclient.errors import ResponseTooLargeError
limit = int(sys.argv[2])
client = AppClient("app", token="bench-token", base_url=sys.argv[1], max_retries=0,
                   timeout=(10, 60, None), limits=Limits(max_stream_bytes=limit))
messages = 0
try:
    for _ in client.run("c1", "hi", stream=True):
        messages += 1
except ResponseTooLargeError:
    pass
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, messages)
"""

BARE = """
import resource, sys
import requests
import appclient  # the same imports as the client child, so only the reading differs
limit, total = int(sys.argv[2]), 0
with requests.post(sys.argv[1] + "/v2/app/conversation/runs", json={}, stream=True) as r:
    for chunk in r.iter_content(16384):
        total += len(chunk)
        if total > limit:
            break
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, total)
"""


class _Endless(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the benchmark's output to its figures."""

    def do_POST(self) -> None:
        """Answer any run with an endless event stream."""
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            while True:
                self.wfile.write(MESSAGE)
        except OSError:  # the reader hung up
            return


def _child(code: str, url: str, limit: int) -> tuple[float, int]:
    result = subprocess.run(  # noqa: S603 - this interpreter, a fixed script
        [sys.executable, "-c", code, url, str(limit)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    peak_kib, count = result.stdout.split()
    return int(peak_kib) / 1024, int(count)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="read 32 MB instead of 1 GB")
    parser.add_argument("--megabytes", type=int, default=None, help="how much to read")
    args = parser.parse_args(argv)
    megabytes = args.megabytes or (32 if args.quick else 1024)
    limit = megabytes * 1024 * 1024
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endless)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        bare_mb, read = _child(BARE, url, limit)
        client_mb, messages = _child(CLIENT, url, limit)
    finally:
        server.shutdown()
        server.server_close()
    print(f"stream read: {megabytes} MB ({messages} messages of 64 KiB; bare loop {read:,} B)")
    print(f"peak RSS, bare requests loop: {bare_mb:.1f} MB")
    print(f"peak RSS, AppClient stream:   {client_mb:.1f} MB (target < 100 MB)")
    print(f"ratio client/bare: {client_mb / bare_mb:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
