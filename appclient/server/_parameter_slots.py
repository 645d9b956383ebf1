"""What kind of value each parameter of a tool wants, read from its JSON Schema (pure).

The argument filler looks for different things in the query depending on the parameter: an
enum member, a place, a date, an email address, an arithmetic expression, a number, a
yes/no, or the free text that names the subject. This module reads a ``parameters`` object
once and describes each property as a :class:`Slot`: its kind, its options (an ``enum``, or
the values a description quotes such as ``'celsius' 或 'fahrenheit'``), the example its
description gives (and that example's language), and the words that tie a number in the
query to it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from .._limits import cache_short_keys
from ._argument_tables import (
    DATE_DESCRIPTION_CUES,
    DATE_NAME_WORDS,
    EMAIL_DESCRIPTION_CUES,
    EMAIL_NAME_WORDS,
    EXPRESSION_DESCRIPTION_CUES,
    EXPRESSION_NAME_WORDS,
    IDENTIFIER_NAME_WORDS,
    NUMBER_CUES,
    PLACE_DESCRIPTION_CUES,
    PLACE_NAME_WORDS,
)
from ._query_values import detect_language, find_quoted, is_cjk
from ._schema_fit import inline_refs
from ._text_terms import english_words

__all__ = [
    "Slot",
    "SlotKind",
    "fill_schema",
    "looks_like_identifier",
    "parameter_slots",
    "slot_of",
]

SlotKind = Literal[
    "choice",
    "boolean",
    "integer",
    "number",
    "array",
    "object",
    "null",
    "date",
    "datetime",
    "time",
    "email",
    "expression",
    "place",
    "identifier",
    "text",
]

_EXAMPLE = re.compile(
    r"(?:例如|举例|比如|譬如|例：|如：|e\.g\.|eg\.|for example|for instance|such as|example)"
    r"\s*[:：,，]?\s*(.+)",
    re.IGNORECASE | re.DOTALL,
)
_LIST_OF_OPTIONS = re.compile(
    r"(?:可选值|可选|取值|one of|options|possible values|allowed values)\s*[:：是为]?\s*"
    r"([A-Za-z0-9_\-]+(?:\s*(?:[,，、/|]|或|or)\s*[A-Za-z0-9_\-]+)+)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Slot:
    """One parameter, read for filling.

    Attributes:
        name: The property name.
        schema: The property's full schema (what the value must be valid against).
        fill: The branch of the schema to fill from (``Optional[X]`` gives ``X``).
        required: Whether the parameter is in ``required``.
        kind: What to look for in the query.
        options: Allowed values: the ``enum``, or values the description quotes.
        explicit: True when ``options`` come from ``enum``/``const`` (not the description).
        example: The example the description gives (``城市名，举例：北京`` -> ``北京``).
        example_language: ``"zh"``/``"en"`` when the example is written in one language.
        words: Lower-case English words of the name, for cues and default tables.
        cues: Words near a number in the query that tie that number to this slot.
    """

    name: str
    schema: Mapping[str, Any]
    fill: Mapping[str, Any]
    required: bool
    kind: SlotKind
    options: tuple[Any, ...] = ()
    explicit: bool = False
    example: str | None = None
    example_language: Literal["zh", "en"] | None = None
    words: tuple[str, ...] = ()
    cues: tuple[str, ...] = ()

    @property
    def description(self) -> str:
        """The description of the filled branch (or of the property), or ``""``."""
        text = self.fill.get("description") or self.schema.get("description")
        return text if isinstance(text, str) else ""


def fill_schema(schema: Any) -> Mapping[str, Any]:
    """Return the branch of ``schema`` to fill a value from: the first one that is not null.

    ``{"anyOf": [{"type": "integer"}, {"type": "null"}]}`` gives ``{"type": "integer"}``;
    ``{"type": ["string", "null"]}`` gives ``{"type": "string"}``. The parent's description,
    default and examples are kept.
    """
    if not isinstance(schema, Mapping):
        return {}
    for keyword in ("anyOf", "oneOf"):
        options = schema.get(keyword)
        if isinstance(options, list):
            usable = [o for o in options if isinstance(o, Mapping) and o.get("type") != "null"]
            if usable:
                parent = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
                return {**parent, **fill_schema(usable[0])}
    declared = schema.get("type")
    if isinstance(declared, list):
        usable_types = [t for t in declared if t != "null"]
        return {**schema, "type": usable_types[0] if usable_types else "null"}
    return schema


def _example(description: str) -> str | None:
    match = _EXAMPLE.search(description)
    if not match:
        return None
    text = re.split(r"[。；;\n、）)]|，|(?<=[\u4e00-\u9fff]),", match.group(1))[0]
    text = text.strip().strip("\"'“”‘’「」`").strip().rstrip(".")
    quoted = find_quoted(match.group(1))
    if quoted and quoted[0].start < 3:
        text = str(quoted[0].value)
    return text or None


def _example_language(example: str | None) -> Literal["zh", "en"] | None:
    if not example:
        return None
    has_cjk = any(is_cjk(c) for c in example)
    has_latin = any(c.isascii() and c.isalpha() for c in example)
    if has_cjk == has_latin:
        return None
    return detect_language(example)


def _described_options(description: str) -> tuple[str, ...]:
    quoted = [str(item.value).strip() for item in find_quoted(description)]
    quoted = [q for q in quoted if q and len(q) <= 30]
    if len(set(quoted)) >= 2:
        return tuple(dict.fromkeys(quoted))
    listed = _LIST_OF_OPTIONS.search(description)
    if listed:
        parts = re.split(r"\s*(?:[,，、/|]|或|\bor\b)\s*", listed.group(1))
        return tuple(dict.fromkeys(p for p in parts if p))
    return ()


def _mentions(description: str, cues: tuple[str, ...]) -> bool:
    lowered = description.lower()
    for cue in cues:
        if any(is_cjk(c) for c in cue):
            if cue in description:
                return True
        elif re.search(rf"(?<![a-z]){re.escape(cue)}(?![a-z])", lowered):
            return True
    return False


def looks_like_identifier(text: str) -> bool:
    """Whether ``text`` is one token of the kind copied whole: an id, a path or a URL.

    ``A-1``, ``ORD-2024-0001``, ``/var/log/app.log``, ``https://example.com/x``: no blank,
    at least one letter or digit, and a digit or a separator (slash, backslash, dot, dash,
    underscore, colon or hash).
    """
    return (
        0 < len(text) <= 200
        and not any(c.isspace() or is_cjk(c) for c in text)
        and any(c.isalnum() for c in text)
        and any(c.isdigit() or c in "/\\.-_:#" for c in text)
    )


def _string_kind(
    name_words: set[str], fill: Mapping[str, Any], description: str, example: str | None
) -> SlotKind:
    if fill.get("format") == "date":
        return "date"
    if fill.get("format") == "date-time":
        return "datetime"
    if fill.get("format") == "time":
        return "time"
    if fill.get("format") in ("email", "idn-email") or name_words & EMAIL_NAME_WORDS:
        return "email"
    if _mentions(description, EMAIL_DESCRIPTION_CUES):
        return "email"
    if name_words & EXPRESSION_NAME_WORDS or _mentions(description, EXPRESSION_DESCRIPTION_CUES):
        return "expression"
    if name_words & PLACE_NAME_WORDS or _mentions(description, PLACE_DESCRIPTION_CUES):
        return "place"
    if name_words & DATE_NAME_WORDS or _mentions(description, DATE_DESCRIPTION_CUES):
        return "date"
    if fill.get("format") in ("uri", "uri-reference", "iri", "uuid") or (
        name_words & IDENTIFIER_NAME_WORDS
    ):
        return "identifier"
    if example is not None and looks_like_identifier(example):
        return "identifier"  # the e.g. hint shows the shape of the value (A-1)
    return "text"


def slot_of(name: str, schema: Any, *, required: bool) -> Slot:
    """Describe one parameter (see :class:`Slot`)."""
    full: Mapping[str, Any] = schema if isinstance(schema, Mapping) else {}
    fill = fill_schema(full)
    description = fill.get("description") or full.get("description") or ""
    description = description if isinstance(description, str) else ""
    words = tuple(english_words(name))
    name_words = set(words)
    example = _example(description)
    cues = tuple(dict.fromkeys([*words, *(c for w in words for c in NUMBER_CUES.get(w, ()))]))
    base = Slot(
        name=name,
        schema=full,
        fill=fill,
        required=required,
        kind="text",
        example=example,
        example_language=_example_language(example),
        words=words,
        cues=cues,
    )
    if isinstance(fill.get("enum"), list) and fill["enum"]:
        return replace(base, kind="choice", options=tuple(fill["enum"]), explicit=True)
    if "const" in fill:
        return replace(base, kind="choice", options=(fill["const"],), explicit=True)
    declared = fill.get("type")
    if declared in ("boolean", "integer", "number", "array", "object", "null"):
        return replace(base, kind=declared)
    options = _described_options(description)
    if options:
        return replace(base, kind="choice", options=options)
    return replace(base, kind=_string_kind(name_words, fill, description, example))


def parameter_slots(parameters: Any) -> list[Slot]:
    """Describe every property of a ``parameters`` object, required ones first, in order.

    Local ``$ref`` schemas are read as the schemas they point to. Names in ``required``
    without a property get a slot too (any value is valid for them).
    """
    if not isinstance(parameters, Mapping):
        return []
    try:
        # Not sorted: the declared order of properties matters (from/to take places in order).
        key = json.dumps(parameters, ensure_ascii=False)
    except (TypeError, ValueError):
        return _slots(inline_refs(parameters))
    return list(_cached_slots(key))


@cache_short_keys(512, max_chars=16 * 1024)
def _cached_slots(parameters_json: str) -> tuple[Slot, ...]:
    # Slots hold the schema they were read from; a decoded copy keeps the cache immutable.
    return tuple(_slots(inline_refs(json.loads(parameters_json))))


def _slots(parameters: Mapping[str, Any]) -> list[Slot]:
    properties = parameters.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required_list = parameters.get("required")
    required = [r for r in required_list or [] if isinstance(r, str)]
    names = list(dict.fromkeys([*properties, *required]))
    slots = [slot_of(n, properties.get(n, {}), required=n in required) for n in names]
    return sorted(slots, key=lambda slot: not slot.required)
