"""AsyncAppClient next to a bare aiohttp client: N concurrent streamed runs, on one thread.

For N = 16, 64 and 256, N tasks each make streamed runs, one after another, until the round
has ``--runs`` runs in all; runs/s is what the client sustains. ``AsyncAppClient`` reads each
stream with its limits, its SSE decoder, its typed messages and its "run finished" rule; the
baseline posts the same body with a bare ``aiohttp.ClientSession``, splits the ``data:``
lines and ``json.loads`` each. Both run in this process on one event loop, interleaved (ABBA,
so drift hits both alike), against the same server in a child process; the figure is the
ratio of their runs/s (target: AsyncAppClient at least 0.8x at every N). The CPU ratio is the
same ratio per second of this process's CPU time: on a machine shared with other work it holds
where the wall-clock one swings. The threads of this process are counted while each client
runs: AsyncAppClient sends natively (no threads).

Servers: ``reference`` (default, the setting the async client's issue measured) is
``appclient serve`` with its rule agent, a conversation per task; ``fast`` answers every run
with the same five messages from a minimal aiohttp server, so the clients' own cost shows at
its largest (there the typed messages, limits and checks of AsyncAppClient cost about 1.5x
the bare loop's CPU per run, and the ratio is about 0.65x).

Run: ``python tests/benchmarks/bench_async_client.py [--quick] [--server reference|fast]
[--runs N]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import aiohttp

from appclient import AsyncAppClient
from tests.benchmarks import _server_process

CONCURRENCY = (16, 64, 256)
QUERY = "今天北京天气怎么样？"

# A server that answers the protocol's fixed bodies: five messages per streamed run.
_FAST_SERVER = textwrap.dedent(
    """
    import json, sys
    from aiohttp import web

    def message(answer, status, **extra):
        body = {"request_id": "r", "date": "", "answer": answer, "conversation_id": "c",
                "message_id": "m", "is_completion": False,
                "content": [{"event_code": 0, "event_message": "", "event_type": "chatflow",
                             "event_id": "1", "event_status": status,
                             "content_type": "text", "outputs": {"text": answer}}]}
        body.update(extra)
        return b"data: " + json.dumps(body, ensure_ascii=False).encode() + b"\\n\\n"

    STREAM = b"".join(
        [message(part, "running") for part in ("北京", "今天", "晴，", "25度")]
        + [message("", "success", is_completion=True)]
    )

    async def conversation(request):
        await request.read()
        return web.json_response({"request_id": "r", "conversation_id": "c"})

    async def runs(request):
        await request.read()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(STREAM)
        await response.write_eof()
        return response

    app = web.Application()
    app.router.add_post("/v2/app/conversation", conversation)
    app.router.add_post("/v2/app/conversation/runs", runs)
    web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None,
                access_log=None, handle_signals=True)
    """
)


@contextmanager
def _fast_server() -> Iterator[str]:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-c", _FAST_SERVER, str(port)])  # noqa: S603
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):  # up to 10 s for the child to listen
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextmanager
def _server(kind: str) -> Iterator[str]:
    if kind == "fast":
        with _fast_server() as url:
            yield url
    else:
        with _server_process.serving() as (_, url):
            yield url


Runner = Callable[[str], Awaitable[str]]
#: Runs per second of wall-clock time, and per second of this process's CPU time.
Rates = tuple[float, float]


async def _appclient_runs(url: str, n: int, runs: int, conversations: list[str]) -> Rates:
    async with AsyncAppClient(
        _server_process.APP_ID, token=_server_process.TOKEN, base_url=url
    ) as client:

        async def one(conversation_id: str) -> str:
            stream = await client.run(conversation_id, QUERY, stream=True)
            return (await stream.collect()).answer

        return await _rate(one, n, runs, conversations)


async def _bare_runs(url: str, n: int, runs: int, conversations: list[str]) -> Rates:
    headers = {"Authorization": f"Bearer {_server_process.TOKEN}"}
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(headers=headers, connector=connector) as session:

        async def one(conversation_id: str) -> str:
            body = {
                "app_id": _server_process.APP_ID,
                "conversation_id": conversation_id,
                "query": QUERY,
                "stream": True,
            }
            parts = []
            async with session.post(f"{url}/v2/app/conversation/runs", json=body) as response:
                async for line in response.content:
                    if line.startswith(b"data:"):
                        message = json.loads(line[5:])
                        parts.append(message.get("answer", ""))
            return "".join(parts)

        return await _rate(one, n, runs, conversations)


async def _rate(one: Runner, n: int, runs: int, conversations: list[str]) -> Rates:
    """The :data:`Rates` of ``n`` tasks sharing ``runs`` runs; checks every answer."""
    left = [runs]

    async def task(index: int) -> None:
        while left[0] > 0:
            left[0] -= 1
            answer = await one(conversations[index % len(conversations)])
            if not answer:
                raise RuntimeError("a run gave no answer")

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(task(i) for i in range(n)))
    return runs / (time.perf_counter() - started), runs / (time.process_time() - cpu)


async def _conversations(url: str, count: int) -> list[str]:
    async with AsyncAppClient(
        _server_process.APP_ID, token=_server_process.TOKEN, base_url=url
    ) as client:
        return list(await asyncio.gather(*(client.create_conversation() for _ in range(count))))


def _measure(
    measure: Callable[[str, int, int, list[str]], Awaitable[Rates]],
    url: str,
    n: int,
    runs: int,
    conversations: list[str],
) -> tuple[Rates, int]:
    """Run one measurement on a fresh loop; return its rates and the most threads seen."""
    most = [threading.active_count()]
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.005):
            most[0] = max(most[0], threading.active_count() - 1)  # not this watcher

    watcher = threading.Thread(target=watch, daemon=True)
    before = threading.active_count()
    watcher.start()
    try:
        rate = asyncio.run(measure(url, n, runs, conversations))
    finally:
        stop.set()
        watcher.join()
    return rate, max(most[0], before) - before + 1  # threads beyond the caller's own


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (for CI)")
    parser.add_argument("--server", choices=("reference", "fast"), default="reference")
    parser.add_argument("--runs", type=int, default=None, help="runs per measurement")
    args = parser.parse_args(argv)
    runs = args.runs or (300 if args.quick else 3000)
    repeats = 1 if args.quick else 2
    print(f"server={args.server} runs per measurement={runs} repeats (ABBA)={repeats}")
    print(
        f"{'N':>5} {'AsyncAppClient runs/s':>22} {'bare aiohttp runs/s':>20} {'ratio':>6} "
        f"{'CPU ratio':>9}"
    )
    worst = worst_cpu = float("inf")
    with _server(args.server) as url:
        conversations = asyncio.run(_conversations(url, max(CONCURRENCY)))
        for n in CONCURRENCY:
            ours: list[Rates] = []
            bare: list[Rates] = []
            threads = 0
            for _ in range(repeats):
                for first in (True, False):  # ABBA
                    order = (ours, bare) if first else (bare, ours)
                    for sink in order:
                        measure = _appclient_runs if sink is ours else _bare_runs
                        rate, used = _measure(measure, url, n, runs, conversations)
                        sink.append(rate)
                        if sink is ours:
                            threads = max(threads, used)
            mine, theirs = (sum(rate[0] for rate in side) / len(side) for side in (ours, bare))
            cpu_ratio = sum(rate[1] for rate in ours) / sum(rate[1] for rate in bare)
            ratio = mine / theirs
            worst, worst_cpu = min(worst, ratio), min(worst_cpu, cpu_ratio)
            print(
                f"{n:>5} {mine:>22.0f} {theirs:>20.0f} {ratio:>5.2f}x {cpu_ratio:>8.2f}x"
                f"  (client threads: {threads})"
            )
    print(f"worst ratio AsyncAppClient / bare aiohttp: {worst:.2f}x (target >= 0.80x)")
    print(f"worst CPU ratio: {worst_cpu:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
