"""appclient.testing: what users need to test their own tools against a real server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest
import requests

import appclient.testing as testing
from appclient.server import CloudComponent, ComponentInfo, Decision, PlannedCall
from appclient.testing import FaultInjector, ReferenceServer, ScriptedAgent, ScriptExhaustedError

TOOL = {
    "type": "function",
    "function": {
        "name": "lookup",
        "description": "Look a word up",
        "parameters": {"type": "object", "properties": {"word": {"type": "string"}}},
    },
}


@pytest.fixture
def server() -> Iterator[ReferenceServer]:
    agent = ScriptedAgent([PlannedCall("lookup", {"word": "cat"}), ScriptedAgent.echo_outputs()])
    with ReferenceServer(agent) as running:
        yield running


def _post(server: ReferenceServer, path: str, body: dict, **kwargs) -> requests.Response:
    return requests.post(
        f"{server.url}{path}",
        json=body,
        headers={"Authorization": f"Bearer {server.token}"},
        timeout=10,
        **kwargs,
    )


def _conversation(server: ReferenceServer) -> str:
    return _post(server, "/v2/app/conversation", {"app_id": server.app_id}).json()[
        "conversation_id"
    ]


def test_facade_exports_the_testing_tools() -> None:
    """The module offers the server, scripted agents and models, and faults; not the agent API."""
    for name in ("ReferenceServer", "ScriptedAgent", "ScriptedModel", "FaultInjector"):
        assert name in testing.__all__
    for name in ("Agent", "Decision", "PlannedCall", "CloudComponent"):
        assert name not in testing.__all__


def test_scripted_agent_drives_a_deterministic_round_trip(server: ReferenceServer) -> None:
    """The script's call reaches the client; its output comes back in the answer."""
    cid = _conversation(server)
    body = {"app_id": server.app_id, "conversation_id": cid, "query": "define cat", "tools": [TOOL]}
    call = _post(server, "/v2/app/conversation/runs", body).json()["content"][-1]["tool_calls"][0]
    assert call["function"] == {"name": "lookup", "arguments": {"word": "cat"}}
    outputs = {
        "app_id": server.app_id,
        "conversation_id": cid,
        "tool_outputs": [{"tool_call_id": call["id"], "output": "a small feline"}],
    }
    assert _post(server, "/v2/app/conversation/runs", outputs).json()["answer"] == "a small feline"


def test_exhausted_script_is_an_error_event_naming_it(server: ReferenceServer) -> None:
    """Asking past the end of the script ends the run with an error event that says so."""
    cid = _conversation(server)
    body = {"app_id": server.app_id, "conversation_id": cid, "query": "q", "tools": [TOOL]}
    _post(server, "/v2/app/conversation/runs", body)
    _post(server, "/v2/app/conversation/runs", body)
    reply = _post(server, "/v2/app/conversation/runs", body)
    assert reply.status_code == 200
    event = reply.json()["content"][-1]
    assert event["event_status"] == "error"
    assert "ran out of steps" in event["event_message"]
    assert issubclass(ScriptExhaustedError, RuntimeError)


def test_fail_next_answers_status_and_retry_after(server: ReferenceServer) -> None:
    """fail_next makes the next requests fail with the status and Retry-After, then serves."""
    server.faults.fail_next(2, status=503, retry_after=1)
    for _ in range(2):
        reply = _post(server, "/v2/app/conversation", {"app_id": server.app_id})
        assert reply.status_code == 503
        assert reply.headers["Retry-After"] == "1"
        assert reply.headers["X-Appbuilder-Request-Id"] == reply.json()["request_id"]
    assert _post(server, "/v2/app/conversation", {"app_id": server.app_id}).status_code == 200


def test_hang_next_holds_until_the_client_gives_up(server: ReferenceServer) -> None:
    """A held request times the client out; release() lets the server thread go."""
    server.faults.hang_next(1)
    with pytest.raises(requests.Timeout):
        requests.post(f"{server.url}/v2/app/conversation", json={}, timeout=0.05)
    server.faults.release()
    assert _post(server, "/v2/app/conversation", {"app_id": server.app_id}).status_code == 200


def test_cut_stream_after_closes_the_stream_early(server: ReferenceServer) -> None:
    """cut_stream_after(1) delivers one SSE message, then the connection closes."""
    cid = _conversation(server)
    server.faults.cut_stream_after(1)
    body = {
        "app_id": server.app_id,
        "conversation_id": cid,
        "query": "q",
        "tools": [TOOL],
        "stream": True,
    }
    reply = _post(server, "/v2/app/conversation/runs", body)
    frames = [f for f in reply.content.split(b"\n\n") if f]
    assert len(frames) == 1
    json.loads(frames[0].removeprefix(b"data: "))


def test_a_shared_fault_injector_can_be_given() -> None:
    """A FaultInjector made by the test is the one the server uses."""
    faults = FaultInjector()
    with ReferenceServer(ScriptedAgent([Decision.reply("hi")]), faults=faults) as server:
        assert server.faults is faults
        faults.fail_next(1, status=429)
        assert _post(server, "/v2/app/conversation", {"app_id": server.app_id}).status_code == 429


def test_released_hang_on_stop_does_not_block_shutdown() -> None:
    """Stopping the server wakes a held request at once."""
    server = ReferenceServer(ScriptedAgent([])).start()
    server.faults.hang_next(1, timeout=60)
    worker = threading.Thread(
        target=lambda: requests.post(f"{server.url}/v2/app/conversation", json={}, timeout=30)
    )
    worker.start()
    assert server.faults.wait_injected(1, timeout=5)
    server.stop()
    worker.join(10)
    assert not worker.is_alive()


def test_a_users_cloud_component_runs_a_cloud_step() -> None:
    """A CloudComponent from appclient.testing runs a cloud=True step; its result is seen."""

    class Stock(CloudComponent):
        info = ComponentInfo("stock", "A share price", {"type": "object"})

        def execute(self, arguments: dict) -> str:
            return f"{arguments['symbol']}: 42"

    agent = ScriptedAgent(
        [PlannedCall("stock", {"symbol": "ACME"}, cloud=True), ScriptedAgent.echo_outputs()]
    )
    with ReferenceServer(agent, components=[Stock()]) as running:
        cid = _conversation(running)
        body = {"app_id": running.app_id, "conversation_id": cid, "query": "ACME?"}
        assert _post(running, "/v2/app/conversation/runs", body).json()["answer"] == "ACME: 42"
    assert agent.outputs_seen == ("ACME: 42",)


def test_servers_run_side_by_side_and_remove_their_upload_folders() -> None:
    """Several servers at once get their own ports and folders, each removed on stop."""
    with ReferenceServer() as first, ReferenceServer() as second:
        folders = [first.app.endpoints.uploads.directory, second.app.endpoints.uploads.directory]
        assert first.port != second.port
        assert folders[0] != folders[1]
        assert all(folder.is_dir() for folder in folders)
    assert not any(folder.exists() for folder in folders)


def test_a_planned_call_of_an_unknown_tool_raises_instead_of_answering() -> None:
    """A script calling a tool the run does not have fails the run, naming the tool."""
    from appclient import AppClient, RunError
    from appclient.server import PlannedCall
    from appclient.testing import ReferenceServer, ScriptedAgent

    def lookup_order(order_id: str) -> str:
        """Look up an order.

        Args:
            order_id: The order id.
        """
        return order_id

    agent = ScriptedAgent([PlannedCall("lookup_ordr", {"order_id": "A-1"}), "never reached"])
    with (
        ReferenceServer(agent=agent) as server,
        AppClient(server.app_id, token=server.token, base_url=server.url) as client,
        pytest.raises(RunError, match="'lookup_ordr', which is neither a tool"),
    ):
        client.run_until_answer(query="where is A-1?", tools=[lookup_order])
    assert len(agent.decisions) == 1
