"""Templates give exactly the JSON text that encoding the filled shape would give."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from appclient.server._runs._json_template import Hole, JsonTemplate, json_text, string_text

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)

SHAPE = {
    "id": Hole("event_id"),
    "literal": "{not a hole}, {{braces}}, %s and %(value)s",
    "nested": {"value": Hole("value"), "again": [Hole("event_id"), 0, None, True]},
}


def _filled(shape: Any, values: dict[str, Any]) -> Any:
    if isinstance(shape, Hole):
        return values[shape.name]
    if isinstance(shape, dict):
        return {key: _filled(value, values) for key, value in shape.items()}
    if isinstance(shape, list):
        return [_filled(item, values) for item in shape]
    return shape


@given(event_id=st.text(), value=JSON_VALUES)
def test_fill_equals_encoding_the_filled_shape(event_id: str, value: Any) -> None:
    """Filling holes gives the same text as encoding the shape with the values in place."""
    text = JsonTemplate(SHAPE).fill(event_id=string_text(event_id), value=json_text(value))
    assert text == json_text(_filled(SHAPE, {"event_id": event_id, "value": value}))


@given(st.text())
def test_string_text_equals_json_text(value: str) -> None:
    """The fast string encoder gives the general encoder's text for every string."""
    assert string_text(value) == json_text(value)


def test_json_text_is_compact_keeps_chinese_and_escapes_line_separators() -> None:
    """JSON text is compact, keeps non-ASCII, and escapes U+2028/U+2029."""
    text = json_text({"a": "北京\u2028x\u2029", "b": [1, 2]})
    assert text == '{"a":"北京\\u2028x\\u2029","b":[1,2]}'
    assert json.loads(text) == {"a": "北京\u2028x\u2029", "b": [1, 2]}


def test_holes_are_listed() -> None:
    """A template knows its hole names, each once however often it appears."""
    assert JsonTemplate(SHAPE).holes == frozenset({"event_id", "value"})


def test_a_missing_hole_is_a_key_error() -> None:
    """Filling without a hole's text fails naming that hole."""
    with pytest.raises(KeyError, match="value"):
        JsonTemplate(SHAPE).fill(event_id='"e"')


def test_hole_names_are_checked() -> None:
    """A hole name that could not be found again after encoding is refused."""
    with pytest.raises(ValueError, match="hole name"):
        Hole("Bad Name")
