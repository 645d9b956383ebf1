"""Request bodies in, validated values out; anything wrong is a 400 naming the field (pure).

JSON that would later break a response (``NaN``, lone surrogates, deep nesting) is refused;
fields are checked with the wire models, tools normalised to JSON Schema and named by the rule.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any, Final, TypeVar

from pydantic import BaseModel, ValidationError

from ..._core._constants import tool_name_problem
from ..._core._models import Tool
from ..._manifest import normalize_tool
from .._settings import DEFAULT_MAX_TOOLS
from ._responses import HTTPProblem, bad_parameter

ModelT = TypeVar("ModelT", bound=BaseModel)

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: The tools of a run, as characters of JSON (a conversation keeps them for its later runs).
MAX_TOOLS_CHARS: Final = 1024 * 1024


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)
# A parsed body holds no cycle, and parse_json_object bounded its depth.
_tool_text = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode

#: Deepest nesting a request body may have: far beyond any tool schema or argument, and far
#: below what the recursive code after parsing (pydantic, copies, the SQLite store) survives.
MAX_JSON_DEPTH = 64


def _json_problem(value: Any, *, escaped: bool) -> str | None:
    """Why a parsed body cannot be served (too deep; with ``escaped``, a lone surrogate)."""
    # Its own stack: JSON nested thousands deep must not hit the recursion limit.
    pending, lone = [(value, 1)], False
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            lone = lone or (escaped and _LONE_SURROGATE.search(item) is not None)
        elif isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                return f"body: JSON nested deeper than {MAX_JSON_DEPTH} levels"
            children = [*item, *item.values()] if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return "body: a string holds a lone UTF-16 surrogate" if lone else None


def parse_json_object(body: bytes) -> dict[str, Any]:
    """Parse a body that must be one JSON object (400 ``InvalidJSON`` or ``InvalidParameter``)."""
    try:
        # Like json.loads (UTF-16/32 too), with one shared decoder. "{" then no NUL is UTF-8
        # (UTF-16/32 have a NUL in the first two bytes, or a BOM): no detection needed.
        utf8 = body[:1] == b"{" and body[1:2] != b"\x00"
        encoding = "utf-8" if utf8 else json.detect_encoding(body)
        value = _DECODER.decode(body.decode(encoding, "strict"))
    except RecursionError:
        raise HTTPProblem(400, "InvalidJSON", "body: JSON nested too deeply") from None
    except ValueError as exc:  # includes JSONDecodeError and UnicodeDecodeError
        raise HTTPProblem(400, "InvalidJSON", f"body: not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise bad_parameter("body", f"expected a JSON object, got {type(value).__name__}")
    # Byte tests (in C) spare most bodies the walk: fewer brackets than the limit cannot nest
    # deeper, and a lone surrogate in UTF-8 bytes can only come from an escape.
    escaped = not utf8 or b"\\ud" in body or b"\\uD" in body
    if escaped or body.count(b"{") + body.count(b"[") > MAX_JSON_DEPTH:
        problem = _json_problem(value, escaped=escaped)
        if problem is not None:
            raise HTTPProblem(400, "InvalidJSON", problem)
    return value


def validate_model(model: type[ModelT], data: Any, *, prefix: str = "") -> ModelT:
    """Validate ``data`` (at ``prefix`` in the body) with a wire model; a 400 names the field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors(include_url=False, include_input=False)[0]
        field = prefix  # such as tools[0].function.name
        for part in error["loc"]:
            if isinstance(part, int):
                field += f"[{part}]"
            elif part:
                field = f"{field}.{part}" if field else part
        raise bad_parameter(field or "body", error["msg"]) from None
    except RecursionError:
        raise bad_parameter(prefix or "body", "nested too deeply") from None


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _check_raw_parameters(raw: dict[str, Any], field: str) -> None:
    # Normalising would quietly repair these; a client sending them has a bug to hear about.
    function = raw.get("function")
    parameters = function.get("parameters") if isinstance(function, dict) else None
    field += ".function.parameters"
    if parameters is None:
        return
    if not isinstance(parameters, dict):
        raise bad_parameter(field, "expected a JSON Schema object")
    if parameters.get("required") is not None and not _names(parameters["required"]):
        raise bad_parameter(f"{field}.required", "expected a list of property names")
    properties = parameters.get("properties")
    if properties is not None and not isinstance(properties, dict):
        raise bad_parameter(f"{field}.properties", "expected an object")
    for name, schema in (properties or {}).items():
        if not isinstance(schema, dict):
            raise bad_parameter(f"{field}.properties.{name}", "expected a JSON Schema object")


#: A tool's JSON text longer than this is checked anew on each run: kept in the cache, it
#: would pin its size 512 times over.
_CACHED_TOOL_CHARS: Final = 16 * 1024


# The same tools arrive with every run of a conversation, and normalising one parses its
# docstring: recent results are kept by the tool's JSON text and place (another key order or
# place only costs a miss).
@functools.lru_cache(maxsize=512)
def _check_tool(text: str, field: str) -> dict[str, Any] | None:
    """:func:`_checked_tool` of a short tool, by its JSON text."""
    return _checked_tool(json.loads(text), field)


def _checked_tool(raw: dict[str, Any], field: str) -> dict[str, Any] | None:
    """Return one tool normalised and checked (``None`` for a non-function tool)."""
    _check_raw_parameters(raw, field)
    try:
        normalized = normalize_tool(raw)
    except RecursionError:
        raise bad_parameter(field, "nested too deeply") from None
    tool = validate_model(Tool, normalized, prefix=field)
    if tool.type != "function" or tool.function is None:
        return None
    name = tool.function.name
    problem = tool_name_problem(name)
    if problem is not None:
        raise bad_parameter(f"{field}.function.name", problem)
    parameters = tool.function.parameters
    # The type, and "required": null next to no properties, pass normalising unchanged.
    if parameters.get("type") != "object":
        raise bad_parameter(
            f"{field}.function.parameters.type", "the parameters schema must be of type 'object'"
        )
    if not _names(parameters.get("required", [])):
        raise bad_parameter(
            f"{field}.function.parameters.required", "expected a list of property names"
        )
    function = {"name": name, "description": tool.function.description, "parameters": parameters}
    return {"type": "function", "function": function}


def validate_tools(raw_tools: Any) -> tuple[dict[str, Any], ...]:
    """Validate a run's ``tools``, normalised to JSON Schema (tools but functions left out)."""
    if raw_tools is None:
        return ()
    if not isinstance(raw_tools, list):
        raise bad_parameter("tools", "expected a list of tools")
    if len(raw_tools) > DEFAULT_MAX_TOOLS:
        raise bad_parameter("tools", f"at most {DEFAULT_MAX_TOOLS} tools per run")
    tools: list[dict[str, Any]] = []
    seen: set[str] = set()
    size = 0
    for index, raw in enumerate(raw_tools):
        field = f"tools[{index}]"
        if not isinstance(raw, dict):
            raise bad_parameter(field, "expected a tool object")
        text = _tool_text(raw)
        size += len(text)
        if size > MAX_TOOLS_CHARS:
            raise bad_parameter(
                "tools",
                f"at most {MAX_TOOLS_CHARS:,} characters of tools per run (a conversation "
                "keeps them); describe each tool briefly",
            )
        short = len(text) <= _CACHED_TOOL_CHARS
        tool = _check_tool(text, field) if short else _checked_tool(raw, field)
        if tool is None:
            continue
        name = tool["function"]["name"]
        if name in seen:
            raise bad_parameter(f"{field}.function.name", f"{name!r} is declared twice")
        seen.add(name)
        tools.append(tool)
    return tuple(tools)
