"""Responses are one-line JSON or exact SSE frames, with the request id in the body."""

from __future__ import annotations

import json
import multiprocessing
import uuid

from appclient.server._http._responses import (
    HTTPProblem,
    encode_json,
    encode_text,
    error_response,
    json_response,
    new_id,
    serial_id,
    sse_response,
    text_response,
)
from tests.server.helpers import forks


def test_encode_json_is_compact_utf8_with_line_separators_escaped() -> None:
    """Bodies are compact UTF-8 JSON that keeps Chinese and escapes U+2028/U+2029."""
    body = encode_json({"a": "北京\u2028x\u2029", "b": [1, 2]})
    assert body == '{"a":"北京\\u2028x\\u2029","b":[1,2]}'.encode()


def test_encode_text_escapes_lone_surrogates_as_ascii() -> None:
    """JSON text holding a lone surrogate becomes ASCII-escaped JSON of the same value."""
    body = encode_text('{"a":"\ud800北"}')
    assert body == b'{"a":"\\ud800\\u5317"}'
    assert json.loads(body) == {"a": "\ud800北"}


def test_encode_json_survives_lone_surrogates() -> None:
    """Text that cannot be UTF-8 is written with ASCII escapes, still valid JSON."""
    assert json.loads(encode_json({"a": "\ud800"})) == {"a": "\ud800"}


def test_error_response_shape() -> None:
    """Errors are {request_id, code, message} on one line, with extra headers."""
    problem = HTTPProblem(429, "TooManyRequests", "slow down", headers={"Retry-After": "1"})
    response = error_response(problem, request_id="r1")
    assert response.status == 429
    assert response.request_id == "r1"
    assert b"\n" not in response.body
    assert json.loads(response.body) == {
        "request_id": "r1",
        "code": "TooManyRequests",
        "message": "slow down",
    }
    assert response.headers == (("Retry-After", "1"),)


def test_json_response_puts_request_id_in_the_body() -> None:
    """A success body carries the request id answered in the header."""
    response = json_response({"conversation_id": "c"}, request_id="r2")
    assert json.loads(response.body) == {"request_id": "r2", "conversation_id": "c"}
    assert response.chunks is None


def test_text_response_sends_the_text_as_utf8() -> None:
    """A pre-rendered JSON text is the body as it is, in UTF-8."""
    response = text_response('{"request_id":"r4","answer":"北京"}', request_id="r4")
    assert response.status == 200
    assert response.body == '{"request_id":"r4","answer":"北京"}'.encode()
    assert response.request_id == "r4"


def test_sse_frames_are_exact() -> None:
    """Each SSE message is exactly 'data: ' + compact JSON + a blank line."""
    response = sse_response(['{"a":1}', '{"b":"北京"}'], request_id="r3")
    assert response.chunks == (b'data: {"a":1}\n\n', 'data: {"b":"北京"}\n\n'.encode())
    assert response.content_type == "text/event-stream"


def test_ids_are_uuid4_text_and_unique() -> None:
    """new_id gives random uuid4 text; serial_id gives distinct uuid-shaped text."""
    fresh = [new_id() for _ in range(500)]
    assert len(set(fresh)) == 500
    assert all(uuid.UUID(value).version == 4 for value in fresh)
    serial = [serial_id() for _ in range(500)]
    assert len(set(serial)) == 500
    assert all(str(uuid.UUID(value)) == value for value in serial)


@forks
def test_serial_ids_differ_in_a_forked_worker() -> None:
    """A forked worker gets its own serial prefix, so workers never share an id."""
    context = multiprocessing.get_context("fork")
    parent_end, child_end = context.Pipe()
    child = context.Process(target=lambda: child_end.send(serial_id()))
    child.start()
    from_child = parent_end.recv()
    child.join()
    assert from_child[:24] != serial_id()[:24]
