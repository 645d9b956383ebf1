"""Wire models: lenient decoding, seed-compatible access, wire-exact encoding."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from appclient import FunctionCall, Message, RunAnswer, Tool, ToolCall, ToolChoice, ToolOutput
from appclient._core import _models as models_module
from appclient._core._models import RunRequest, WireModel
from appclient.types import Event
from tests.conftest import RESPONSE_FIXTURES

JSON_RESPONSES = sorted(RESPONSE_FIXTURES.glob("run_*.json"))


@pytest.mark.parametrize("path", JSON_RESPONSES, ids=lambda p: p.name)
def test_every_recorded_run_body_parses(path) -> None:
    """Each recorded non-stream run body validates as a RunAnswer."""
    answer = RunAnswer.model_validate_json(path.read_bytes())
    assert isinstance(answer.answer, str)


def test_seed_access_path_reaches_tool_call() -> None:
    """msg.content.events[-1].tool_calls[-1] gives id, name and dict arguments."""
    body = (RESPONSE_FIXTURES / "run_nonstream_tool_call_realistic.json").read_bytes()
    msg = Message(content=RunAnswer.model_validate_json(body))
    call = msg.content.events[-1].tool_calls[-1]  # type: ignore[index]
    assert (call.function.name, call.function.arguments) == (
        "get_current_weather",
        {"location": "北京", "unit": "celsius"},
    )


def test_minimal_tool_call_without_type_defaults_to_function() -> None:
    """A tool call with no type field is a function call."""
    body = (RESPONSE_FIXTURES / "run_nonstream_tool_call_minimal.json").read_bytes()
    assert RunAnswer.model_validate_json(body).tool_calls[0].type == "function"


def test_message_dumps_as_json_with_indent() -> None:
    """The seed's msg.model_dump_json(indent=4) works and keeps non-ASCII readable."""
    msg = Message(content=RunAnswer(answer="北京今天25度"))
    dumped = json.loads(msg.model_dump_json(indent=4))
    assert dumped["content"]["answer"] == "北京今天25度"


def test_string_arguments_are_parsed() -> None:
    """OpenAI-style JSON-string arguments become a dict."""
    call = FunctionCall.model_validate({"name": "f", "arguments": '{"city": "巴黎"}'})
    assert call.arguments == {"city": "巴黎"}


@pytest.mark.parametrize("raw", [None, "", "null"])
def test_empty_arguments_mean_no_arguments(raw) -> None:
    """null, "" and "null" arguments decode to an empty dict without an error."""
    call = FunctionCall.model_validate({"name": "f", "arguments": raw})
    assert (call.arguments, call.arguments_error) == ({}, None)


@pytest.mark.parametrize("raw", ["{not json", "[1, 2]", '"text"'])
def test_unusable_argument_text_is_kept_as_error(raw) -> None:
    """Argument text that is not a JSON object leaves a readable arguments_error."""
    call = FunctionCall.model_validate({"name": "f", "arguments": raw})
    assert call.arguments == {}
    assert raw in (call.arguments_error or "")


def test_argument_text_nested_too_deeply_is_kept_as_error() -> None:
    """Argument text nested past the JSON decoder's depth is an arguments_error, not a crash."""
    raw = "[" * 100_000 + "]" * 100_000
    call = FunctionCall.model_validate({"name": "f", "arguments": raw})
    assert call.arguments == {}
    assert "nested too deeply" in (call.arguments_error or "")


def test_arguments_error_is_not_sent_on_the_wire() -> None:
    """The decoding note never appears in a dump."""
    call = FunctionCall.model_validate({"name": "f", "arguments": "[1]"})
    assert "arguments_error" not in call.model_dump()


def test_null_fields_take_their_defaults() -> None:
    """A null where the protocol promises a value decodes as the default."""
    answer = RunAnswer.model_validate({"answer": None, "content": None, "message_id": None})
    assert (answer.answer, answer.events, answer.message_id) == ("", [], "")


def test_nested_nulls_in_json_take_their_defaults() -> None:
    """JSON text decodes a null at every level (answer, event, usage) as the default."""
    text = '{"answer": null, "content": [{"event_status": null, "usage": {"name": null}}]}'
    answer = RunAnswer.model_validate_json(text)
    [event] = answer.events
    assert (answer.answer, event.event_status, event.usage and event.usage.name) == ("", "", "")


def test_every_field_with_a_default_is_marked_null_is_default() -> None:
    """Each wire field with a non-None default reads ``null`` as that default (it is marked)."""
    wire_models = [
        model
        for model in vars(models_module).values()
        if isinstance(model, type) and issubclass(model, WireModel) and model is not WireModel
    ]
    unmarked = [
        f"{model.__name__}.{name}"
        for model in wire_models
        for name, field in model.model_fields.items()
        if not field.is_required()
        and field.get_default(call_default_factory=True) is not None
        and name not in dict(model._null_is_default)
    ]
    assert len(wire_models) > 10
    assert unmarked == []


def test_unknown_fields_are_kept() -> None:
    """Fields the models do not know survive decoding in model_extra."""
    event = Event.model_validate({"event_status": "done", "brand_new": 1})
    assert event.model_extra == {"brand_new": 1}


def test_event_offers_official_sdk_names() -> None:
    """code, message, status and detail mirror the wire fields."""
    event = Event(event_code=3, event_message="m", event_status="error", outputs={"a": 1})
    assert (event.code, event.message, event.status, event.detail) == (3, "m", "error", {"a": 1})


def test_event_text_reads_text_outputs_only() -> None:
    """Event.text is the text of a text event and empty otherwise."""
    assert Event(outputs={"text": "hi"}).text == "hi"
    assert Event(outputs={"text": {"arguments": {}}}).text == ""


def test_run_answer_wire_form_uses_content() -> None:
    """to_wire() writes events back under the wire name content."""
    wire = RunAnswer(events=[Event(event_status="success")]).to_wire()
    assert wire["content"][0]["event_status"] == "success"
    assert "events" not in wire


def test_tool_calls_come_from_last_event_with_calls() -> None:
    """RunAnswer.tool_calls reads the interrupt, not earlier events."""
    call = ToolCall(id="1", function=FunctionCall(name="f"))
    answer = RunAnswer(events=[Event(event_status="done"), Event(tool_calls=[call])])
    assert [c.id for c in answer.tool_calls] == ["1"]


def test_error_event_is_found() -> None:
    """RunAnswer.error_event returns the failing event."""
    answer = RunAnswer(events=[Event(), Event(event_status="error", event_code=7)])
    assert answer.error_event is not None
    assert answer.error_event.code == 7


def test_tool_output_serialises_structured_output() -> None:
    """A dict output is sent as JSON text with non-ASCII kept."""
    output = ToolOutput(tool_call_id="1", output={"温度": 25})  # type: ignore[arg-type]
    assert output.output == '{"温度": 25}'


def test_function_tool_requires_function() -> None:
    """A function tool without a function object is rejected with the reason."""
    with pytest.raises(ValidationError, match="needs a 'function' object"):
        Tool(type="function")


def test_forced_tool_choice_requires_a_name() -> None:
    """tool_choice of type function must name the tool."""
    with pytest.raises(ValidationError, match=r"function\.name"):
        ToolChoice(type="function")


def test_auto_tool_choice_accepts_null_function() -> None:
    """The official client's ToolChoice(type='auto', function=None) validates."""
    assert ToolChoice.model_validate({"type": "auto", "function": None}).function is None


def test_run_request_accepts_official_nulls() -> None:
    """The official client's 13-key body with nulls validates."""
    request = RunRequest.model_validate(
        {"app_id": "a", "conversation_id": "c", "query": None, "stream": None, "tools": None}
    )
    assert (request.query, request.stream, request.tools) == ("", False, None)


def test_a_message_offers_the_answer_fields_directly() -> None:
    """msg.answer (and the ids, events and tool calls) read the same as msg.content's."""
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    content = RunAnswer.model_validate(
        {
            "answer": "北京今天35度",
            "conversation_id": "conv",
            "message_id": "m1",
            "request_id": "r1",
            "is_completion": True,
            "content": [{"event_status": "interrupt", "tool_calls": [call]}],
        }
    )
    msg = Message(content=content)
    assert (msg.answer, msg.conversation_id, msg.message_id) == ("北京今天35度", "conv", "m1")
    assert (msg.request_id, msg.is_completion) == ("r1", True)
    assert msg.events == content.events
    assert [c.id for c in msg.tool_calls] == ["c1"]
