"""Tool calls in AppBuilder, OpenAI and AgentScope shapes, as data or text."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from appclient import InvalidRequestError, Message, RunAnswer, ToolCall
from appclient._clients._stream import RunStream
from appclient._core._call_shapes import CallRequest, read_calls

APPBUILDER = {
    "id": "c1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": {"city": "北京"}},
}
OPENAI = {
    "id": "c1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "北京"}'},
}
AGENTSCOPE = [{"name": "get_weather", "arguments": {"city": "北京"}}]
INTERNLM = {"name": "get_weather", "parameters": {"city": "北京"}}

CASES: list[tuple[str, Any, list[CallRequest]]] = [
    ("appbuilder dict", APPBUILDER, [CallRequest("c1", "get_weather", {"city": "北京"})]),
    (
        "appbuilder model",
        ToolCall.model_validate(APPBUILDER),
        [CallRequest("c1", "get_weather", {"city": "北京"})],
    ),
    (
        "openai dict, string arguments",
        OPENAI,
        [CallRequest("c1", "get_weather", '{"city": "北京"}')],
    ),
    (
        "openai object",
        SimpleNamespace(
            id="c1", function=SimpleNamespace(name="get_weather", arguments='{"city": "北京"}')
        ),
        [CallRequest("c1", "get_weather", '{"city": "北京"}')],
    ),
    ("agentscope list", AGENTSCOPE, [CallRequest("call_0", "get_weather", {"city": "北京"})]),
    (
        "agentscope text",
        json.dumps(AGENTSCOPE, ensure_ascii=False),
        [CallRequest("call_0", "get_weather", {"city": "北京"})],
    ),
    (
        "fenced text",
        "```json\n" + json.dumps(AGENTSCOPE) + "\n```",
        [CallRequest("call_0", "get_weather", {"city": "北京"})],
    ),
    ("internlm parameters", INTERNLM, [CallRequest("call_0", "get_weather", {"city": "北京"})]),
    (
        "openai message dict",
        {"role": "assistant", "tool_calls": [OPENAI, OPENAI]},
        [
            CallRequest("c1", "get_weather", '{"city": "北京"}'),
            CallRequest("c1", "get_weather", '{"city": "北京"}'),
        ],
    ),
    (
        "openai message object",
        SimpleNamespace(tool_calls=[OPENAI]),
        [CallRequest("c1", "get_weather", '{"city": "北京"}')],
    ),
    ("None", None, []),
    ("empty list", [], []),
    (
        "bytes",
        json.dumps(INTERNLM).encode(),
        [CallRequest("call_0", "get_weather", {"city": "北京"})],
    ),
]


@pytest.mark.parametrize(("case", "calls", "expected"), CASES, ids=[c[0] for c in CASES])
def test_shapes_are_read(case: str, calls: Any, expected: list[CallRequest]) -> None:
    """Each supported shape reads into the same CallRequest."""
    assert read_calls(calls) == expected


def _answer_with_calls() -> RunAnswer:
    return RunAnswer.model_validate(
        {"content": [{"event_status": "interrupt", "tool_calls": [APPBUILDER]}]}
    )


def test_run_answer_is_read_for_its_tool_calls() -> None:
    """A RunAnswer gives its last event's tool calls."""
    assert [c.id for c in read_calls(_answer_with_calls())] == ["c1"]


def test_message_is_read_for_its_tool_calls() -> None:
    """A non-stream Message gives its answer's tool calls."""
    assert [c.name for c in read_calls(Message(content=_answer_with_calls()))] == ["get_weather"]


def test_unread_stream_is_read_to_its_tool_calls() -> None:
    """A stream not yet iterated is read to the end, so its calls are not silently missed."""
    body = json.dumps(
        {
            "is_completion": True,
            "content": [{"event_status": "interrupt", "tool_calls": [APPBUILDER]}],
        }
    )
    stream = RunStream.from_body(body.encode())
    assert [c.id for c in read_calls(stream)] == ["c1"]


def test_message_object_without_tool_calls_gives_none() -> None:
    """An OpenAI-style message whose tool_calls is None has no calls (like a dict's None)."""
    message = SimpleNamespace(role="assistant", content="hello", tool_calls=None)
    assert read_calls(message) == []


def test_unparsable_wire_arguments_keep_their_reason() -> None:
    """A ToolCall whose argument text was not JSON carries the reason."""
    call = ToolCall.model_validate({"id": "x", "function": {"name": "f", "arguments": "{oops"}})
    [request] = read_calls(call)
    assert request.arguments_error is not None
    assert "not valid JSON" in request.arguments_error


@pytest.mark.parametrize(
    ("item", "needle"),
    [
        ({"arguments": {}}, "needs 'function' or 'name'"),
        ({"name": ""}, "no tool name"),
        ({"function": {"arguments": {}}}, "no tool name"),
        (42, "expected a tool call object, got int"),
    ],
)
def test_malformed_items_are_kept_with_a_problem(item: Any, needle: str) -> None:
    """A malformed item keeps its place with a problem, so it gets an error output."""
    [request] = read_calls([item])
    assert request.problem is not None
    assert needle in request.problem


def test_text_that_is_not_json_is_refused() -> None:
    """Text that is not JSON at all cannot be read as calls."""
    with pytest.raises(InvalidRequestError, match="must be JSON"):
        read_calls("call get_weather please")


def test_text_nested_too_deeply_is_refused() -> None:
    """Calls given as JSON text nested past the parser's depth are refused, not a crash."""
    with pytest.raises(InvalidRequestError, match="nested too deeply"):
        read_calls("[" * 100_000 + "]" * 100_000)


def test_unsupported_type_is_refused() -> None:
    """An object that holds no tool calls is refused with its type named."""
    with pytest.raises(InvalidRequestError, match="int"):
        read_calls(42)
