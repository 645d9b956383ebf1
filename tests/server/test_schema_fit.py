from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from appclient.server._agents._schema_fit import fits_schema, inline_refs, is_type, value_for_schema
from tests.server.schema_strategies import (
    parameters_schemas,
    property_schemas,
    valid_values,
    validator,
)

TODAY = dt.date(2024, 5, 1)


@pytest.mark.parametrize(
    ("value", "type_name", "expected"),
    [
        (True, "boolean", True),
        (True, "integer", False),
        (True, "number", False),
        (2.0, "integer", True),
        (2.5, "integer", False),
        (float("nan"), "number", False),
        (None, "null", True),
        ([], "array", True),
        ({}, "object", True),
        ("x", "string", True),
    ],
)
def test_is_type_follows_json_schema(value, type_name, expected):
    """Booleans are not numbers, 2.0 is an integer, NaN is not a number."""
    assert is_type(value, type_name) is expected


@pytest.mark.parametrize(
    ("value", "schema", "expected"),
    [
        ("celsius", {"enum": ["celsius", "fahrenheit"]}, True),
        ("kelvin", {"enum": ["celsius", "fahrenheit"]}, False),
        (1, {"enum": [True]}, False),
        (5, {"type": "integer", "minimum": 1, "maximum": 10}, True),
        (0, {"type": "integer", "exclusiveMinimum": 0}, False),
        (6, {"type": "integer", "multipleOf": 4}, False),
        ("ab", {"type": "string", "minLength": 3}, False),
        ("2024-02-30", {"type": "string", "format": "date"}, False),
        ("2024-05-01", {"type": "string", "format": "date"}, True),
        ("2024-05-01T10:00:00Z", {"type": "string", "format": "date-time"}, True),
        ([1, 1], {"type": "array", "uniqueItems": True}, False),
        ([1, "a"], {"type": "array", "items": {"type": "integer"}}, False),
        ({"a": 1}, {"type": "object", "required": ["b"]}, False),
        ({"a": 1}, {"type": "object", "properties": {}, "additionalProperties": False}, False),
        (None, {"anyOf": [{"type": "integer"}, {"type": "null"}]}, True),
        (1, {"oneOf": [{"type": "integer"}, {"type": "number"}]}, False),
        ("x", {"type": ["integer", "null"]}, False),
        ("x", {"x-unknown-keyword": 1}, True),
        ("x", False, False),
    ],
)
def test_fits_schema_checks_the_supported_keywords(value, schema, expected):
    """Each supported keyword accepts valid values and refuses the rest."""
    assert fits_schema(value, schema) is expected


@pytest.mark.parametrize(
    ("schema", "preferred", "expected"),
    [
        ({"type": "integer", "minimum": 3, "maximum": 9}, 50, 9),
        ({"type": "integer", "minimum": 3, "maximum": 9, "multipleOf": 4}, 1, 4),
        ({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}, 5, 0.5),
        ({"type": "string", "maxLength": 3}, "Beijing", "Bei"),
        ({"type": "string", "minLength": 3}, "ab", "abx"),
        ({"type": "string", "format": "date"}, "tomorrow", "2024-05-01"),
        ({"enum": ["a", "b"]}, "c", "a"),
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "x", 1),
        (
            {"type": "array", "items": {"type": "integer"}, "minItems": 2, "uniqueItems": True},
            [],
            [0, 1],
        ),
        (
            {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]},
            None,
            {"a": False},
        ),
    ],
)
def test_value_for_schema_moves_the_preferred_value_into_the_schema(schema, preferred, expected):
    """Numbers are clamped, strings cut or padded, enums and objects completed."""
    assert value_for_schema(schema, preferred=preferred, today=TODAY) == expected


def test_value_for_schema_keeps_a_valid_preference():
    """A value that already fits is returned unchanged."""
    assert value_for_schema({"type": "string"}, preferred="北京") == "北京"


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(property_schemas(), st.one_of(st.none(), st.integers(), st.text(max_size=5)))
def test_value_for_schema_output_is_valid(schema, preferred):
    """For any reasonable schema the produced value validates with jsonschema."""
    value = value_for_schema(schema, preferred=preferred, today=TODAY)
    assert validator(schema).is_valid(value), (schema, value)


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), parameters_schemas())
def test_fits_schema_accepts_every_valid_value(data, schema):
    """Values hypothesis-jsonschema draws from a schema always fit it."""
    value = data.draw(valid_values(schema))
    assert fits_schema(value, schema)


@settings(max_examples=150)
@given(
    property_schemas(),
    st.recursive(
        st.none() | st.booleans() | st.integers(-50, 50) | st.text(max_size=6),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
        max_leaves=5,
    ),
)
def test_fits_schema_agrees_with_jsonschema(schema, value):
    """On arbitrary JSON values, fits_schema and jsonschema give the same verdict."""
    assert fits_schema(value, schema) == validator(schema).is_valid(value)


def test_email_format_needs_an_address():
    """A string with ``format: email`` fits only when it is an address (local part @ domain)."""
    schema = {"type": "string", "format": "email"}
    assert fits_schema("bob@example.com", schema)
    assert not fits_schema("example.com 发", schema)


def test_value_for_schema_gives_an_email_format_an_address():
    """A preferred value that is no address becomes a placeholder address that fits."""
    schema = {"type": "string", "format": "email", "maxLength": 40}
    value = value_for_schema(schema, preferred="the report", today=TODAY)
    assert fits_schema(value, schema)
    assert validator(schema).is_valid(value)


def test_inline_refs_replaces_local_references_with_their_targets():
    """``$ref`` to ``#/$defs/...`` (or ``definitions``) is replaced by the schema it names."""
    schema = {
        "type": "object",
        "$defs": {"Loc": {"type": "object", "properties": {"city": {"type": "string"}}}},
        "properties": {"where": {"$ref": "#/$defs/Loc", "description": "the place"}},
    }
    inlined = inline_refs(schema)
    assert inlined["properties"]["where"] == {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "description": "the place",
    }


def test_inline_refs_stops_at_recursive_references():
    """A schema that refers to itself is inlined to a bounded depth, not forever."""
    schema = {
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
        "$ref": "#/$defs/Node",
    }
    assert inline_refs(schema)["type"] == "object"


def test_value_for_schema_tries_the_other_case_for_a_pattern():
    """``u777`` for a ``^U`` + digits pattern becomes ``U777``: the closest valid value."""
    assert value_for_schema({"type": "string", "pattern": r"^U\d+$"}, preferred="u777") == "U777"


def test_value_for_schema_falls_back_to_the_schemas_examples():
    """When nothing near the preferred value fits, a string the schema gives as example does."""
    schema = {"type": "string", "pattern": r"^U\d+$", "examples": ["U12345"]}
    assert value_for_schema(schema, preferred="12345") == "U12345"


def test_time_format_needs_a_clock_time():
    """``format: time`` fits ``15:30:00`` and refuses a date or free text."""
    schema = {"type": "string", "format": "time"}
    assert fits_schema("15:30:00", schema)
    assert not fits_schema("2024-05-01", schema)
    assert value_for_schema(schema, preferred="meeting", today=TODAY) == "00:00:00"
