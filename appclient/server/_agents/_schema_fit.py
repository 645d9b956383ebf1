"""Does a value fit a JSON Schema, and which value would? The subset tools use (pure).

Keeps the rule agent's calls valid without a JSON Schema dependency: the keywords tool
parameters use in practice are checked, unknown ones ignored (as JSON Schema does).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import operator
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeGuard

_MISSING: Any = object()
_PYTHON_TYPES = {"string": str, "boolean": bool, "null": type(None), "array": list, "object": dict}
_MAX_DEPTH = 8
#: A number fails a bound keyword when the comparison with the bound is true.
_BOUNDS = (
    ("minimum", operator.lt),
    ("maximum", operator.gt),
    ("exclusiveMinimum", operator.le),
    ("exclusiveMaximum", operator.ge),
)
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")
_EMAIL_FORMATS = ("email", "idn-email")
_TIME = re.compile(r"\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?")
#: A string of a format fits when its shape matches and it parses.
_FORMAT_CHECKS: dict[str, tuple[Callable[[str], object], Callable[[str], object]]] = {
    "email": (_EMAIL.fullmatch, str),
    "idn-email": (_EMAIL.fullmatch, str),
    "time": (_TIME.fullmatch, dt.time.fromisoformat),
    "date": (re.compile(r"\d{4}-\d{2}-\d{2}").fullmatch, dt.date.fromisoformat),
    "date-time": (
        re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}").match,
        dt.datetime.fromisoformat,
    ),
}
#: What a string of a format gets when no preferred value fits (``{0}`` is today).
_FORMAT_VALUES = {"date": "{0}", "date-time": "{0}T00:00:00", "time": "00:00:00"}
#: What an address parameter gets when the query gives none (example.com is reserved).
_PLACEHOLDER_EMAIL = "user@example.com"


def is_type(value: Any, type_name: str) -> bool:
    """Whether ``value`` is of the JSON type ``type_name``: a bool is no number, 2.0 an integer."""
    if type_name in _PYTHON_TYPES:
        return isinstance(value, _PYTHON_TYPES[type_name])
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if type_name == "integer":
        return isinstance(value, int) or (math.isfinite(value) and value.is_integer())
    return type_name == "number" and (isinstance(value, int) or math.isfinite(value))


def _json_equal(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    return bool(left == right)


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fits_number(value: float, schema: Mapping[str, Any]) -> bool:
    for keyword, fails in _BOUNDS:
        if _is_number(bound := schema.get(keyword)) and fails(value, bound):
            return False
    step = schema.get("multipleOf")
    if not _is_number(step) or step <= 0:
        return True
    if isinstance(step, int) and isinstance(value, int):
        return value % step == 0
    quotient = value / step
    return math.isclose(quotient, round(quotient), rel_tol=0, abs_tol=1e-9)


def _within(size: int, schema: Mapping[str, Any], low: str, high: str) -> bool:
    """Whether ``size`` is within the ``low`` and ``high`` length keywords of ``schema``."""
    least, most = schema.get(low), schema.get(high)
    too_few = isinstance(least, int) and size < least
    return not too_few and not (isinstance(most, int) and size > most)


def _fits_format(value: str, fmt: Any) -> bool:
    if str(fmt) not in _FORMAT_CHECKS:
        return True
    shape, parse = _FORMAT_CHECKS[str(fmt)]
    try:
        return shape(value) is not None and bool(parse(value.replace("Z", "+00:00")))
    except ValueError:
        return False


def _fits_string(value: str, schema: Mapping[str, Any]) -> bool:
    if not _within(len(value), schema, "minLength", "maxLength"):
        return False
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            if re.search(pattern, value) is None:
                return False
        except re.error:
            pass  # a pattern Python cannot read is not the caller's value's fault
    return _fits_format(value, schema.get("format"))


def _fits_array(value: list[Any], schema: Mapping[str, Any]) -> bool:
    if not _within(len(value), schema, "minItems", "maxItems"):
        return False
    if schema.get("uniqueItems") is True:
        dumped = [json.dumps(item, sort_keys=True) for item in value]
        if len(set(dumped)) != len(dumped):
            return False
    items = schema.get("items")
    if isinstance(items, Mapping):
        return all(fits_schema(item, items) for item in value)
    return True


def _fits_object(value: dict[str, Any], schema: Mapping[str, Any]) -> bool:
    required = schema.get("required")
    if isinstance(required, list) and any(name not in value for name in required):
        return False
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            if isinstance(properties[name], Mapping) and not fits_schema(item, properties[name]):
                return False
        elif extra is False or (isinstance(extra, Mapping) and not fits_schema(item, extra)):
            return False
    return True


def fits_schema(value: Any, schema: Any) -> bool:
    """Whether the JSON-ready ``value`` is valid against ``schema`` (the module's subset)."""
    if schema is True or schema is None:
        return True
    if schema is False:
        return False
    if not isinstance(schema, Mapping):
        return True
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else declared
    if isinstance(types, list) and not any(isinstance(t, str) and is_type(value, t) for t in types):
        return False
    options = schema.get("enum")
    if isinstance(options, list) and not any(_json_equal(value, o) for o in options):
        return False
    if "const" in schema and not _json_equal(value, schema["const"]):
        return False
    for keyword in ("anyOf", "oneOf", "allOf"):
        options = schema.get(keyword)
        if not isinstance(options, list):
            continue
        matches = sum(1 for option in options if fits_schema(value, option))
        if (keyword == "anyOf" and matches == 0) or (keyword == "oneOf" and matches != 1):
            return False
        if keyword == "allOf" and matches != len(options):
            return False
    if is_type(value, "number"):
        return _fits_number(value, schema)
    if isinstance(value, str):
        return _fits_string(value, schema)
    if isinstance(value, list):
        return _fits_array(value, schema)
    if isinstance(value, dict):
        return _fits_object(value, schema)
    return True


def _pointer_target(root: Mapping[str, Any], ref: str) -> Any:
    """The schema the local JSON pointer ``ref`` (``#/$defs/Name``) names, or None."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def inline_refs(schema: Any) -> Any:
    """``schema`` with every local ``$ref`` replaced by its target, beside the referrer's keywords.

    An unresolvable (remote, bad) or too deeply recursive one becomes ``{}``: the result is finite.
    """
    if not isinstance(schema, Mapping):
        return schema
    root = schema

    def walk(node: Any, depth: int) -> Any:
        if isinstance(node, list):
            return [walk(item, depth) for item in node]
        if not isinstance(node, Mapping):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = _pointer_target(root, ref)
            rest = {k: v for k, v in node.items() if k != "$ref"}
            if not isinstance(target, Mapping) or depth >= _MAX_DEPTH:
                return walk(rest, depth)
            return {**walk(target, depth + 1), **walk(rest, depth)}
        return {
            key: value if key in ("$defs", "definitions") else walk(value, depth)
            for key, value in node.items()
        }

    return walk(schema, 0)


def _number_candidates(schema: Mapping[str, Any], preferred: Any, *, integer: bool) -> list[Any]:
    lows = [schema[k] for k in ("minimum", "exclusiveMinimum") if _is_number(schema.get(k))]
    highs = [schema[k] for k in ("maximum", "exclusiveMaximum") if _is_number(schema.get(k))]
    low, high = max(lows, default=None), min(highs, default=None)
    start = preferred if is_type(preferred, "number") else 1
    clamped = min([max([start, *lows]), *highs])
    raw: list[float] = [start, clamped, 1, 0]
    if low is not None:
        raw += [low, low + 1, low + 0.5]
    if high is not None:
        raw += [high, high - 1, high - 0.5]
    if low is not None and high is not None:
        raw.append((low + high) / 2)
    step = schema.get("multipleOf")
    step = step if _is_number(step) and step > 0 else None
    candidates: list[Any] = []
    for value in raw:
        if step is not None and isinstance(step, int) and isinstance(value, int):
            candidates += [-(-value // step) * step, value // step * step]  # exact for big ints
        elif step is not None:
            candidates += [math.ceil(value / step) * step, math.floor(value / step) * step]
        else:
            candidates.append(value)
    if integer:
        candidates = [round(c) if math.isfinite(c) else 0 for c in candidates]
    else:
        candidates = [int(c) if float(c).is_integer() and abs(c) < 2**53 else c for c in candidates]
    # Closest to what was wanted first; the caller takes the first one that fits.
    return sorted(candidates, key=lambda c: abs(c - start))


def _string_candidates(schema: Mapping[str, Any], preferred: Any, today: dt.date) -> list[Any]:
    fmt = str(schema.get("format"))
    if fmt in _FORMAT_VALUES:
        base = _FORMAT_VALUES[fmt].format(today)
    elif fmt in _EMAIL_FORMATS:
        fits = isinstance(preferred, str) and _EMAIL.fullmatch(preferred)
        base = preferred if fits else _PLACEHOLDER_EMAIL
    elif isinstance(preferred, str):
        base = preferred
    elif preferred is _MISSING or preferred is None or isinstance(preferred, (dict, list)):
        base = ""
    else:
        base = json.dumps(preferred) if isinstance(preferred, bool) else str(preferred)
    max_length, min_length = schema.get("maxLength"), schema.get("minLength")
    if isinstance(max_length, int) and max_length >= 0:
        base = base[:max_length]
    if isinstance(min_length, int):
        base = base.ljust(min_length, "x")
    found = [base]
    if "pattern" in schema:
        # A pattern often fixes the case (^[A-Z]{3}$, ^U\d+$); failing that, the schema's own
        # examples and default show a value it accepts.
        found += [base.upper(), base.lower()]
        examples = schema.get("examples")
        found += [e for e in examples if isinstance(e, str)] if isinstance(examples, list) else []
        found += [schema["default"]] if isinstance(schema.get("default"), str) else []
    return found


def _array_candidates(
    schema: Mapping[str, Any], preferred: Any, today: dt.date, depth: int
) -> list[Any]:
    raw_items = schema.get("items")
    items: Mapping[str, Any] = raw_items if isinstance(raw_items, Mapping) else {}
    values = [
        value_for_schema(items, preferred=p, today=today, _depth=depth + 1)
        for p in (preferred if isinstance(preferred, list) else [])
    ]
    if schema.get("uniqueItems") is True:
        values = list({json.dumps(value, sort_keys=True): value for value in values}.values())
    max_items, min_items = schema.get("maxItems"), schema.get("minItems")
    if isinstance(max_items, int):
        values = values[: max(max_items, 0)]
    seed = 0
    while isinstance(min_items, int) and len(values) < min_items and seed < 4 * min_items + 8:
        # Vary the preferred value so uniqueItems arrays get distinct members.
        hint: Any = seed if items.get("type") in ("integer", "number") else f"x{seed}" * bool(seed)
        candidate = value_for_schema(items, preferred=hint, today=today, _depth=depth + 1)
        if schema.get("uniqueItems") is not True or candidate not in values:
            values.append(candidate)
        seed += 1
    return [values]


def _object_candidates(
    schema: Mapping[str, Any], preferred: Any, today: dt.date, depth: int
) -> list[Any]:
    raw_properties = schema.get("properties")
    properties: Mapping[str, Any] = raw_properties if isinstance(raw_properties, Mapping) else {}
    result: dict[str, Any] = {}
    for name, value in preferred.items() if isinstance(preferred, dict) else ():
        if name in properties:
            result[name] = value_for_schema(
                properties[name], preferred=value, today=today, _depth=depth + 1
            )
        elif schema.get("additionalProperties", True) is not False:
            result[name] = value
    for name in schema.get("required") or []:
        if isinstance(name, str) and name not in result:
            result[name] = value_for_schema(properties.get(name, {}), today=today, _depth=depth + 1)
    return [result]


def _candidates(schema: Any, preferred: Any, today: dt.date, depth: int) -> list[Any]:
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return [] if preferred is _MISSING else [preferred]
    if "const" in schema:
        return [schema["const"]]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return list(schema["enum"])
    for keyword in ("anyOf", "oneOf", "allOf"):
        options = schema.get(keyword)
        if isinstance(options, list) and options:
            parent = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf", "allOf")}
            branches = [option for option in options if isinstance(option, Mapping)]
            if keyword == "allOf":
                merged = {k: v for part in (parent, *branches) for k, v in part.items()}
                return _candidates(merged, preferred, today, depth + 1)
            return [
                found
                for branch in branches
                for found in _candidates({**parent, **branch}, preferred, today, depth + 1)
            ]
    declared = schema.get("type")
    types = declared if isinstance(declared, list) else [declared]
    kinds = ("boolean", "integer", "number", "array", "object", "null")
    guess = next((name for name in kinds if is_type(preferred, name)), "string")
    types = [t for t in types if isinstance(t, str)] or [guess]
    found: list[Any] = []
    for type_name in sorted(types, key=lambda t: t == "null"):
        if type_name in ("integer", "number"):
            found += _number_candidates(schema, preferred, integer=type_name == "integer")
        elif type_name == "string":
            found += _string_candidates(schema, preferred, today)
        elif type_name == "boolean":
            found += [preferred if isinstance(preferred, bool) else False, True]
        elif type_name == "array":
            found += _array_candidates(schema, preferred, today, depth)
        elif type_name == "object":
            found += _object_candidates(schema, preferred, today, depth)
        elif type_name == "null":
            found.append(None)
    return found


def value_for_schema(
    schema: Any, *, preferred: Any = _MISSING, today: dt.date | None = None, _depth: int = 0
) -> Any:
    """A value valid against ``schema``, as close to ``preferred`` (kept when valid) as it allows.

    ``today`` is what a ``format: date`` gets. With no valid value (an unmatchable ``pattern``)
    the closest attempt is returned.
    """
    if preferred is not _MISSING and fits_schema(preferred, schema):
        return preferred
    day = today or dt.date.today()
    candidates = _candidates(schema, preferred, day, _depth)
    for candidate in candidates:
        if fits_schema(candidate, schema):
            return candidate
    if candidates:
        return candidates[0]
    return None if preferred is _MISSING else preferred
