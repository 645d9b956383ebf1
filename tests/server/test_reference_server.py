"""ReferenceServer: a context manager on 127.0.0.1, a free port, a token, restartable."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
import requests

from appclient.server import MemoryStore
from appclient.server._agents._agent_api import AgentInput, Decision
from appclient.server._settings import DEFAULT_APP_ID
from appclient.testing import FaultInjector, ReferenceServer
from tests.server.helpers import WeatherAgent


def _create(server: ReferenceServer, *, token: str | None = None) -> requests.Response:
    return requests.post(
        f"{server.url}/v2/app/conversation",
        json={"app_id": server.app_id},
        headers={"Authorization": f"Bearer {token or server.token}"},
        timeout=10,
    )


def test_defaults_bind_loopback_on_a_free_port_with_a_fresh_token() -> None:
    """By default: 127.0.0.1, a picked port, a generated token, the default app id."""
    with ReferenceServer(WeatherAgent(), components=()) as server:
        assert server.host == "127.0.0.1"
        assert server.port > 0
        assert server.url == f"http://127.0.0.1:{server.port}"
        assert len(server.token) >= 32
        assert server.app_id == DEFAULT_APP_ID
        assert _create(server).status_code == 200


def test_given_token_store_and_app_id_are_used() -> None:
    """A given token, store and app id are the ones served."""
    store = MemoryStore()
    with ReferenceServer(
        WeatherAgent(), components=(), token="tok", app_id="my-app", store=store
    ) as server:
        assert server.store is store
        conversation_id = _create(server, token="tok").json()["conversation_id"]
        assert store.get_conversation(conversation_id) is not None


def test_extra_tokens_are_other_tenants() -> None:
    """Extra tokens are accepted and own their own conversations."""
    with ReferenceServer(WeatherAgent(), components=(), extra_tokens=["second"]) as server:
        assert _create(server, token="second").status_code == 200


def test_token_and_faults_set_before_start_are_the_ones_served() -> None:
    """The public token and fault injector are read when the server starts."""
    server = ReferenceServer(WeatherAgent(), components=())
    server.token = "a-token-of-my-own"
    server.faults = FaultInjector()
    with server:
        assert _create(server, token="a-token-of-my-own").status_code == 200
        server.faults.fail_next(1, status=503, retry_after=0)
        assert _create(server, token="a-token-of-my-own").status_code == 503


def test_repr_never_shows_the_token() -> None:
    """The repr names the URL and app id, never the token."""
    with ReferenceServer(WeatherAgent(), components=(), token="do-not-show") as server:
        assert "do-not-show" not in repr(server)
        assert "running" in repr(server)
    assert "stopped" in repr(server)


def test_app_is_unavailable_before_start() -> None:
    """Asking for the app of a server that is not running is a clear error."""
    server = ReferenceServer(WeatherAgent(), components=())
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.store


def test_something_that_is_not_an_agent_is_refused_at_start() -> None:
    """ReferenceServer(["hi"]) (steps without ScriptedAgent) is a TypeError, not a 500 later."""
    server = ReferenceServer(["hi"])  # type: ignore[arg-type]  # the mistake under test
    with pytest.raises(TypeError, match=r"ScriptedAgent\(\[\.\.\.\]\)"):
        server.start()
    assert not server.running


def test_start_and_stop_are_idempotent() -> None:
    """Starting twice or stopping twice does no harm."""
    server = ReferenceServer(WeatherAgent(), components=())
    assert server.start() is server.start()
    assert server.running
    server.stop()
    server.stop()
    assert not server.running


def test_stop_frees_the_port_for_a_restart(tmp_path: Path) -> None:
    """A stopped server can be started again on the same port with the same database."""
    server = ReferenceServer(WeatherAgent(), components=(), db_path=tmp_path / "s.db", token="t")
    with server:
        port = server.port
        conversation_id = _create(server).json()["conversation_id"]
    again = ReferenceServer(
        WeatherAgent(), components=(), db_path=tmp_path / "s.db", token="t", port=port
    )
    with again:
        assert again.port == port
        assert again.store.get_conversation(conversation_id) is not None


def test_serve_until_blocks_until_the_event() -> None:
    """serve_until serves until the event is set, then stops."""
    server = ReferenceServer(WeatherAgent(), components=()).start()  # serve_until keeps it
    stop = threading.Event()
    worker = threading.Thread(target=server.serve_until, args=(stop,))
    worker.start()
    assert _create(server).status_code == 200
    assert worker.is_alive()
    stop.set()
    worker.join(10)
    assert not server.running


def test_default_agent_is_the_rule_agent() -> None:
    """Without an agent the rule agent plans, with the built-in cloud components."""
    with ReferenceServer() as server:
        conversation_id = _create(server).json()["conversation_id"]
        reply = requests.post(
            f"{server.url}/v2/app/conversation/runs",
            json={
                "app_id": server.app_id,
                "conversation_id": conversation_id,
                "query": "算一下 3*7+1",
            },
            headers={"Authorization": f"Bearer {server.token}"},
            timeout=10,
        ).json()
        assert "22" in reply["answer"]
        assert [e["event_type"] for e in reply["content"]][1:3] == ["function_call", "Calculator"]


class _GatedAgent:
    """Answers only once the test opens the gate (a run held in flight)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.gate = threading.Event()

    def decide(self, agent_input: AgentInput) -> Decision:
        self.entered.set()
        self.gate.wait(timeout=10)
        return Decision.reply("done")


def test_stop_lets_a_run_in_flight_finish_and_release_its_lease(tmp_path: Path) -> None:
    """stop() waits for a run in flight: it is answered and leaves no lease in the SQLite file."""
    agent = _GatedAgent()
    db_path = tmp_path / "state.db"
    server = ReferenceServer(agent, components=(), db_path=db_path).start()
    conversation_id = _create(server).json()["conversation_id"]
    answers: list[int] = []

    def run() -> None:
        response = requests.post(
            f"{server.url}/v2/app/conversation/runs",
            json={"app_id": server.app_id, "conversation_id": conversation_id, "query": "q"},
            headers={"Authorization": f"Bearer {server.token}"},
            timeout=10,
        )
        answers.append(response.status_code)

    client = threading.Thread(target=run)
    client.start()
    assert agent.entered.wait(timeout=10)
    http = server._http
    assert http is not None
    stopper = threading.Thread(target=server.stop)
    stopper.start()
    while not http._draining:  # stop() has begun waiting for the run
        stopper.join(timeout=0.01)
    agent.gate.set()
    stopper.join()
    client.join()
    assert answers == [200]
    with sqlite3.connect(db_path) as db:
        leases = db.execute("SELECT lease_id FROM conversations").fetchall()
    assert leases == [(None,)]
