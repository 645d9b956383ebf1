"""With the SQLite store, a restart loses nothing: pending calls, tools, replays."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from appclient.server import SQLiteStore
from appclient.server._state._state import StoredResponse
from appclient.testing import ReferenceServer
from tests.server.helpers import WEATHER_TOOL, WeatherAgent

RUNS = "/v2/app/conversation/runs"


def _server(db: Path) -> ReferenceServer:
    return ReferenceServer(WeatherAgent(), components=(), db_path=db, token="durable-token")


def _post(server: ReferenceServer, path: str, body: dict, **headers: str) -> requests.Response:
    return requests.post(
        f"{server.url}{path}",
        json=body,
        headers={"Authorization": f"Bearer {server.token}", **headers},
        timeout=10,
    )


def _conversation(server: ReferenceServer) -> str:
    conversation_id: str = _post(server, "/v2/app/conversation", {"app_id": server.app_id}).json()[
        "conversation_id"
    ]
    return conversation_id


def _tool_round(server: ReferenceServer, query: str) -> tuple[str, dict]:
    """Start a conversation and run ``query`` with the weather tool; return its interrupt."""
    conversation_id = _conversation(server)
    body = {
        "app_id": server.app_id,
        "conversation_id": conversation_id,
        "query": query,
        "tools": [WEATHER_TOOL],
    }
    return conversation_id, _post(server, RUNS, body).json()


def _outputs_body(server: ReferenceServer, cid: str, interrupt: dict, *, stream: bool) -> dict:
    """The run body answering the interrupt's first call with "晴"."""
    call_id = interrupt["content"][-1]["tool_calls"][0]["id"]
    return {
        "app_id": server.app_id,
        "conversation_id": cid,
        "stream": stream,
        "tool_outputs": [{"tool_call_id": call_id, "output": "晴"}],
    }


def test_pending_call_survives_a_restart(tmp_path: Path) -> None:
    """Stop the server while a tool call is pending; outputs sent afterwards complete the run."""
    db = tmp_path / "state.db"
    with _server(db) as first:
        cid, interrupt = _tool_round(first, "北京天气")
        call_id = interrupt["content"][-1]["tool_calls"][0]["id"]
    with _server(db) as second:
        outputs = {
            "app_id": second.app_id,
            "conversation_id": cid,
            "tool_outputs": [{"tool_call_id": call_id, "output": "北京今天25度"}],
        }
        answer = _post(second, RUNS, outputs).json()
        assert answer["answer"] == "根据工具结果：北京今天25度"
        assert answer["content"][-1]["event_status"] == "success"
        again = _post(
            second, RUNS, {"app_id": second.app_id, "conversation_id": cid, "query": "上海天气"}
        )
        assert (
            again.json()["content"][-1]["tool_calls"][0]["function"]["name"]
            == "get_current_weather"
        )
        feedback = {
            "app_id": second.app_id,
            "conversation_id": cid,
            "message_id": interrupt["message_id"],
            "type": "upvote",
        }
        assert _post(second, "/v2/app/conversation/feedback", feedback).status_code == 200


def test_idempotent_replay_survives_a_restart(tmp_path: Path) -> None:
    """A retry after a restart gets the first answer, and the outputs stay applied once."""
    db = tmp_path / "state.db"
    with _server(db) as first:
        cid, interrupt = _tool_round(first, "北京")
        outputs = _outputs_body(first, cid, interrupt, stream=True)
        original = _post(first, RUNS, outputs, **{"Idempotency-Key": "k-1"})
    with _server(db) as second:
        replay = _post(second, RUNS, outputs, **{"Idempotency-Key": "k-1"})
        assert replay.content == original.content
        assert replay.headers["Idempotent-Replayed"] == "true"
        state = second.store.get_conversation(cid)
        assert state is not None
        assert len(state.history) == 1


class _DiesBeforeKeepingAnswers(SQLiteStore):
    """A store whose process "dies" before any step after a run's commit could keep its answer."""

    def complete_key(self, key: str, response: StoredResponse) -> None:
        """Keep nothing, as a worker killed right after the commit."""


@pytest.mark.parametrize("stream", [False, True])
def test_a_run_and_its_replay_are_committed_together(tmp_path: Path, stream: bool) -> None:
    """Killed right after a run's commit, a restart still replays it: outputs applied once."""
    db = tmp_path / "state.db"
    with _server(db) as setup:
        cid, interrupt = _tool_round(setup, "北京")
    outputs = _outputs_body(setup, cid, interrupt, stream=stream)
    dying = _DiesBeforeKeepingAnswers(db)
    with ReferenceServer(WeatherAgent(), components=(), store=dying, token=setup.token) as first:
        original = _post(first, RUNS, outputs, **{"Idempotency-Key": "k-1"})
        assert original.status_code == 200
    with _server(db) as second:
        replay = _post(second, RUNS, outputs, **{"Idempotency-Key": "k-1"})
        assert replay.status_code == 200
        assert replay.content == original.content
        state = second.store.get_conversation(cid)
        assert state is not None
        assert len(state.history) == 1


def test_uploads_live_next_to_the_database(tmp_path: Path) -> None:
    """Uploaded files go to <db>.files and stay usable after a restart."""
    db = tmp_path / "state.db"
    with _server(db) as first:
        cid = _conversation(first)
        file_id = requests.post(
            f"{first.url}/v2/app/conversation/file/upload",
            files={
                "app_id": (None, first.app_id),
                "conversation_id": (None, cid),
                "file": ("a.txt", b"abc"),
            },
            headers={"Authorization": f"Bearer {first.token}"},
            timeout=10,
        ).json()["id"]
    assert (tmp_path / "state.db.files" / f"{file_id}.bin").read_bytes() == b"abc"
    with _server(db) as second:
        body = {
            "app_id": second.app_id,
            "conversation_id": cid,
            "query": "总结",
            "file_ids": [file_id],
        }
        assert _post(second, RUNS, body).status_code == 200


def test_a_crashed_runs_lease_expires_and_the_conversation_recovers(tmp_path: Path) -> None:
    """A run cut off by a crash blocks its conversation only until the lease runs out."""
    db = tmp_path / "state.db"
    with _server(db) as first:
        cid, interrupt = _tool_round(first, "北京")
    call_id = interrupt["content"][-1]["tool_calls"][0]["id"]
    now = [1_000_000.0]
    crashed = SQLiteStore(db)  # a worker that took the lease, then died mid-run
    assert crashed.acquire_run(cid, lease_id="dead", now=now[0], lease_seconds=60)
    crashed.close()
    outputs = {
        "app_id": "x",
        "conversation_id": cid,
        "tool_outputs": [{"tool_call_id": call_id, "output": "晴"}],
    }
    restarted = ReferenceServer(
        WeatherAgent(),
        components=(),
        db_path=db,
        token="durable-token",
        lease_seconds=60,
        clock=lambda: now[0],
    )
    with restarted as second:
        outputs["app_id"] = second.app_id
        busy = _post(second, RUNS, outputs)
        assert busy.status_code == 409
        now[0] += 60
        answer = _post(second, RUNS, outputs)
        assert answer.status_code == 200, answer.text
        assert answer.json()["answer"] == "根据工具结果：晴"
