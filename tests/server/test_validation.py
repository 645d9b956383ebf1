"""Request validation: JSON that would break responses is refused; tools are checked."""

from __future__ import annotations

import copy

import pytest

from appclient._core._models import RunRequest
from appclient.server._http._responses import HTTPProblem
from appclient.server._http._validation import (
    parse_json_object,
    validate_model,
    validate_tools,
)
from tests.conftest import load_request_fixture
from tests.server.helpers import WEATHER_TOOL


def _problem(call) -> HTTPProblem:
    with pytest.raises(HTTPProblem) as caught:
        call()
    return caught.value


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{", "InvalidJSON"),
        (b"\xff\xfe", "InvalidJSON"),
        (b'{"a": NaN}', "InvalidJSON"),
        (b'{"a": Infinity}', "InvalidJSON"),
        (b'{"a": 1e999}', "InvalidJSON"),
        (b'{"a": "\\ud800"}', "InvalidJSON"),
        (b"[" * 100_000 + b"]" * 100_000, "InvalidJSON"),
        (b"[]", "InvalidParameter"),
        (b'"text"', "InvalidParameter"),
    ],
)
def test_bad_bodies_are_400(body: bytes, code: str) -> None:
    """Invalid or dangerous JSON, or a non-object, is a 400."""
    problem = _problem(lambda: parse_json_object(body))
    assert (problem.status, problem.code) == (400, code)


def test_escaped_surrogate_pairs_are_fine() -> None:
    """An emoji written as an escaped surrogate pair (Python's ensure_ascii) is accepted."""
    assert parse_json_object(b'{"q": "\\ud83d\\ude00"}') == {"q": "\U0001f600"}


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16-le", "utf-16", "utf-32-le"])
def test_bodies_in_any_json_encoding_are_read(encoding: str) -> None:
    """UTF-8 (with or without a BOM), UTF-16 and UTF-32 bodies parse, as json.loads reads them."""
    body = '{"q": "北京"}'.encode(encoding)
    assert parse_json_object(body) == {"q": "北京"}


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-32-le"])
def test_lone_surrogates_are_refused_in_every_json_encoding(encoding: str) -> None:
    """An escaped lone surrogate is a 400 in a UTF-16/32 body too, as in a UTF-8 one."""
    body = '{"q": "\\ud800"}'.encode(encoding)
    problem = _problem(lambda: parse_json_object(body))
    assert (problem.status, problem.code) == (400, "InvalidJSON")


def test_model_errors_are_named_under_the_prefix_or_as_the_body() -> None:
    """A field is named under the prefix given; an error about the whole value names the body."""
    problem = _problem(lambda: validate_model(RunRequest, {"app_id": "a"}, prefix="run"))
    assert problem.message.startswith("run.conversation_id:")
    assert _problem(lambda: validate_model(RunRequest, [])).message.startswith("body:")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"conversation_id": "c"}, "app_id"),
        ({"app_id": "a", "conversation_id": "c", "stream": "maybe"}, "stream"),
        (
            {"app_id": "a", "conversation_id": "c", "tool_outputs": [{"output": "x"}]},
            "tool_outputs[0].tool_call_id",
        ),
        ({"app_id": "a", "conversation_id": "c", "file_ids": [1]}, "file_ids[0]"),
        (
            {"app_id": "a", "conversation_id": "c", "tool_choice": {"type": "function"}},
            "tool_choice",
        ),
    ],
)
def test_model_errors_name_the_field(body: dict, field: str) -> None:
    """The first invalid field of a run body is named in the 400."""
    problem = _problem(lambda: validate_model(RunRequest, body))
    assert problem.code == "InvalidParameter"
    assert problem.message.startswith(field + ":")


def test_raw_json_schema_tool_is_kept() -> None:
    """A JSON Schema tool comes back as it was sent."""
    assert validate_tools([WEATHER_TOOL]) == (WEATHER_TOOL,)


@pytest.mark.parametrize(
    "fixture", ["04_run_tools_manifest_from_function", "05_run_tools_manifest_decorator"]
)
def test_official_manifest_shape_is_normalised(fixture: str) -> None:
    """The official Manifest shape becomes JSON Schema with required fields."""
    raw = load_request_fixture(fixture)["requests"][0]["json"]["tools"]
    (tool,) = validate_tools(raw)
    properties = tool["function"]["parameters"]["properties"]
    assert properties["location"]["type"] == "string"
    assert "name" not in properties["location"]
    assert "required" not in properties["location"]
    assert tool["function"]["parameters"]["required"] == ["location", "unit"]
    assert "Args:" not in tool["function"]["description"]


def test_non_function_tools_are_left_out() -> None:
    """Hosted tool types such as code_interpreter are accepted and not offered locally."""
    assert validate_tools([{"type": "code_interpreter"}, WEATHER_TOOL]) == (WEATHER_TOOL,)


def _renamed(name: str) -> dict:
    tool = copy.deepcopy(WEATHER_TOOL)
    tool["function"]["name"] = name
    return tool


def _with_parameters(parameters: dict) -> dict:
    return {"type": "function", "function": {"name": "t", "parameters": parameters}}


@pytest.mark.parametrize(
    ("tools", "field"),
    [
        ("not a list", "tools"),
        (["x"], "tools[0]"),
        ([_renamed("has space")], "tools[0].function.name"),
        ([_renamed("x" * 65)], "tools[0].function.name"),
        ([_renamed("天气")], "tools[0].function.name"),
        ([WEATHER_TOOL, WEATHER_TOOL], "tools[1].function.name"),
        ([{"type": "function"}], "tools[0]"),
        ([{"type": "function", "function": {"description": "d"}}], "tools[0].function.name"),
        (
            [{"type": "function", "function": {"name": "t", "parameters": {"type": "array"}}}],
            "tools[0].function.parameters.type",
        ),
        (
            [{"type": "function", "function": {"name": "t", "parameters": {"properties": []}}}],
            "tools[0].function.parameters.properties",
        ),
        (
            [
                {
                    "type": "function",
                    "function": {"name": "t", "parameters": {"properties": {"a": 1}}},
                }
            ],
            "tools[0].function.parameters.properties.a",
        ),
        (
            [{"type": "function", "function": {"name": "t", "parameters": {"required": "a"}}}],
            "tools[0].function.parameters.required",
        ),
        (
            [_with_parameters({"properties": {"a": {"type": "string"}}, "required": 5})],
            "tools[0].function.parameters.required",
        ),
        (
            [_with_parameters({"properties": {"ab": {"type": "string"}}, "required": "ab"})],
            "tools[0].function.parameters.required",
        ),
        ([WEATHER_TOOL] * 200, "tools"),
    ],
)
def test_bad_tools_are_400_naming_the_field(tools, field: str) -> None:
    """Each bad tool is refused with the path of the offending field."""
    problem = _problem(lambda: validate_tools(tools))
    assert problem.status == 400
    assert problem.message.startswith(field + ":"), problem.message
