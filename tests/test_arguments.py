"""Raw tool-call arguments become a dict, or a clear decoding error."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

from appclient._core._arguments import ArgumentsDecodeError, decode_arguments, unwrap_fence

ACCEPTED: list[tuple[str, Any, dict[str, Any]]] = [
    ("dict", {"city": "北京"}, {"city": "北京"}),
    ("mapping", OrderedDict(a=1), {"a": 1}),
    ("json text", '{"city": "北京", "days": 3}', {"city": "北京", "days": 3}),
    ("json bytes", b'{"a": 1}', {"a": 1}),
    ("None", None, {}),
    ("empty text", "", {}),
    ("blank text", "  \n ", {}),
    ("null text", "null", {}),
    ("empty object", "{}", {}),
    ("fenced json", '```json\n{"a": 1}\n```', {"a": 1}),
    ("fenced without tag", '```\n{"a": 1}\n```', {"a": 1}),
    ("fenced on one line", '```json {"a": 1} ```', {"a": 1}),
    ("fence with spaces around", '  ```JSON\r\n{"a": 1}\r\n```  ', {"a": 1}),
    ("encoded twice", '"{\\"a\\": 1}"', {"a": 1}),
    ("empty fence", "```json\n```", {}),
]

REJECTED: list[tuple[str, Any, str]] = [
    ("invalid json", "{city: 1}", "not valid JSON"),
    ("array", "[1, 2]", "got an array"),
    ("number", "42", "got a number"),
    ("string", '"hello"', "got a string"),
    ("boolean", "true", "got a boolean"),
    ("python int", 42, "got a number"),
    ("python list", [1], "got an array"),
    ("non-string keys", {1: "a"}, "argument names must be strings"),
    ("bytes not utf-8", b"\xff\xfe", "not UTF-8"),
    ("truncated json", '{"a": ', "not valid JSON"),
    ("nested too deeply", '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
]


@pytest.mark.parametrize(("case", "raw", "expected"), ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_accepted_forms_decode_to_a_dict(case: str, raw: Any, expected: dict[str, Any]) -> None:
    """Each accepted form of arguments decodes to the expected dict."""
    assert decode_arguments(raw) == expected


@pytest.mark.parametrize(("case", "raw", "needle"), REJECTED, ids=[c[0] for c in REJECTED])
def test_rejected_forms_say_what_was_found(case: str, raw: Any, needle: str) -> None:
    """Each rejected form raises ArgumentsDecodeError naming what was wrong."""
    with pytest.raises(ArgumentsDecodeError, match=needle):
        decode_arguments(raw)


def test_decoding_returns_a_copy() -> None:
    """The caller's dict is never the one returned (validation may change the result)."""
    raw = {"a": 1}
    decoded = decode_arguments(raw)
    decoded["b"] = 2
    assert raw == {"a": 1}


def test_long_text_is_quoted_shortened() -> None:
    """An undecodable long text is quoted only in part, with the count of characters left out."""
    with pytest.raises(ArgumentsDecodeError, match=r"\+\d+ more characters"):
        decode_arguments("x" * 1000)


def test_decode_error_is_a_value_error() -> None:
    """Decoding errors are ValueErrors, like other bad-input errors."""
    assert issubclass(ArgumentsDecodeError, ValueError)


def test_unwrap_fence_leaves_other_text_alone() -> None:
    """Text that is not a single fenced block is returned unchanged."""
    text = 'before ```json\n{"a": 1}\n``` after'
    assert unwrap_fence(text) == text


def test_long_blank_runs_in_a_fence_are_read_in_linear_time() -> None:
    """Blanks after an opening fence no longer make the pattern backtrack for hours."""
    blanks = " " * 100_000
    assert unwrap_fence("```" + blanks + "x") == "```" + blanks + "x"
    assert unwrap_fence("```" + blanks + "{}" + blanks + "```") == "{}"
