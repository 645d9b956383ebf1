"""Pure JSON Schema post-processing: titles, ``$defs``, key order, nullability, strict mode.

Pydantic writes for API documents; an agent reads better without ``title`` keywords, with
``$defs`` inlined (only recursive ones stay, at the root) and keys in a reader's order. Every
function walks the schema keyword by keyword, never into data such as ``default`` or ``enum``.
Strict mode closes every object with properties, requires every property and makes defaulted
top-level parameters nullable (``null`` then means "use the default").
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

REF_PREFIX = "#/$defs/"

_SCHEMA_KEYS = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "additionalItems",
    }
)
_SCHEMA_LIST_KEYS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_MAP_KEYS = frozenset({"properties", "$defs", "patternProperties", "dependentSchemas"})
_CONSTRAINING_KEYS = frozenset({"type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "not"})
_KEY_ORDER = (
    "type",
    "format",
    "description",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
)
_KEY_RANK = {key: rank for rank, key in enumerate(_KEY_ORDER)}
_LAST_KEYS = ("default", "examples", "$defs")
_NULL = {"type": "null"}

Schema = dict[str, Any]


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON-like value (dicts and lists copied, leaves shared)."""
    if isinstance(value, dict):
        return {key: json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_copy(item) for item in value]
    return value


def map_schema(schema: Any, transform: Callable[[Schema], Schema]) -> Any:
    """A copy of ``schema`` with ``transform`` applied to each subschema, innermost first."""
    if not isinstance(schema, dict):
        return schema
    result: Schema = {}
    for key, value in schema.items():
        if key in _SCHEMA_KEYS:
            result[key] = map_schema(value, transform)
        elif key in _SCHEMA_LIST_KEYS and isinstance(value, list):
            result[key] = [map_schema(item, transform) for item in value]
        elif key in _SCHEMA_MAP_KEYS and isinstance(value, dict):
            result[key] = {name: map_schema(item, transform) for name, item in value.items()}
        else:
            result[key] = json_copy(value)
    return transform(result)


def _unique(values: list[Any]) -> list[Any]:
    # By JSON text, so 1 and true (equal in Python, different in JSON) both stay.
    by_text: dict[str, Any] = {}
    for value in values:
        by_text.setdefault(json.dumps(value, sort_keys=True, default=repr), value)
    return list(by_text.values())


def _tidy_one(schema: Schema) -> Schema:
    schema.pop("title", None)
    if isinstance(schema.get("enum"), list):
        schema["enum"] = _unique(schema["enum"])  # pydantic lists Enum aliases again
    default = schema.get("default")
    if isinstance(default, float) and not math.isfinite(default):
        del schema["default"]
    first = sorted((k for k in schema if k in _KEY_RANK), key=_KEY_RANK.__getitem__)
    last = [k for k in _LAST_KEYS if k in schema]
    middle = [k for k in schema if k not in _KEY_RANK and k not in _LAST_KEYS]
    return {key: schema[key] for key in (*first, *middle, *last)}


def tidy(schema: Schema) -> Schema:
    """Drop ``title`` keywords and non-finite defaults, and order keys for readers."""
    result: Schema = map_schema(schema, _tidy_one)
    return result


def _ref_name(schema: Mapping[str, Any]) -> str | None:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(REF_PREFIX):
        return ref[len(REF_PREFIX) :]
    return None


def _refs_in(schema: Any, found: set[str]) -> set[str]:
    def collect(node: Schema) -> Schema:
        name = _ref_name(node)
        if name is not None:
            found.add(name)
        return node

    map_schema(schema, collect)
    return found


def _recursive_names(definitions: Mapping[str, Any]) -> set[str]:
    edges = {name: _refs_in(body, set()) for name, body in definitions.items()}
    recursive: set[str] = set()
    for start in definitions:
        stack, seen = list(edges.get(start, ())), set()
        while stack:
            name = stack.pop()
            if name == start:
                recursive.add(start)
                break
            if name not in seen:
                seen.add(name)
                stack.extend(edges.get(name, ()))
    return recursive


def _without_dangling_mapping(item: Schema, keep: set[str]) -> Schema:
    # A discriminator (OpenAPI) maps values to "#/$defs/..." references; once those
    # definitions are inlined the references would point nowhere.
    discriminator = item.get("discriminator")
    if not isinstance(discriminator, dict):
        return item
    mapping = discriminator.get("mapping")
    if not isinstance(mapping, dict) or all(
        _ref_name({"$ref": ref}) in keep for ref in mapping.values()
    ):
        return item
    rest = {k: v for k, v in discriminator.items() if k != "mapping"}
    return {**item, "discriminator": rest}


def inline_definitions(schema: Schema) -> Schema:
    """Replace ``$ref``s by what they name (keywords beside a ``$ref`` win); keep recursive ones."""
    definitions: Mapping[str, Any] = schema.get("$defs") or {}
    if not definitions:
        return schema
    keep = _recursive_names(definitions)

    def resolve(node: Any) -> Any:
        def replace(item: Schema) -> Schema:
            item = _without_dangling_mapping(item, keep)
            name = _ref_name(item)
            if name is None or name in keep or name not in definitions:
                return item
            siblings = {k: v for k, v in item.items() if k != "$ref"}
            return {**resolve(definitions[name]), **siblings}

        return map_schema(node, replace)

    body = {key: value for key, value in schema.items() if key != "$defs"}
    result: Schema = resolve(body)
    if keep:
        result["$defs"] = {name: resolve(definitions[name]) for name in sorted(keep)}
    return result


def admits(
    schema: Any, json_type: str, definitions: Mapping[str, Any], _seen: frozenset[str] = frozenset()
) -> bool:
    """Whether ``schema`` accepts some value of ``json_type`` (``"null"`` or ``"string"``)."""
    if schema is True or not isinstance(schema, dict):
        return schema is True
    if not _CONSTRAINING_KEYS.intersection(schema):
        return True
    name = _ref_name(schema)
    if name is not None:
        if name in _seen or name not in definitions:
            return False
        return admits(definitions[name], json_type, definitions, _seen | {name})
    if "anyOf" in schema or "oneOf" in schema:
        options: Iterable[Any] = schema.get("anyOf") or schema.get("oneOf") or ()
        return any(admits(option, json_type, definitions, _seen) for option in options)
    if "allOf" in schema:
        return all(admits(part, json_type, definitions, _seen) for part in schema["allOf"])
    if "enum" in schema or "const" in schema:
        values = schema["enum"] if "enum" in schema else [schema["const"]]
        return any(isinstance(v, type(None) if json_type == "null" else str) for v in values)
    declared = schema.get("type")
    if isinstance(declared, str):
        return declared == json_type
    if isinstance(declared, list):
        return json_type in declared
    return True


_ANNOTATION_KEYS = ("description", "default", "examples", "deprecated")


def make_nullable(schema: Schema, definitions: Mapping[str, Any]) -> Schema:
    """``schema`` widened to accept ``null`` too (unchanged if it already does)."""
    if admits(schema, "null", definitions):
        return schema
    core = {k: v for k, v in schema.items() if k not in _ANNOTATION_KEYS}
    if list(core) == ["anyOf"] and isinstance(core["anyOf"], list):  # null is one more option
        return {**schema, "anyOf": [*core["anyOf"], dict(_NULL)]}
    outer = {k: schema[k] for k in _ANNOTATION_KEYS if k in schema}
    return _tidy_one({"anyOf": [core, dict(_NULL)], **outer})


def _close_object(schema: Schema) -> Schema:
    properties = schema.get("properties")
    if isinstance(properties, dict):
        schema.setdefault("additionalProperties", False)
        schema["required"] = list(properties)
        return _tidy_one(schema)
    return schema


def apply_strict(schema: Schema, *, defaulted: Iterable[str]) -> Schema:
    """The strict form of a parameters schema; ``defaulted`` properties become nullable."""
    result: Schema = map_schema(schema, _close_object)
    result["additionalProperties"] = False
    definitions = result.get("$defs") or {}
    properties: dict[str, Any] = result.setdefault("properties", {})
    for name in defaulted:
        if name in properties:
            properties[name] = make_nullable(properties[name], definitions)
    result["required"] = list(properties)
    return _tidy_one(result)
