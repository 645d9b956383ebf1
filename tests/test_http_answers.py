"""Response bodies decoded into wire models or typed errors (pure)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from appclient import RunError
from appclient._core._http_answers import (
    error_body_fields,
    parse_run_answer,
    raise_for_error_event,
    read_json_object,
    required_text,
    top_level_error,
)
from appclient.errors import ResponseDecodeError


def test_non_json_answer_error_names_the_body() -> None:
    """A body that is not JSON raises ResponseDecodeError with a snippet and request id."""
    with pytest.raises(ResponseDecodeError, match=r"<html>.*request_id=r1"):
        read_json_object(b"<html>", what="the answer", request_id="r1")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"answer": "x"}, None),
        ({"code": 0, "answer": "x"}, None),
        ({"code": 0, "message": "success", "answer": "x"}, None),
        ({"code": "0", "message": "ok"}, None),
        ({"code": "", "message": ""}, None),
        ({"code": "AuthFailed", "message": "bad token"}, ("AuthFailed", "bad token")),
        ({"code": 500}, ("500", "")),
        ({"code": None, "message": "failed"}, ("", "failed")),
        ({"message": "only a message"}, None),
    ],
)
def test_top_level_error(body: dict[str, Any], expected: tuple[str, str] | None) -> None:
    """Top-level code/message marks an error; zero or empty codes do not."""
    assert top_level_error(body) == expected


def test_parse_run_answer_reads_the_protocol_body() -> None:
    """A run body becomes a RunAnswer with its events and tool calls."""
    body = {
        "answer": "",
        "content": [
            {
                "event_status": "interrupt",
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        ],
    }
    answer = parse_run_answer(json.dumps(body).encode())
    assert answer.events[-1].tool_calls is not None
    assert answer.events[-1].tool_calls[-1].function.arguments == {}


@pytest.mark.parametrize("body", [b'\xef\xbb\xbf{"answer": "x"}', '\ufeff{"answer": "x"}'])
def test_parse_run_answer_ignores_a_byte_order_mark(body: bytes | str) -> None:
    """A body starting with a BOM is read (as requests' .json() and the official client do)."""
    assert parse_run_answer(body).answer == "x"


def test_bce_style_request_id_is_read_from_error_bodies() -> None:
    """A gateway error body's camelCase requestId (BCE style) is the error's request id."""
    body = b'{"requestId": "bce-1", "code": "AccessDenied", "message": "no"}'
    assert error_body_fields(body)[2] == "bce-1"
    with pytest.raises(RunError) as caught:
        parse_run_answer(body)
    assert caught.value.request_id == "bce-1"


def test_parse_run_answer_raises_run_error_for_top_level_error() -> None:
    """A 200 body with a top-level code/message is a RunError carrying both."""
    body = b'{"request_id": "r9", "code": "QuotaExceeded", "message": "no quota"}'
    with pytest.raises(RunError) as caught:
        parse_run_answer(body, conversation_id="c1")
    assert (caught.value.code, caught.value.message) == ("QuotaExceeded", "no quota")
    assert (caught.value.request_id, caught.value.conversation_id) == ("r9", "c1")


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'"text"', b""])
def test_parse_run_answer_refuses_non_objects(body: bytes) -> None:
    """Bodies that are not a JSON object raise ResponseDecodeError."""
    with pytest.raises(ResponseDecodeError, match="run answer"):
        parse_run_answer(body, request_id="r1")


def test_raise_for_error_event() -> None:
    """An error event becomes a RunError with the event's code and message."""
    answer = parse_run_answer(
        b'{"request_id": "r", "content": [{"event_status": "error", "event_code": 42,'
        b' "event_message": "component failed"}]}'
    )
    with pytest.raises(RunError, match="component failed") as caught:
        raise_for_error_event(answer, conversation_id="c")
    assert caught.value.code == "42"
    assert caught.value.conversation_id == "c"


def test_raise_for_error_event_passes_clean_answers() -> None:
    """An answer without error events raises nothing."""
    raise_for_error_event(parse_run_answer(b'{"content": [{"event_status": "success"}]}'))


@pytest.mark.parametrize("escaped", ["bce-v3\\/ALTAK-k1\\/s2", "bce-v3\\u002fALTAK-k1\\u002fs2"])
def test_a_token_echoed_with_json_escapes_is_not_in_the_body_snippet(escaped: str) -> None:
    """A body of the wrong shape echoing the token JSON-escaped shows no part of it."""
    body = '{"answer": {"x": 1}, "echo": "' + escaped + '"}'
    with pytest.raises(ResponseDecodeError) as caught:
        parse_run_answer(body.encode(), secrets=["bce-v3/ALTAK-k1/s2"])
    assert "ALTAK-k1" not in str(caught.value)


_DEEP_JSON = b"[" * 100_000 + b"]" * 100_000


def test_answer_nested_too_deeply_is_a_decode_error() -> None:
    """JSON nested past the decoder's depth is a ResponseDecodeError, not a RecursionError."""
    with pytest.raises(ResponseDecodeError, match="the answer is not the protocol's JSON"):
        read_json_object(_DEEP_JSON, what="the answer")


def test_error_body_fields_keep_json_nested_too_deeply_as_text() -> None:
    """An error body nested past the decoder's depth is read as text, not a RecursionError."""
    code, message, _, body = error_body_fields(_DEEP_JSON)
    assert (code, message) == ("", "[" * 500)
    assert body == _DEEP_JSON.decode()


def test_error_body_fields_from_protocol_json() -> None:
    """code, message and request_id are read from the error body."""
    fields = error_body_fields(b'{"request_id": "r", "code": "NotFound", "message": "gone"}')
    assert fields[:3] == ("NotFound", "gone", "r")


def test_an_integer_error_code_is_read_as_text() -> None:
    """An error body's integer code becomes the error's code text."""
    fields = error_body_fields(b'{"code": 400, "message": "bad"}')
    assert fields[:2] == ("400", "bad")


def test_error_body_fields_from_text() -> None:
    """A non-JSON error body becomes the message, kept as the body too."""
    assert error_body_fields(b"Bad Gateway\n") == ("", "Bad Gateway", "", "Bad Gateway\n")


def test_error_body_fields_from_a_json_list() -> None:
    """A JSON body that is not an object is kept, with its text as the message."""
    assert error_body_fields(b"[1]") == ("", "[1]", "", [1])


def test_read_json_object_returns_the_dict() -> None:
    """A JSON object answer is returned as a dict."""
    assert read_json_object(b'{"id": "f1"}', what="the upload answer") == {"id": "f1"}


def test_read_json_object_refuses_other_json() -> None:
    """A JSON list is not an answer object."""
    with pytest.raises(ResponseDecodeError, match="not a JSON object"):
        read_json_object(b"[]", what="the upload answer")


def test_read_json_object_reports_a_top_level_error_without_secrets() -> None:
    """A 200 error body is raised with its code and message, secrets scrubbed."""
    body = b'{"request_id": "r5", "code": "Denied", "message": "token sk-1 revoked"}'
    with pytest.raises(
        ResponseDecodeError, match=r"Denied: token \*\*\* revoked \(request_id=r5\)"
    ):
        read_json_object(body, what="the answer", secrets=["sk-1"])


@pytest.mark.parametrize("body", [{}, {"id": ""}, {"id": 5}])
def test_required_text_names_a_missing_field(body: dict[str, Any]) -> None:
    """A missing, empty or non-string field is named in the error with the request id."""
    with pytest.raises(ResponseDecodeError, match=r"has no 'id' \(request_id=h1\)"):
        required_text(body, "id", what="the upload answer", request_id="h1")


def test_required_text_returns_the_value() -> None:
    """A present string field is returned."""
    assert required_text({"id": "f1"}, "id", what="the upload answer") == "f1"
