"""Turn the official SDK's ``Manifest`` shape into real JSON Schema (pure, no I/O).

The official ``Manifest.from_function`` writes Python type names as property types
(``"Optional[int]"``), ``name``/``required`` keys inside properties, ``description: null`` and
the raw docstring as description (docs/protocol.md section 3); :func:`normalize_tool` repairs
that, and changes nothing in a tool that is JSON Schema already. Lagent's list-of-parameters
form is read here too.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

from ._docstrings import parse_docstring

#: The type names JSON Schema itself defines.
JSON_SCHEMA_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})

_SCALARS: dict[str, dict[str, Any]] = {
    **{key: {"type": "string"} for key in ("str", "string", "bytes", "path")},
    **{key: {"type": "integer"} for key in ("int", "integer")},
    **{key: {"type": "number"} for key in ("float", "number", "decimal")},
    **{key: {"type": "boolean"} for key in ("bool", "boolean")},
    **{key: {"type": "null"} for key in ("none", "nonetype", "null")},
    **{key: {} for key in ("any", "object")},
    "datetime": {"type": "string", "format": "date-time"},
    "date": {"type": "string", "format": "date"},
    "time": {"type": "string", "format": "time"},
    "uuid": {"type": "string", "format": "uuid"},
}
_ARRAYS = frozenset({"list", "set", "frozenset", "sequence", "iterable", "tuple"})
_OBJECTS = frozenset({"dict", "mapping"})


def _split_top_level(text: str, separator: str) -> list[str]:
    """``text`` split at each ``separator`` outside brackets and quoted literals."""
    parts: list[str] = []
    depth = start = 0
    quote = ""
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == separator and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
        else:
            depth += (char in "[(") - (char in "])")
    tail = text[start:].strip()
    return [*parts, tail] if tail else parts


def _literal_value(token: str) -> Any:
    token = token.strip()
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return token[1:-1]
    for cast in (int, float):
        try:
            return cast(token)
        except ValueError:
            pass
    lowered = token.lower()
    if lowered in {"true", "false"}:
        return lowered == "true"
    if lowered == "none":
        return None
    return token


def _any_of(options: list[dict[str, Any]]) -> dict[str, Any]:
    if any(option == {} for option in options):
        return {}
    return options[0] if len(options) == 1 else {"anyOf": options}


def python_type_to_schema(type_name: str) -> dict[str, Any]:
    """A type name as the official SDK writes it (``"Optional[int]"``) as JSON Schema."""
    text = type_name.strip().removeprefix("typing.")
    options = _split_top_level(text, "|") if "|" in text else [text]
    if len(options) > 1:  # before brackets: in "int | list[str]" the last "]" is list's
        return _any_of([python_type_to_schema(option) for option in options])
    if "[" in text and text.endswith("]"):
        head, inner = text.split("[", 1)
        args = _split_top_level(inner[:-1], ",")
        head = head.strip().removeprefix("typing.").lower()
        if head == "optional" and args:
            return _any_of([python_type_to_schema(args[0]), {"type": "null"}])
        if head == "annotated" and args:
            return python_type_to_schema(args[0])
        if head in ("union", "uniontype"):
            # The official SDK drops NoneType from the members: a one-member union was T | None.
            members = [python_type_to_schema(arg) for arg in args]
            return _any_of([*members, {"type": "null"}] if len(members) == 1 else members)
        if head == "literal":
            return {"enum": [_literal_value(arg) for arg in args]}
        if head in _ARRAYS:
            items = [a for a in args if a != "..."]
            schema: dict[str, Any] = {"type": "array"}
            if len(items) == 1:
                schema["items"] = python_type_to_schema(items[0])
            return schema
        if head in _OBJECTS:
            schema = {"type": "object"}
            if len(args) == 2:
                value_schema = python_type_to_schema(args[1])
                if value_schema:
                    schema["additionalProperties"] = value_schema
            return schema
        return python_type_to_schema(head)
    key = text.lower()
    if key in _SCALARS:
        return dict(_SCALARS[key])
    return {"type": "array" if key in _ARRAYS else "object"}


def _normalize_property(result: Any, doc_description: str | None) -> tuple[dict[str, Any], bool]:
    """The JSON Schema of one property (changed in place) and whether it said required."""
    if not isinstance(result, dict):
        return {}, False
    declared_required = result.pop("required", None) is True
    result.pop("name", None)
    type_value = result.get("type")
    if "type" in result and type_value is None:
        # An official @manifest_parameter naming no parameter of the signature writes null.
        del result["type"]
    if isinstance(type_value, str) and type_value not in JSON_SCHEMA_TYPES:
        del result["type"]
        result = {**python_type_to_schema(type_value), **result}
    if result.get("description") is None:
        result.pop("description", None)
        if doc_description:
            result["description"] = doc_description
    if result.get("default", 0) is None and "type" in result:
        # The official shape writes "default": null for "no default", not "defaults to null".
        del result["default"]
    return result, declared_required


def _normalize_parameters(result: Any, docs: dict[str, str]) -> dict[str, Any]:
    """``parameters`` (a copy, changed in place) as JSON Schema; ``docs`` fills descriptions."""
    if not isinstance(result, dict):
        return {"type": "object", "properties": {}}
    result.setdefault("type", "object")
    properties = result.get("properties")
    if not isinstance(properties, dict):
        if "properties" in result:
            result["properties"] = {}
        return result
    given = result.get("required")
    # A malformed "required" (not a list) is left as given for validators to report; only a
    # list (or none) can take the names that properties declared required themselves.
    required = list(given) if isinstance(given, list) else [] if given is None else None
    normalized: dict[str, Any] = {}
    for name, prop in properties.items():
        schema, declared_required = _normalize_property(prop, docs.get(name))
        normalized[name] = schema
        if declared_required and required is not None and name not in required:
            required.append(name)
    result["properties"] = normalized
    if required is not None and (required or "required" in result):
        result["required"] = required
    return result


#: JSON Schema type -> the type word Lagent's ``tool_api`` writes for it (NUMBER for int).
LAGENT_TYPES = {
    "string": "STRING",
    "integer": "NUMBER",
    "number": "FLOAT",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "DICT",
}
#: Lagent's type words read back, with the spellings other list-form writers use.
_LIST_FORM_TYPES = {word: kind for kind, word in LAGENT_TYPES.items()} | {
    "INT": "integer",
    "INTEGER": "integer",
    "BOOL": "boolean",
    "LIST": "array",
    "OBJECT": "object",
}

#: A named return value: its name, JSON Schema type (if known) and description.
ReturnItem = tuple[str, str | None, str]


def returns_sentence(items: list[ReturnItem] | tuple[ReturnItem, ...], *, lead: str = "") -> str:
    """Named return values as the sentence the agent reads: ``Returns a (string): the a.``.

    The protocol has no field for return values, so every named return is told this one way.
    """
    parts = [
        name + (f" ({kind})" if kind else "") + (f": {text}" if text else "")
        for name, kind, text in items
    ]
    return f"{lead or 'Returns'}{':' if lead else ''} {'; '.join(parts)}."


def from_list_form(tool: Any) -> Any:
    """A Lagent-style description (a list of parameters) as a tool; anything else as it is."""
    if not (
        isinstance(tool, dict)
        and "function" not in tool
        and isinstance(tool.get("name"), str)
        and isinstance(tool.get("parameters"), list)
    ):
        return tool
    properties: dict[str, Any] = {}
    for item in tool["parameters"]:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        kind = _LIST_FORM_TYPES.get(str(item.get("type", "")).upper())
        schema: dict[str, Any] = {"type": kind} if kind else {}
        if item.get("description"):
            schema["description"] = str(item["description"])
        properties[item["name"]] = schema
    required = [name for name in tool.get("required") or [] if name in properties]
    description = str(tool.get("description") or "")
    returns = [
        (
            str(r["name"]),
            _LIST_FORM_TYPES.get(str(r.get("type", "")).upper()),
            str(r.get("description") or ""),
        )
        for r in tool.get("return_data") or []
        if isinstance(r, dict) and r.get("name")
    ]
    if returns:
        stop = "" if not description or description.rstrip()[-1] in ".。!！?？" else "."
        description = f"{description.rstrip()}{stop} {returns_sentence(returns)}".strip()
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def normalize_tool(tool: Any) -> Any:
    """A deep copy of ``tool`` with JSON Schema parameters and a cleaned description.

    A description that is a raw docstring (with an ``Args:``-style section) is reduced to its
    prose, and that section fills missing parameter descriptions.
    """
    result = copy.deepcopy(from_list_form(tool))
    if not isinstance(result, dict) or not isinstance(result.get("function"), dict):
        return result
    function = result["function"]
    description = function.get("description")
    param_docs: dict[str, str] = {}
    if isinstance(description, str) and description.strip():
        info = parse_docstring(description)
        param_docs = dict(info.params)
        prose = info.description
        if prose and info.returns:
            prose = f"{prose}\n\nReturns: {info.returns}"
        function["description"] = (param_docs and prose) or inspect.cleandoc(description)
    elif description is None:
        function["description"] = ""
    function["parameters"] = _normalize_parameters(function.get("parameters"), param_docs)
    return result
