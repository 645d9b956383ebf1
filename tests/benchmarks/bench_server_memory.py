"""Server memory under a token holder who sends huge unique tools, next to the idle server.

A reference server (memory store) runs in a child process. Its resident memory is read
after a few ordinary runs (the baseline), then after ``--runs`` runs that each carry a
unique 9 MB tool (the pass that once took the server to 2.6 GB), then after as many runs
with unique tools just under the 1 MiB a run may carry (the largest accepted). Each run
creates its own conversation. Printed: RSS after each phase, the statuses answered, and the
ratio of the final RSS to the baseline. Target: under 300 MB after the 9 MB pass.

Run: ``python tests/benchmarks/bench_server_memory.py [--quick] [--runs N]``
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _server_process import APP_ID, TOKEN, rss_mb, serving

HEADERS = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}


def _tool(index: int, size: int) -> dict[str, object]:
    return {
        "type": "function",
        "function": {
            "name": f"tool_{index}",
            "description": f"{index} " + "x" * size,
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        },
    }


def _runs(
    session: requests.Session, url: str, count: int, tool_size: int
) -> collections.Counter[int]:
    statuses: collections.Counter[int] = collections.Counter()
    for index in range(count):
        created = session.post(f"{url}/v2/app/conversation", json={"app_id": APP_ID})
        if created.status_code != 200:
            statuses[created.status_code] += 1
            continue
        body = {
            "app_id": APP_ID,
            "conversation_id": created.json()["conversation_id"],
            "query": "hello",
            "tools": [_tool(index, tool_size)],
        }
        answer = session.post(f"{url}/v2/app/conversation/runs", data=json.dumps(body))
        statuses[answer.status_code] += 1
    return statuses


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a few runs only")
    parser.add_argument("--runs", type=int, default=100, help="runs per hostile pass")
    args = parser.parse_args(argv)
    runs = 4 if args.quick else args.runs
    with serving() as (process, url), requests.Session() as session:
        session.headers.update(HEADERS)
        _runs(session, url, 10, 100)
        baseline = rss_mb(process.pid)
        huge = _runs(session, url, runs, 9 * 1024 * 1024)
        after_huge = rss_mb(process.pid)
        largest = _runs(session, url, runs, 1024 * 1024 - 400)
        after_largest = rss_mb(process.pid)
    print(f"server RSS after 10 ordinary runs: {baseline:.1f} MB (baseline)")
    print(f"after {runs} runs with unique 9 MB tools: {after_huge:.1f} MB, statuses {dict(huge)}")
    print(
        f"after {runs} runs with unique tools just under 1 MiB: {after_largest:.1f} MB, "
        f"statuses {dict(largest)}"
    )
    print(f"ratio (final / baseline): {after_largest / baseline:.2f}x; target: < 300 MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
