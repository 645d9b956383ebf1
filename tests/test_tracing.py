"""OpenTelemetry spans: a round trip's span tree, opt-in content, and nothing without OTel.

Each test runs a small program in a child process, so its tracer provider (the SDK's
in-memory exporter) or its missing OpenTelemetry never touches this process's global state.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from tests.conftest import REPO_ROOT, child_environment

pytest.importorskip("opentelemetry.sdk", reason="the otel extra's SDK drives these tests")

ROUND_TRIP = """
import json, sys
from appclient import AppClient, ToolRegistry
from appclient.server import PlannedCall
from appclient.testing import ReferenceServer, ScriptedAgent

def unlock(door: str, pin: int) -> str:
    '''Unlock a door.

    Args:
        door: The door, e.g. front.
    '''
    return f"{door} opened with {pin}"

def weather(city: str) -> str:
    '''Get the weather.

    Args:
        city: The city, e.g. 北京.
    '''
    return f"{city}: 晴"

registry = ToolRegistry()
registry.add(unlock, pin=918273)
registry.add(weather)
agent = ScriptedAgent([
    PlannedCall("unlock", {"door": "front"}),
    PlannedCall("weather", {"city": "北京"}),
    ScriptedAgent.echo_outputs("done: {outputs}"),
])
with ReferenceServer(agent=agent) as server, AppClient(
    server.app_id, token=server.token, base_url=server.url
) as client:
    client.run_until_answer(query="open the door, then the weather", tools=registry)
"""

WITH_SDK = (
    """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
"""
    + ROUND_TRIP
    + """
spans = [
    {
        "name": s.name,
        "id": s.context.span_id,
        "parent": s.parent.span_id if s.parent else None,
        "status": s.status.status_code.name,
        "attributes": dict(s.attributes),
    }
    for s in exporter.get_finished_spans()
]
print(json.dumps(spans, ensure_ascii=False, default=str))
"""
)

WITHOUT_OTEL = (
    """
import sys
sys.modules["opentelemetry"] = None  # as if it were not installed: find_spec gives None
"""
    + ROUND_TRIP
    + """
loaded = [m for m, module in sys.modules.items() if m.startswith("opentelemetry") and module]
print(json.dumps(loaded))
"""
)


def _child(code: str, **env: str) -> Any:
    environment = {**child_environment(), **env}
    environment["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(REPO_ROOT), environment.get("PYTHONPATH")])
    )
    done = subprocess.run(  # noqa: S603 - this interpreter running the test's own program
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_round_trip_with_two_tool_calls_makes_the_expected_span_tree() -> None:
    """One round_trip span holds three runs and two execute_tool spans, with GenAI attributes."""
    spans = _child(WITH_SDK)
    (root,) = [s for s in spans if s["parent"] is None]
    assert root["name"].startswith("round_trip ")
    assert root["attributes"]["appclient.rounds"] == 2
    assert root["attributes"]["appclient.tool_calls"] == 2
    children = [s for s in spans if s["parent"] == root["id"]]
    runs = [s for s in children if s["name"].startswith("invoke_agent ")]
    tools = [s for s in children if s["name"].startswith("execute_tool ")]
    assert len(runs) == 3
    assert [s["attributes"]["gen_ai.tool.name"] for s in tools] == ["unlock", "weather"]
    for run in runs:
        attributes = run["attributes"]
        assert attributes["gen_ai.operation.name"] == "invoke_agent"
        assert attributes["gen_ai.conversation.id"] == root["attributes"]["gen_ai.conversation.id"]
        assert attributes["appclient.request_id"]
        assert attributes["appclient.retries"] == 0
    assert [r["attributes"]["appclient.run.status"] for r in runs] == [
        "tool_calls",
        "tool_calls",
        "answer",
    ]
    for tool in tools:
        assert tool["attributes"]["gen_ai.operation.name"] == "execute_tool"
        assert tool["attributes"]["gen_ai.tool.call.id"]
        assert "gen_ai.tool.call.arguments" not in tool["attributes"]  # content is opt-in


def test_content_is_recorded_when_asked_with_bound_values_redacted() -> None:
    """With the GenAI content switch on, arguments and outputs are recorded, secrets redacted."""
    spans = _child(WITH_SDK, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true")
    unlock = next(s for s in spans if s["name"] == "execute_tool unlock")["attributes"]
    assert json.loads(unlock["gen_ai.tool.call.arguments"]) == {"door": "front"}
    assert unlock["gen_ai.tool.call.result"].startswith("front opened with ")
    assert not any("918273" in json.dumps(s, ensure_ascii=False) for s in spans)


def test_without_opentelemetry_nothing_is_imported_and_runs_work() -> None:
    """With OpenTelemetry absent, a round trip works and no opentelemetry module is loaded."""
    assert _child(WITHOUT_OTEL) == []


def test_importing_appclient_does_not_import_opentelemetry() -> None:
    """OpenTelemetry is looked for at the first run, not when appclient is imported."""
    code = (
        "import json, sys, appclient\n"
        "print(json.dumps([m for m in sys.modules if m.startswith('opentelemetry')]))"
    )
    assert _child(code) == []
