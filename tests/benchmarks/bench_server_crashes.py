"""Exactly-once across crashes: kill -9 the server under load, restart it, count the damage.

A reference server with ``--db`` runs in a child process while client threads do tool round
trips (``run_until_answer``, plain and streamed alternately, each tool output unique). The
server is killed with SIGKILL ``--kills`` times at random moments and restarted on the same
port at once; the clients ride it out with their retries (same ``Idempotency-Key``, stream
resends). Afterwards the SQLite file is read: an output found in two turns was applied twice;
a round trip the client saw fail, or whose output is in no turn, lost its answer; a lease or
key reservation still held once the load is over is a locked conversation. Printed: those
counts, the round trips done, and the ratio of completed to attempted round trips. Target:
0 applied twice, 0 answers lost, 0 conversations locked.

Run: ``python tests/benchmarks/bench_server_crashes.py [--quick] [--kills N]``
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from contextlib import closing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _server_process import APP_ID, REPO, TOKEN, start

sys.path.insert(0, str(REPO))
from appclient import AppClient, Timeout
from appclient.server import SQLiteStore

ROUND_TRIPS_PER_CONVERSATION = 10


class _Load:
    """Client threads doing round trips until stopped; what each one saw is kept."""

    def __init__(self, url: str, clients: int) -> None:
        self._url = url
        self._stop = threading.Event()
        self.expected: dict[str, str] = {}  # tool output -> conversation id (answered)
        self.failures: list[str] = []
        self.conversations: set[str] = set()
        self._threads = [threading.Thread(target=self._work, args=(i,)) for i in range(clients)]

    def _work(self, index: int) -> None:
        client = AppClient(
            APP_ID,
            token=TOKEN,
            base_url=self._url,
            max_retries=12,
            timeout=Timeout(connect=2, read=20, total=120),
        )
        done = 0
        conversation_id = ""
        while not self._stop.is_set():
            output = f"reading-{index}-{done}"

            def get_current_weather(location: str, _output: str = output) -> str:
                """Get the current weather of a city.

                Args:
                    location: The city, e.g. 北京.
                """
                return f"{location} {_output}"

            try:
                if done % ROUND_TRIPS_PER_CONVERSATION == 0:
                    conversation_id = client.create_conversation()
                    self.conversations.add(conversation_id)
                result = client.run_until_answer(
                    conversation_id,
                    "北京天气怎么样？",
                    tools=[get_current_weather],
                    stream=done % 2 == 1,
                )
                if output not in result.answer:
                    self.failures.append(f"{output}: answered {result.answer!r}")
                else:
                    self.expected[output] = conversation_id
            except Exception as exc:  # counted: a round trip whose answer was lost
                self.failures.append(f"{output}: {type(exc).__name__}: {exc}")
                done += ROUND_TRIPS_PER_CONVERSATION - done % ROUND_TRIPS_PER_CONVERSATION
                continue
            done += 1
        client.close()

    def __enter__(self) -> _Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=300)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="two kills only")
    parser.add_argument("--kills", type=int, default=50, help="how often to kill -9 the server")
    parser.add_argument("--clients", type=int, default=4, help="client threads")
    args = parser.parse_args(argv)
    kills = 2 if args.quick else args.kills
    randomness = random.Random(20261124)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "state.sqlite3"
        process, url = start("--db", str(db))
        port = int(url.rsplit(":", 1)[1])
        restarts: list[float] = []
        try:
            with _Load(url, args.clients) as load:
                for _ in range(kills):
                    time.sleep(randomness.uniform(0.2, 0.8))
                    os.kill(process.pid, signal.SIGKILL)
                    process.wait()
                    began = time.perf_counter()
                    process, _ = start("--db", str(db), port=port)
                    restarts.append(time.perf_counter() - began)
                time.sleep(1.0)  # load on the last server too
            with closing(sqlite3.connect(db)) as raw:
                (leases,) = raw.execute(
                    "SELECT COUNT(*) FROM conversations WHERE lease_id IS NOT NULL"
                ).fetchone()
                (reserved,) = raw.execute(
                    "SELECT COUNT(*) FROM idempotency WHERE status IS NULL"
                ).fetchone()
        finally:
            process.terminate()
            process.wait(timeout=30)
        store = SQLiteStore(db)
        applied: collections.Counter[str] = collections.Counter()
        for conversation_id in load.conversations:
            state = store.get_conversation(conversation_id)
            for turn in state.history if state is not None else ():
                for result in turn.results:
                    applied[result.output.split(" ", 1)[-1]] += 1
        store.close()
    twice = sum(1 for count in applied.values() if count > 1)
    unapplied = sum(1 for output in load.expected if applied[output] == 0)
    lost = len(load.failures) + unapplied
    attempted = len(load.expected) + len(load.failures)
    print(f"kill -9 under load: {kills} kills, {args.clients} clients, --db")
    print(f"restart time: median {sorted(restarts)[len(restarts) // 2] * 1000:.0f} ms")
    print(f"round trips answered: {len(load.expected)} of {attempted}")
    print(f"outputs applied twice: {twice}")
    print(
        f"answers lost: {lost} (failed: {len(load.failures)}, answered but not kept: {unapplied})"
    )
    print(f"conversations locked after the load: {leases} (keys still reserved: {reserved})")
    for failure in load.failures[:5]:
        print(f"  failure: {failure[:300]}")
    print(f"ratio answered / attempted: {len(load.expected) / max(attempted, 1):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
