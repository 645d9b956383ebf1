"""JSON Schema post-processing: titles, $defs, nullability, strict mode."""

from __future__ import annotations

import math

from appclient._manifest._schema_tools import (
    admits,
    apply_strict,
    inline_definitions,
    make_nullable,
    tidy,
)


def test_tidy_drops_title_keywords():
    """Pydantic's title keywords are dropped at every level."""
    schema = {
        "title": "Args",
        "type": "object",
        "properties": {"a": {"title": "A", "type": "string"}},
    }
    assert tidy(schema) == {"type": "object", "properties": {"a": {"type": "string"}}}


def test_tidy_keeps_a_property_named_title():
    """A property called "title" and data containing "title" are kept."""
    schema = {
        "type": "object",
        "properties": {"title": {"type": "string", "default": "t"}},
        "default": {"title": "kept"},
    }
    assert tidy(schema) == schema


def test_tidy_drops_non_finite_defaults():
    """A default of inf cannot be JSON, so it is dropped."""
    assert tidy({"type": "number", "default": math.inf}) == {"type": "number"}


def test_tidy_removes_repeated_enum_values():
    """An enum with aliases (A = 1; B = 1) lists each value once; 1 and true stay apart."""
    assert tidy({"enum": [1, 1, True, "x", "x"]}) == {"enum": [1, True, "x"]}


def test_tidy_orders_type_first():
    """Keys are ordered for readers: type, format, description first; default last."""
    ordered = tidy({"default": 1, "description": "d", "type": "integer", "minimum": 0})
    assert list(ordered) == ["type", "description", "minimum", "default"]


def test_inline_replaces_references():
    """A non-recursive definition is inlined and $defs disappears."""
    schema = {
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/P", "description": "the p"}},
        "$defs": {"P": {"type": "object", "description": "a P", "properties": {}}},
    }
    assert inline_definitions(schema) == {
        "type": "object",
        "properties": {"p": {"type": "object", "description": "the p", "properties": {}}},
    }


def test_inline_keeps_recursive_definitions():
    """A definition that refers to itself stays in $defs."""
    node = {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}
    schema = {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}, "$defs": {"N": node}}
    result = inline_definitions(schema)
    assert result["properties"]["n"] == {"$ref": "#/$defs/N"}
    assert result["$defs"] == {"N": node}


def test_inline_drops_a_discriminator_mapping_into_inlined_definitions():
    """A discriminator mapping naming inlined definitions would dangle, so it is dropped."""
    schema = {
        "type": "object",
        "properties": {
            "item": {
                "oneOf": [{"$ref": "#/$defs/A"}],
                "discriminator": {"propertyName": "kind", "mapping": {"a": "#/$defs/A"}},
            }
        },
        "$defs": {"A": {"type": "object", "properties": {"kind": {"const": "a"}}}},
    }
    item = inline_definitions(schema)["properties"]["item"]
    assert item["discriminator"] == {"propertyName": "kind"}


def test_make_nullable_wraps_a_typed_schema():
    """A typed schema becomes anyOf [schema, null], keeping description and default outside."""
    assert make_nullable({"type": "integer", "description": "d", "default": 3}, {}) == {
        "description": "d",
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "default": 3,
    }


def test_make_nullable_extends_an_any_of():
    """An anyOf gets a null branch appended."""
    schema = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert make_nullable(schema, {})["anyOf"][-1] == {"type": "null"}


def test_make_nullable_leaves_nullable_schemas_alone():
    """A schema that already admits null is unchanged."""
    schema = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert make_nullable(schema, {}) == schema


def test_admits_follows_references():
    """Admits resolves $ref into the definitions."""
    definitions = {"S": {"type": "string"}}
    assert admits({"$ref": "#/$defs/S"}, "string", definitions)
    assert not admits({"$ref": "#/$defs/S"}, "null", definitions)


def test_admits_reads_enums_and_empty_schemas():
    """An enum admits a type when one of its values has it; {} admits everything."""
    assert admits({"enum": ["a", 1]}, "string", {})
    assert not admits({"enum": [1, 2]}, "string", {})
    assert admits({}, "null", {})


def test_strict_leaves_dict_value_schemas_alone():
    """Strict mode does not overwrite a dict's additionalProperties value schema."""
    schema = {
        "type": "object",
        "properties": {"scores": {"type": "object", "additionalProperties": {"type": "number"}}},
        "required": [],
    }
    strict = apply_strict(schema, defaulted=[])
    assert strict["properties"]["scores"]["additionalProperties"] == {"type": "number"}
    assert strict["required"] == ["scores"]
