"""A bounded loopback load test: concurrent clients, zero errors, each output applied once."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import requests

from appclient.testing import ReferenceServer
from tests.server.helpers import WEATHER_TOOL, WeatherAgent

RUNS = "/v2/app/conversation/runs"


def _client(server: ReferenceServer, rounds: int, name: str, errors: list[str], cids: dict) -> None:
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {server.token}"
    try:
        cid = session.post(
            f"{server.url}/v2/app/conversation", json={"app_id": server.app_id}, timeout=30
        ).json()["conversation_id"]
        cids[name] = cid
        base = {"app_id": server.app_id, "conversation_id": cid}
        for index in range(rounds):
            first = session.post(
                f"{server.url}{RUNS}",
                json={**base, "query": f"北京天气 {index}", "tools": [WEATHER_TOOL]},
                timeout=30,
            )
            if first.status_code != 200:
                errors.append(f"{name}/{index}: {first.status_code} {first.text}")
                continue
            call_id = first.json()["content"][-1]["tool_calls"][0]["id"]
            output = f"{name}-{index}"
            second = session.post(
                f"{server.url}{RUNS}",
                json={**base, "tool_outputs": [{"tool_call_id": call_id, "output": output}]},
                headers={"Idempotency-Key": f"{name}-{index}"},
                timeout=30,
            )
            if second.status_code != 200 or second.json()["answer"] != f"根据工具结果：{output}":
                errors.append(f"{name}/{index}: {second.status_code} {second.text}")
    except Exception as exc:
        errors.append(f"{name}: {exc!r}")
    finally:
        session.close()


def _load(server: ReferenceServer, *, clients: int, rounds: int) -> None:
    errors: list[str] = []
    cids: dict[str, str] = {}
    threads = [
        threading.Thread(target=_client, args=(server, rounds, f"c{i}", errors, cids))
        for i in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    for name, cid in cids.items():
        state = server.store.get_conversation(cid)
        assert state is not None
        outputs = [result.output for turn in state.history for result in turn.results]
        assert outputs == [f"{name}-{index}" for index in range(rounds)]
        assert state.open_turn is None
    assert len(cids) == clients


def test_sixteen_clients_fifty_round_trips_each() -> None:
    """16 concurrent clients x 50 round trips: no error, every output applied exactly once."""
    with ReferenceServer(WeatherAgent(), components=()) as server:
        _load(server, clients=16, rounds=50)


@pytest.mark.parametrize("clients", [4])
def test_sqlite_store_under_concurrent_clients(tmp_path: Path, clients: int) -> None:
    """The SQLite store stays consistent under concurrent clients."""
    with ReferenceServer(WeatherAgent(), components=(), db_path=tmp_path / "load.db") as server:
        _load(server, clients=clients, rounds=10)
