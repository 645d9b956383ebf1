"""The run inspector's page and JSON endpoints: tenancy, run records, safety headers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from appclient.server import PlannedCall
from appclient.server._http._wsgi import ReferenceApp
from appclient.server._state._state import MAX_RUNS_KEPT, MAX_TEXT_CHARS
from appclient.testing import ScriptedAgent
from tests.server.helpers import (
    OTHER_TOKEN,
    WEATHER_TOOL,
    call_app,
    make_app,
    new_conversation,
    run_body,
)

RUNS = "/v2/app/conversation/runs"
API = "/inspector/api/conversations"


def _round_trip(app: ReferenceApp, output: str = "北京今天25度") -> str:
    cid = new_conversation(app)
    interrupt = call_app(app, RUNS, run_body(cid, query="北京天气", tools=[WEATHER_TOOL])).json()
    call_id = interrupt["content"][-1]["tool_calls"][0]["id"]
    outputs = [{"tool_call_id": call_id, "output": output}]
    assert call_app(app, RUNS, run_body(cid, tool_outputs=outputs)).status == 200
    return cid


def test_the_page_is_served_at_the_root_with_a_strict_policy() -> None:
    """GET / is the inspector's HTML, with a content security policy allowing no other script."""
    reply = call_app(make_app(), "/", method="GET", token=None)
    assert reply.status == 200
    assert reply.headers["Content-Type"].startswith("text/html")
    assert b"/inspector/app.js" in reply.body
    policy = reply.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "default-src 'none'" in policy


def test_the_script_and_styles_are_shipped_in_the_package() -> None:
    """The page's JavaScript and CSS come from the package, with their content types."""
    app = make_app()
    script = call_app(app, "/inspector/app.js", method="GET", token=None)
    style = call_app(app, "/inspector/style.css", method="GET", token=None)
    assert script.headers["Content-Type"].startswith("text/javascript")
    assert style.headers["Content-Type"].startswith("text/css")
    for markup_sink in (b".innerHTML", b".outerHTML", b"insertAdjacentHTML", b"document.write"):
        assert markup_sink not in script.body  # everything is put on the page as text


def test_the_json_endpoints_need_a_token() -> None:
    """Without a valid token the conversation list is a 401."""
    reply = call_app(make_app(), API, method="GET", token=None)
    assert reply.status == 401


def test_a_token_lists_only_its_own_conversations() -> None:
    """Another token's conversations are not listed, and opening one is a 404."""
    app = make_app()
    mine = _round_trip(app)
    theirs = new_conversation(app, token=OTHER_TOKEN)
    listed = call_app(app, API, method="GET").json()["conversations"]
    assert [item["conversation_id"] for item in listed] == [mine]
    assert call_app(app, f"{API}/{theirs}", method="GET").status == 404


def test_a_conversation_shows_each_run_with_calls_outputs_and_answer() -> None:
    """The detail lists the query run (its tool call) and the outputs run (its answer)."""
    app = make_app()
    cid = _round_trip(app)
    detail = call_app(app, f"{API}/{cid}", method="GET").json()
    first, second = detail["runs"]
    assert first["query"] == "北京天气"
    assert first["ending"] == "interrupt"
    (call,) = first["events"][0]["calls"]
    assert call["name"] == "get_current_weather"
    assert second["outputs"] == [{"tool_call_id": call["id"], "output": "北京今天25度"}]
    assert second["events"][-1]["kind"] == "answer"
    assert "北京今天25度" in second["events"][-1]["text"]
    assert detail["tools"][0]["name"] == "get_current_weather"
    assert "chars" not in first


def test_a_failed_run_shows_its_error() -> None:
    """A run that ends in an error event records its code and message."""
    agent = ScriptedAgent([PlannedCall("no_such_tool", {})])
    app = make_app(agent)
    cid = new_conversation(app)
    call_app(app, RUNS, run_body(cid, query="hi", tools=[WEATHER_TOOL]))
    (run,) = call_app(app, f"{API}/{cid}", method="GET").json()["runs"]
    assert run["ending"] == "error"
    assert "no_such_tool" in run["events"][-1]["message"]


def test_run_records_are_bounded_in_number_and_text() -> None:
    """Only the latest runs are kept, and long texts are cut."""
    app = make_app()
    cid = new_conversation(app)
    for _ in range(MAX_RUNS_KEPT + 3):
        call_app(app, RUNS, run_body(cid, query="x" * (MAX_TEXT_CHARS + 50)))
    runs = call_app(app, f"{API}/{cid}", method="GET").json()["runs"]
    assert len(runs) == MAX_RUNS_KEPT
    assert runs[0]["query"].startswith("x" * MAX_TEXT_CHARS + "… (50 more")


@pytest.mark.parametrize("method", ["POST", "PUT"])
def test_the_inspector_is_read_only(method: str) -> None:
    """Anything but GET on the inspector's paths is a 405."""
    reply = call_app(make_app(), API, method=method)
    assert reply.status == 405


def test_tool_outputs_reach_the_json_as_data_not_markup() -> None:
    """A tool output holding markup is kept verbatim in the JSON (the page shows it as text)."""
    app = make_app()
    cid = _round_trip(app, output="<script>alert(1)</script>")
    body = call_app(app, f"{API}/{cid}", method="GET").body
    assert json.loads(body)["runs"][1]["outputs"][0]["output"] == "<script>alert(1)</script>"


def test_protocol_paths_are_not_the_inspectors() -> None:
    """An unknown protocol path stays a plain 404 (the inspector only answers its own)."""
    reply = call_app(make_app(), "/v2/app/nothing", method="POST")
    assert reply.status == 404
    assert reply.json()["code"] == "NotFound"


def test_runs_survive_a_restart_with_the_sqlite_store(tmp_path: Path) -> None:
    """With a database, another app over the same file shows the same runs."""
    first = make_app(db_path=tmp_path / "state.db")
    cid = _round_trip(first)
    shown = call_app(first, f"{API}/{cid}", method="GET").json()["runs"]
    first.close()
    second = make_app(db_path=tmp_path / "state.db")
    try:
        assert call_app(second, f"{API}/{cid}", method="GET").json()["runs"] == shown
        listed = call_app(second, API, method="GET").json()["conversations"]
        assert listed[0]["last_query"] == "北京天气"
    finally:
        second.close()
