"""Streams with cloud components have the hosted service's shape, event for event."""

from __future__ import annotations

import json
from itertools import groupby
from typing import Any

from tests.conftest import REPO_ROOT
from tests.server.helpers import call_app, make_app, new_conversation, run_body

RECORDING = json.loads(
    (REPO_ROOT / "tests/fixtures/hosted/tool_choice_weather_stream.json").read_text("utf-8")
)


def _shape(messages: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Each message as its events' (type, content type, status); runs of deltas as one."""
    shapes = [
        tuple((e["event_type"], e["content_type"], e["status"]) for e in message["events"])
        for message in messages
    ]
    return [shape for shape, _ in groupby(shapes)]  # the number of answer deltas may differ


def _served() -> list[dict[str, Any]]:
    app = make_app(components=None)  # the built-in cloud components, WeatherQuery among them
    cid = new_conversation(app)
    reply = call_app(app, "/v2/app/conversation/runs", run_body(cid, **RECORDING["request"]))
    return [
        {
            "answer": message["answer"],
            "is_completion": message["is_completion"],
            "events": [
                {
                    "event_type": e["event_type"],
                    "content_type": e["content_type"],
                    "status": e["event_status"],
                    "outputs": e["outputs"],
                }
                for e in message["content"]
            ],
        }
        for message in reply.messages()
    ]


def test_a_forced_component_streams_like_the_hosted_recording() -> None:
    """One event per message, component preparing/result/success, agent call, trailing empty."""
    assert _shape(_served()) == _shape(RECORDING["messages"])


def test_the_function_call_events_name_the_component_and_the_agent() -> None:
    """The two function_call events carry the component's and the agent's calls."""
    calls = [
        m["events"][0]["outputs"]["text"]
        for m in _served()
        if m["events"] and m["events"][0]["event_type"] == "function_call"
    ]
    recorded = [
        e for m in RECORDING["messages"] for e in m["events"] if e["event_type"] == "function_call"
    ]
    assert [c["component_code"] for c in calls] == [e["component_code"] for e in recorded]
    assert all(sorted(c) == e["detail_text_keys"] for c, e in zip(calls, recorded, strict=True))
    assert calls[1]["arguments"] == recorded[1]["arguments"]


def test_the_answer_streams_in_the_agent_messages_and_the_last_completes() -> None:
    """Only ChatAgent running messages carry answer text; the trailing empty one completes."""
    served = _served()
    with_text = {m["events"][0]["status"] for m in served if m["answer"]}
    assert with_text == {"running"}
    assert [m["is_completion"] for m in served].count(True) == 1
    assert served[-1] == {"answer": "", "is_completion": True, "events": []}
