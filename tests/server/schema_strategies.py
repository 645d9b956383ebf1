"""Hypothesis strategies for "reasonable" tool parameter schemas, and a validator for them.

Reasonable means what real tools declare: strings (maybe an enum, lengths, a date format, a
description with an example or quoted options), integers and numbers with bounds and
``multipleOf``, booleans, enums of numbers, ``const``, arrays of those, nullable variants
(``anyOf`` with null, or a type list), one level of nested objects, and valid defaults.
Every generated schema is satisfiable.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import jsonschema
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

WORDS = ("celsius", "fahrenheit", "北京", "Tokyo", "red", "green", "asc", "desc", "zh", "en")
NAMES = (
    "location", "city", "unit", "count", "limit", "date", "query", "name", "lang", "days",
    "expression", "flag", "tags", "price", "start_date", "options", "x", "value", "mode",
)  # fmt: skip
DESCRIPTIONS = (
    "",
    "城市名，举例：北京",
    "The city and state, e.g. San Francisco, CA",
    "温度单位，支持 'celsius' 或 'fahrenheit'",
    'unit, "metric" or "imperial"',
    "日期 YYYY-MM-DD",
    "how many results",
    "算术表达式",
    "free text",
)


_FORMATS = jsonschema.FormatChecker()


@_FORMATS.checks("date-time", raises=ValueError)
def _is_date_time(value: object) -> bool:
    # jsonschema only checks date-time with an optional package; this is the same rule.
    if not isinstance(value, str):
        return True
    if not re.match(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}", value):
        return False
    dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return True


@_FORMATS.checks("time", raises=ValueError)
def _is_time(value: object) -> bool:
    # RFC 3339 full-time (seconds, optional fraction and offset), as hypothesis-jsonschema
    # writes it; the installed jsonschema's own check refuses the "Z" offset.
    if not isinstance(value, str):
        return True
    if not re.fullmatch(r"\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?", value):
        return False
    dt.time.fromisoformat(value.upper().replace("Z", "+00:00"))
    return True


def validator(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """Return a validator for ``schema`` that also checks the date and date-time formats."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=_FORMATS)


def _with_description(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {**schema, "description": description} if description else schema


@st.composite
def string_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """Strings: free, bounded in length, a date, a time, an email, a pattern, or an enum."""
    kind = draw(
        st.sampled_from(["free", "bounded", "date", "datetime", "time", "email", "pattern", "enum"])
    )
    if kind == "enum":
        values = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True))
        schema: dict[str, Any] = {"type": "string", "enum": values}
    elif kind == "bounded":
        low = draw(st.integers(0, 4))
        schema = {"type": "string", "minLength": low, "maxLength": low + draw(st.integers(0, 12))}
    elif kind in ("date", "datetime"):
        schema = {"type": "string", "format": "date" if kind == "date" else "date-time"}
    elif kind in ("time", "email"):
        schema = {"type": "string", "format": kind}
    elif kind == "pattern":
        # Satisfiable through a case change or the schema's example, as real id patterns are.
        schema = {"type": "string", "pattern": r"^[A-Z]{2}\d*$", "examples": ["AB12"]}
    else:
        schema = {"type": "string"}
    return _with_description(schema, draw(st.sampled_from(DESCRIPTIONS)))


@st.composite
def integer_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """Integers with optional bounds (always leaving a valid multiple) and multipleOf."""
    schema: dict[str, Any] = {"type": "integer"}
    step = draw(st.sampled_from([None, 1, 2, 5]))
    if step:
        schema["multipleOf"] = step
    low = draw(st.none() | st.integers(-20, 20))
    if low is not None:
        schema[draw(st.sampled_from(["minimum", "exclusiveMinimum"]))] = low
    if draw(st.booleans()):
        schema["maximum"] = (
            (low if low is not None else 0) + 2 * (step or 1) + draw(st.integers(0, 30))
        )
    return _with_description(schema, draw(st.sampled_from(DESCRIPTIONS)))


@st.composite
def number_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """Numbers with optional bounds."""
    schema: dict[str, Any] = {"type": "number"}
    low = draw(st.none() | st.floats(-100, 100, allow_nan=False))
    if low is not None:
        schema[draw(st.sampled_from(["minimum", "exclusiveMinimum"]))] = low
        if draw(st.booleans()):
            schema["maximum"] = low + draw(st.floats(0.5, 100))
    return schema


def scalar_schemas() -> st.SearchStrategy[dict[str, Any]]:
    """Any scalar parameter schema."""
    return st.one_of(
        string_schemas(),
        integer_schemas(),
        number_schemas(),
        st.just({"type": "boolean"}),
        st.lists(st.integers(1, 9), min_size=1, max_size=3, unique=True).map(
            lambda values: {"type": "integer", "enum": values}
        ),
        st.sampled_from(WORDS).map(lambda word: {"const": word}),
        st.just({}),
    )


@st.composite
def array_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """Arrays of scalars with optional item counts."""
    items = draw(st.one_of(string_schemas(), integer_schemas(), st.just({"type": "boolean"})))
    schema: dict[str, Any] = {"type": "array", "items": items}
    low = draw(st.integers(0, 2))
    if low:
        schema["minItems"] = low
    if draw(st.booleans()):
        schema["maxItems"] = low + draw(st.integers(0, 3))
    return schema


@st.composite
def nullable(draw: st.DrawFn, inner: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    """A schema that also admits null: anyOf with null, or a type list."""
    schema = draw(inner)
    if isinstance(schema.get("type"), str) and draw(st.booleans()):
        return {**schema, "type": [schema["type"], "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


@st.composite
def object_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """A nested object of scalars with some required."""
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
    properties = {name: draw(scalar_schemas()) for name in names}
    required = [n for n in names if draw(st.booleans())]
    return {"type": "object", "properties": properties, "required": required}


JSON_SCALARS = st.none() | st.booleans() | st.integers(-50, 50) | st.text(max_size=6)


@st.composite
def valid_values(draw: st.DrawFn, schema: dict[str, Any]) -> Any:
    """A value valid against ``schema``, drawn with hypothesis-jsonschema.

    Objects are assembled property by property: hypothesis-jsonschema's own object
    generation does not work with the installed Hypothesis version.
    """
    if isinstance(schema.get("anyOf"), list):
        parent = {k: v for k, v in schema.items() if k != "anyOf"}
        branch = draw(st.sampled_from(schema["anyOf"]))
        return draw(valid_values({**parent, **branch}))
    if not ({"type", "enum", "const"} & set(schema)):
        return draw(JSON_SCALARS)
    if schema.get("type") != "object":
        return draw(from_schema(schema))
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    return {
        name: draw(valid_values(sub))
        for name, sub in properties.items()
        if name in required or draw(st.booleans())
    }


@st.composite
def with_default(draw: st.DrawFn, inner: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    """A schema that sometimes carries a valid default (drawn from the schema itself)."""
    schema = draw(inner)
    if schema and draw(st.booleans()):
        schema = {**schema, "default": draw(valid_values(schema))}
    return schema


def property_schemas() -> st.SearchStrategy[dict[str, Any]]:
    """Any property schema a tool might declare."""
    plain = st.one_of(scalar_schemas(), array_schemas(), object_schemas())
    return with_default(st.one_of(plain, nullable(st.one_of(scalar_schemas(), array_schemas()))))


@st.composite
def parameters_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """A tool's ``parameters`` object: 0-4 properties, some required."""
    names = draw(st.lists(st.sampled_from(NAMES), max_size=4, unique=True))
    properties = {name: draw(property_schemas()) for name in names}
    required = [n for n in names if draw(st.booleans())]
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    return schema


QUERIES = st.one_of(
    st.sampled_from(
        [
            "今天北京天气怎么样？",
            "What's the weather like today in celsius in Tokyo and Paris.",
            "北京和上海的天气，用华氏度",
            "top 5 results for red and green, 3 days from 2024-06-01",
            "帮我算一下 (3+4)×2",
            "查找张三的信息",
            "明天 'hello world' 10.5",
            "给 bob@example.com 发邮件，主题是会议，下午三点半 ab12",
            "",
        ]
    ),
    st.text(max_size=40),
)
