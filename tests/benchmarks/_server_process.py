"""A reference server in a child process, for benchmarks that measure it from outside."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOKEN = "bench-token"
APP_ID = "bench-app"


def start(*options: str, port: int = 0) -> tuple[subprocess.Popen[str], str]:
    """Start ``appclient serve`` with ``options``; return the process and its URL once ready."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "appclient.server", "--port", str(port), "--token", TOKEN]
    process = subprocess.Popen(  # noqa: S603 - this interpreter, fixed arguments
        [*command, "--app-id", APP_ID, *options], stdout=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None
    for line in process.stdout:
        if "listening on" in line:
            url = line.split("listening on", 1)[1].strip()
            threading.Thread(target=process.stdout.read, daemon=True).start()
            return process, url
    raise RuntimeError("the server did not start")


@contextmanager
def serving(*options: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Run a server for the block; yield its process and URL."""
    process, url = start(*options)
    try:
        yield process, url
    finally:
        process.terminate()
        process.wait(timeout=30)


def rss_mb(pid: int) -> float:
    """The resident memory of a process, in MB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")
