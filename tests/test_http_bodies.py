"""Request bodies built and checked before sending (pure)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from appclient import (
    InvalidRequestError,
    ToolChoice,
    ToolChoiceFunction,
    ToolOutput,
)
from appclient._core._http_bodies import (
    encode_json,
    feedback_body,
    run_body,
    tool_choice_to_wire,
    tool_outputs_to_wire,
)

RUN_KEYS = [
    "query",
    "stream",
    "conversation_id",
    "file_ids",
    "app_id",
    "tools",
    "tool_outputs",
    "tool_choice",
    "end_user_id",
    "action",
    "mcp_authorization",
    "parameters",
    "custom_metadata",
]


def _run(**overrides: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "app_id": "app",
        "conversation_id": "conv",
        "query": "hi",
        "stream": False,
        "file_ids": None,
        "tools": None,
        "tool_outputs": None,
        "tool_choice": None,
        "end_user_id": None,
        "action": None,
        "parameters": None,
        "custom_metadata": None,
    }
    arguments.update(overrides)
    return run_body(**arguments)


# --- run bodies ---------------------------------------------------------------------------


def test_run_body_has_the_13_official_keys_in_order() -> None:
    """The body carries all 13 keys the official client sends, in its order."""
    assert list(_run()) == RUN_KEYS


def test_run_body_defaults_match_the_official_client() -> None:
    """Absent file_ids and tools are [], every other optional key is null."""
    body = _run()
    assert body["file_ids"] == []
    assert body["tools"] == []
    for key in ("tool_outputs", "tool_choice", "end_user_id", "action", "mcp_authorization"):
        assert body[key] is None
    assert body["parameters"] is None
    assert body["custom_metadata"] is None


def test_run_body_with_only_tool_outputs_sends_empty_query() -> None:
    """Tool outputs alone are a valid run, with query ''."""
    body = _run(query="", tool_outputs=[{"tool_call_id": "c1", "output": "25度"}])
    assert body["query"] == ""
    assert body["tool_outputs"] == [{"tool_call_id": "c1", "output": "25度"}]


@pytest.mark.parametrize("query", ["", "   \n"])
def test_run_body_needs_a_query_or_outputs(query: str) -> None:
    """Neither a (non-blank) query nor tool outputs is refused before sending."""
    with pytest.raises(InvalidRequestError, match="a query, tool_outputs or a forced tool_choice"):
        _run(query=query)


def test_run_body_with_forced_tool_choice_needs_no_query() -> None:
    """A forced tool choice carries its input, so an empty query is sent as the seed does."""
    choice = {"type": "function", "function": {"name": "WeatherQuery", "input": {"city": "北京"}}}
    body = _run(query="", tool_choice=choice)
    assert (body["query"], body["tool_choice"]["function"]["name"]) == ("", "WeatherQuery")


def test_run_body_auto_tool_choice_still_needs_a_query() -> None:
    """tool_choice auto does not stand in for a query."""
    with pytest.raises(InvalidRequestError, match="forced tool_choice"):
        _run(query="", tool_choice={"type": "auto", "function": None})


def test_run_body_empty_outputs_list_counts_as_none() -> None:
    """An empty tool_outputs list does not replace the query."""
    with pytest.raises(InvalidRequestError, match="a query, tool_outputs or a forced tool_choice"):
        _run(query="", tool_outputs=[])


@pytest.mark.parametrize("conversation_id", ["", "  ", None, 12])
def test_run_body_refuses_a_bad_conversation_id(conversation_id: Any) -> None:
    """The conversation id must be a non-empty string; the error names it."""
    with pytest.raises(InvalidRequestError, match="conversation_id"):
        _run(conversation_id=conversation_id)


def test_run_body_refuses_a_non_string_query() -> None:
    """A query that is not text is refused."""
    with pytest.raises(InvalidRequestError, match="query must be a string"):
        _run(query=["hi"])


def test_run_body_refuses_a_non_bool_stream() -> None:
    """Stream must be a real bool."""
    with pytest.raises(InvalidRequestError, match="stream"):
        _run(stream="yes")


def test_run_body_refuses_file_ids_given_as_one_string() -> None:
    """A single string for file_ids is refused (it would be split into characters)."""
    with pytest.raises(InvalidRequestError, match="file_ids must be a list"):
        _run(file_ids="file-1")


def test_run_body_refuses_empty_file_ids() -> None:
    """Each file id must be a non-empty string."""
    with pytest.raises(InvalidRequestError, match=r"file_ids\[1\]"):
        _run(file_ids=["f1", ""])


def test_run_body_copies_file_ids() -> None:
    """file_ids from any iterable become a list."""
    assert _run(file_ids=("f1", "f2"))["file_ids"] == ["f1", "f2"]


@pytest.mark.parametrize("name", ["action", "parameters", "custom_metadata"])
def test_run_body_refuses_non_dict_pass_through_objects(name: str) -> None:
    """action, parameters and custom_metadata must be dicts."""
    with pytest.raises(InvalidRequestError, match=name):
        _run(**{name: ["x"]})


def test_run_body_passes_objects_through() -> None:
    """action, parameters and custom_metadata are sent as given."""
    body = _run(action={"a": 1}, parameters={"p": [1]}, custom_metadata={"m": None})
    assert (body["action"], body["parameters"], body["custom_metadata"]) == (
        {"a": 1},
        {"p": [1]},
        {"m": None},
    )


def test_run_body_refuses_an_empty_end_user_id() -> None:
    """end_user_id, when given, must not be blank."""
    with pytest.raises(InvalidRequestError, match="end_user_id"):
        _run(end_user_id="")


# --- pass-through options -----------------------------------------------------------------


def test_pass_through_options_accept_pydantic_models() -> None:
    """custom_metadata given as a model (the official data_class style) is sent as its dict."""

    class CustomMetadata(BaseModel):
        override_role_instruction: str | None = None
        region: str | None = None

    body = _run(custom_metadata=CustomMetadata(override_role_instruction="简短回答"))
    assert body["custom_metadata"] == {"override_role_instruction": "简短回答"}


def test_mcp_authorization_is_sent_as_a_list_of_dicts() -> None:
    """mcp_authorization, as the official client takes it, is sent; absent it stays null."""
    authorization = [{"type": "netdisk", "access_token": "at"}]
    assert _run(mcp_authorization=authorization)["mcp_authorization"] == authorization
    assert _run()["mcp_authorization"] is None


@pytest.mark.parametrize("value", [{"type": "netdisk"}, "token", [1]])
def test_mcp_authorization_must_be_a_list_of_dicts(value: Any) -> None:
    """Anything but a list of dicts is refused naming mcp_authorization."""
    with pytest.raises(InvalidRequestError, match="mcp_authorization"):
        _run(mcp_authorization=value)


# --- tool outputs and tool choice ---------------------------------------------------------


def test_tool_outputs_accept_dicts_and_models() -> None:
    """Dicts and ToolOutput models both become wire dicts."""
    wire = tool_outputs_to_wire(
        [{"tool_call_id": "a", "output": "x"}, ToolOutput(tool_call_id="b", output="y")]
    )
    assert wire == [{"tool_call_id": "a", "output": "x"}, {"tool_call_id": "b", "output": "y"}]


def test_structured_tool_output_becomes_json_text() -> None:
    """A dict output is serialised as JSON text, non-ASCII kept."""
    (wire,) = tool_outputs_to_wire([{"tool_call_id": "a", "output": {"温度": 25}}]) or []
    assert json.loads(wire["output"]) == {"温度": 25}


def test_tool_output_without_id_is_refused() -> None:
    """A missing tool_call_id is named in the error."""
    with pytest.raises(InvalidRequestError, match=r"tool_outputs\[0\].*tool_call_id"):
        tool_outputs_to_wire([{"output": "x"}])


def test_tool_output_with_empty_id_is_refused() -> None:
    """An empty tool_call_id is refused."""
    with pytest.raises(InvalidRequestError, match="must not be empty"):
        tool_outputs_to_wire([{"tool_call_id": "", "output": "x"}])


def test_tool_output_must_be_text() -> None:
    """A number as output is refused rather than silently converted."""
    with pytest.raises(InvalidRequestError, match="output"):
        tool_outputs_to_wire([{"tool_call_id": "a", "output": 25}])


@pytest.mark.parametrize("output", [25, None, True])
def test_tool_output_that_is_not_text_says_how_to_send_it(output: Any) -> None:
    """A non-text output is refused naming the index, the type given and how to send it."""
    with pytest.raises(InvalidRequestError) as caught:
        tool_outputs_to_wire(
            [{"tool_call_id": "a", "output": "ok"}, {"tool_call_id": "b", "output": output}]
        )
    message = str(caught.value)
    assert "tool_outputs[1].output" in message
    assert type(output).__name__ in message
    assert "json.dumps" in message


@pytest.mark.parametrize("outputs", [{"tool_call_id": "a", "output": "x"}, "x", 1])
def test_tool_outputs_must_be_a_list(outputs: Any) -> None:
    """A single output, a string or a number is refused."""
    with pytest.raises(InvalidRequestError, match="tool_outputs must be a list"):
        tool_outputs_to_wire(outputs)


def test_tool_output_items_must_be_dicts_or_models() -> None:
    """A tuple item is refused naming its index."""
    with pytest.raises(InvalidRequestError, match=r"tool_outputs\[0\]"):
        tool_outputs_to_wire([("a", "x")])


def test_tool_choice_model_forced() -> None:
    """A forced ToolChoice model becomes the official wire form."""
    choice = ToolChoice(
        type="function", function=ToolChoiceFunction(name="f", input={"city": "北京"})
    )
    assert tool_choice_to_wire(choice) == {
        "type": "function",
        "function": {"name": "f", "input": {"city": "北京"}},
    }


def test_tool_choice_auto_sends_null_function() -> None:
    """Auto is sent with function null, as the official Python client does."""
    assert tool_choice_to_wire({"type": "auto"}) == {"type": "auto", "function": None}


@pytest.mark.parametrize(
    "choice",
    [
        {"type": "required"},
        {"type": "function"},
        {"type": "function", "function": {"name": ""}},
        {"type": "function", "function": {"name": "f", "input": "x"}},
    ],
)
def test_bad_tool_choice_is_refused(choice: dict[str, Any]) -> None:
    """Unknown types, forced choices without a name, and bad inputs are refused."""
    with pytest.raises(InvalidRequestError, match="tool_choice"):
        tool_choice_to_wire(choice)


def test_tool_choice_of_another_type_is_refused() -> None:
    """A number (or a list) is no tool choice; the error lists what is accepted."""
    with pytest.raises(InvalidRequestError, match="'auto', a tool name, a dict or a ToolChoice"):
        tool_choice_to_wire(3)  # type: ignore[arg-type]


# --- feedback and JSON --------------------------------------------------------------------


def test_feedback_body_leaves_out_none() -> None:
    """Flag and reason are omitted when not given."""
    body = feedback_body(
        app_id="a", conversation_id="c", message_id="m", type="upvote", flag=None, reason=None
    )
    assert body == {"app_id": "a", "conversation_id": "c", "message_id": "m", "type": "upvote"}


def test_feedback_body_refuses_unknown_type() -> None:
    """Type must be upvote, downvote or cancel."""
    with pytest.raises(InvalidRequestError, match="upvote, downvote, cancel"):
        feedback_body(
            app_id="a", conversation_id="c", message_id="m", type="like", flag=None, reason=None
        )


def test_feedback_body_refuses_bad_flag_and_reason() -> None:
    """Flag must be a list of strings and reason a string."""
    with pytest.raises(InvalidRequestError, match="flag"):
        feedback_body(
            app_id="a", conversation_id="c", message_id="m", type="downvote", flag="x", reason=None
        )
    with pytest.raises(InvalidRequestError, match="reason"):
        feedback_body(
            app_id="a", conversation_id="c", message_id="m", type="downvote", flag=None, reason=1
        )  # type: ignore[arg-type]


def test_feedback_body_needs_a_message_id() -> None:
    """An empty message id is refused."""
    with pytest.raises(InvalidRequestError, match="message_id"):
        feedback_body(
            app_id="a", conversation_id="c", message_id="", type="upvote", flag=None, reason=None
        )


def test_encode_json_is_compact_ascii() -> None:
    """Bodies are compact JSON with ASCII escapes, like the official client's."""
    assert encode_json({"q": "天气", "n": 1}) == b'{"q":"\\u5929\\u6c14","n":1}'


@pytest.mark.parametrize("value", [object(), float("nan"), {1, 2}])
def test_encode_json_refuses_non_json_values(value: Any) -> None:
    """Values JSON cannot carry are refused before sending."""
    with pytest.raises(InvalidRequestError, match="not JSON-serialisable"):
        encode_json({"parameters": value})


def test_tool_choice_auto_as_a_string() -> None:
    """tool_choice="auto" is the wire's {"type": "auto"}."""
    assert tool_choice_to_wire("auto")["type"] == "auto"


def test_tool_choice_as_a_tool_name_forces_that_tool() -> None:
    """A tool's name as tool_choice forces it, with no input given."""
    wire = tool_choice_to_wire("get_weather", tool_names=["get_weather", "search"])
    assert wire is not None
    assert (wire["type"], wire["function"]["name"]) == ("function", "get_weather")


def test_a_tool_choice_name_not_among_the_tools_fails_before_sending() -> None:
    """A misspelt tool name fails on the client, suggesting the closest tool."""
    with pytest.raises(InvalidRequestError, match="did you mean 'get_weather'"):
        tool_choice_to_wire("get_wether", tool_names=["get_weather", "search"])
