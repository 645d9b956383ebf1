"""Fill a tool's arguments from a user's query, guided by the parameters' schema (pure).

For every parameter the filler looks in the query for the kind of value the schema asks for
(see :mod:`._parameter_slots`): an enum member or a common synonym of one (``摄氏度``, ``°C``,
``celsius``), a known place in the language the parameter's example uses, a date (``明天`` ->
ISO) or clock time (``下午三点`` -> ``15:00:00``), an email address, an arithmetic expression,
a number tied to the parameter by a nearby word (``3天``, ``top 5``), a yes/no, quoted text,
or, for a lone free-text parameter, the span of the query that names the subject
(``查找张三的信息`` -> ``张三``). Each value used is blanked out of the text so no word feeds
two parameters.

A parameter the query gives no evidence for is left out when optional; when required it
gets its schema default, else a sensible value from a small table of common names
(``unit`` -> ``celsius``, ``limit`` -> 1, ``date`` -> today), else a plain value of its type.
Every value is finally made valid against its schema, so calls are always complete.

When the query names several places for a tool with one place parameter ("Tokyo and
Paris", ``北京和上海``), the plan holds one set of arguments per place: parallel calls.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._argument_tables import (
    DESTINATION_NAME_WORDS,
    DESTINATION_TEXT,
    ORIGIN_NAME_WORDS,
    ORIGIN_TEXT,
    REQUIRED_DEFAULTS,
    TEXT_LABELS,
    VALUE_SYNONYMS,
    VOCABULARY_BY_NAME,
)
from ._parameter_slots import Slot, parameter_slots, slot_of
from ._place_names import PlaceMention, find_places, place_name
from ._query_reader import NOTHING, QueryReader
from ._query_values import find_expression
from ._schema_fit import fits_schema, value_for_schema
from ._settings import RULE_AGENT_MAX_PARALLEL_CALLS

__all__ = ["ArgumentPlan", "complete_arguments", "fill_arguments", "plan_arguments"]

#: The address a required email parameter gets when the query names none (a reserved domain).
_PLACEHOLDER_EMAIL = "user@example.com"

_ORDER = (
    "identifier",
    "choice",
    "date",
    "datetime",
    "time",
    "email",
    "expression",
    "place",
    "array",
    "integer",
    "number",
    "boolean",
    "object",
    "null",
    "text",
)


@dataclass(frozen=True)
class ArgumentPlan:
    """The arguments a query gives for one tool.

    Attributes:
        calls: One argument set per call: several when the query names several places for
            the tool's one place parameter, otherwise exactly one.
        from_query: Names of the parameters whose values the query supplied.
        guessed: Names of required parameters filled without evidence (default, table,
            type), so callers can tell a complete call from a well-founded one.
        unsure: Names in ``guessed`` that no guess may fill: an id, a path or a URL the
            query does not give. An agent asks for these instead of calling.
        weak: Names in ``from_query`` whose value is only what was left of the query once
            framing words were removed (an unknown place, a free-text subject).
    """

    calls: tuple[dict[str, Any], ...]
    from_query: frozenset[str]
    guessed: frozenset[str]
    weak: frozenset[str] = frozenset()
    unsure: frozenset[str] = frozenset()

    @property
    def arguments(self) -> dict[str, Any]:
        """The first (usually only) argument set."""
        return dict(self.calls[0])


def _concept_of(value: Any) -> str | None:
    lowered = str(value).lower()
    return next((c for c, forms in VALUE_SYNONYMS.items() if lowered in forms), None)


class _Filler:
    """Fills the slots of one parameters object from one reader."""

    def __init__(self, reader: QueryReader) -> None:
        self.reader = reader

    def evidence(self, slot: Slot, *, lone_text: bool) -> Any:
        """Return the value the query gives for ``slot`` (places are read apart), or NOTHING."""
        reader = self.reader
        kind = slot.kind
        if kind == "choice":
            return reader.choice(slot.options)
        if kind == "time":
            times = reader.times()
            return times[0].isoformat() if times else NOTHING
        if kind in ("date", "datetime"):
            dates = reader.dates()
            times = reader.times() if kind == "datetime" else []
            if not dates and not times:
                return NOTHING
            day = (dates[0] if dates else reader.today).isoformat()
            if kind == "date":
                return day
            return f"{day}T{(times[0] if times else dt.time()).isoformat()}"
        if kind == "identifier":
            value = reader.identifier(slot)
            if value is NOTHING:
                quoted = reader.quoted(limit=1)
                value = quoted[0] if quoted else NOTHING
            return value
        if kind == "email":
            addresses = reader.emails()
            return addresses[0] if addresses else NOTHING
        if kind == "expression":
            found = find_expression(reader.text)
            if found is None:
                return NOTHING
            reader.take(found.start, found.end)
            return found.value
        if kind in ("integer", "number"):
            return reader.numbers(slot, tied_only=not slot.required)
        if kind == "boolean":
            return reader.boolean(slot)
        if kind == "array":
            return self.array(slot)
        if kind == "object":
            nested = _fill(slot.fill, reader, max_calls=1)
            return nested.calls[0] if nested.from_query else NOTHING
        if kind == "text":
            vocabulary = next(
                (VOCABULARY_BY_NAME[w] for w in slot.words[::-1] if w in VOCABULARY_BY_NAME), ()
            )
            if vocabulary:
                value = reader.choice(vocabulary)
                if value is not NOTHING:
                    return value
            labelled = reader.labelled(_labels(slot))
            if labelled is not NOTHING:
                return labelled
            # One piece only: a second quote belongs to the next text parameter.
            quoted = reader.quoted(limit=1)
            if quoted:
                return quoted[0]
            takes_subject = not vocabulary and _default_of(slot) in ("#text", NOTHING)
            return (reader.span() or NOTHING) if lone_text and takes_subject else NOTHING
        return NOTHING

    def array(self, slot: Slot) -> Any:
        items = slot.fill.get("items")
        items = items if isinstance(items, Mapping) else {}
        described = {"description": slot.description, **items}
        item_slot = slot_of(slot.name, described, required=True)
        values: list[Any] = []
        if item_slot.kind == "place" or (item_slot.kind == "text" and not items.get("type")):
            found = self.reader.places() if find_places(self.reader.text) else []
            values = [_place_text(item, item_slot) for item in found]
        elif item_slot.kind == "choice":
            while (value := self.reader.choice(item_slot.options)) is not NOTHING:
                values.append(value)
        elif item_slot.kind in ("date", "datetime"):
            values = [d.isoformat() for d in self.reader.dates()]
        elif item_slot.kind == "email":
            values = self.reader.emails()
        elif item_slot.kind in ("integer", "number"):
            while (value := self.reader.numbers(item_slot, tied_only=False)) is not NOTHING:
                values.append(value)
        elif item_slot.kind == "text":
            values = self.reader.quoted()
        return values or NOTHING

    def default(self, slot: Slot) -> Any:
        """Return a value for a required ``slot`` the query says nothing about."""
        for source in (slot.fill, slot.schema):
            if "default" in source and fits_schema(source["default"], slot.schema):
                return source["default"]
        wanted = _default_of(slot)
        if wanted is NOTHING:
            wanted = {
                "place": "#place",
                "date": "#today",
                "datetime": "#today",
                "email": "#email",
                "expression": "#text",
                "text": "#text",
            }.get(slot.kind, NOTHING)
        value = self.resolve(wanted, slot)
        if slot.kind == "choice":
            concept = _concept_of(value) if value is not NOTHING else None
            matching = [o for o in slot.options if concept and _concept_of(o) == concept]
            value = (matching or [o for o in slot.options if o == value] or list(slot.options))[0]
        if slot.kind == "datetime" and isinstance(value, str) and len(value) == 10:
            value += "T00:00:00"
        return value

    def resolve(self, wanted: Any, slot: Slot) -> Any:
        reader = self.reader
        language = reader.language
        if wanted == "#language":
            return language
        if wanted == "#today":
            return reader.today.isoformat()
        if wanted == "#timezone":
            return "Asia/Shanghai" if language == "zh" else "UTC"
        if wanted == "#currency":
            return "CNY" if language == "zh" else "USD"
        if wanted == "#place":
            if slot.example:
                return slot.example
            return "北京" if (slot.example_language or language) == "zh" else "Beijing"
        if wanted == "#email":
            example = slot.example or ""
            return example if "@" in example else _PLACEHOLDER_EMAIL
        if wanted == "#text":
            return reader.span() or reader.query.strip() or (slot.example or "")
        return wanted


def _slot_role(slot: Slot) -> str | None:
    words = set(slot.words)
    if words & ORIGIN_NAME_WORDS:
        return "origin"
    return "destination" if words & DESTINATION_NAME_WORDS else None


def _mention_role(mention: PlaceMention | str, query: str) -> str | None:
    if isinstance(mention, str):
        return None
    before = query[max(0, mention.start - 8) : mention.start].lower()
    after = query[mention.end : mention.end + 4]
    for role, (ahead, behind) in (("origin", ORIGIN_TEXT), ("destination", DESTINATION_TEXT)):
        if re.search(ahead, before) or re.search(behind, after):
            return role
    return None


def _places_by_role(
    slots: list[Slot], places: list[PlaceMention | str], query: str
) -> list[PlaceMention | str | None]:
    """Order ``places`` to match ``slots``: the one after "from" goes to the origin slot.

    Places whose role the query does not mark keep their order in the remaining slots; a
    slot left without a place gets ``None`` (``flights to Tokyo`` names no origin).
    """
    left = list(places)
    chosen: list[PlaceMention | str | None] = []
    for slot in slots:
        role = _slot_role(slot)
        match = next((p for p in left if role and _mention_role(p, query) == role), None)
        if match is not None:
            left.remove(match)
        chosen.append(match)
    for index, item in enumerate(chosen):
        if item is None and left:
            chosen[index] = left.pop(0)
    return [*chosen, *left]


def _labels(slot: Slot) -> tuple[str, ...]:
    """How a query may name ``slot`` before its value: its name, words and Chinese labels."""
    words = [w for w in slot.words if len(w) > 2]
    chinese = [label for w in slot.words for label in TEXT_LABELS.get(w, ())]
    return tuple(dict.fromkeys([slot.name.replace("_", " "), *words, *chinese]))


def _place_text(item: PlaceMention | str, slot: Slot) -> str:
    """Name a found place in the language the slot's example uses."""
    if isinstance(item, str):
        return item
    return place_name(item.place, slot.example_language, written=item.text)


def _default_of(slot: Slot) -> Any:
    """The common-name table's value for ``slot`` ("#..." values are computed), or NOTHING."""
    names = ["_".join(slot.words), slot.name.lower(), *slot.words[::-1]]
    return next((REQUIRED_DEFAULTS[n] for n in names if n in REQUIRED_DEFAULTS), NOTHING)


def _fill(parameters: Any, reader: QueryReader, *, max_calls: int) -> ArgumentPlan:
    slots = parameter_slots(parameters)
    filler = _Filler(reader)
    text_slots = [s for s in slots if s.kind == "text"]
    values: dict[str, Any] = {}
    from_query: set[str] = set()
    fan_out: tuple[str, list[str]] | None = None
    place_slots = [s for s in slots if s.kind == "place"]
    ordered = sorted(slots, key=lambda s: (_ORDER.index(s.kind), not s.explicit))
    places: list[PlaceMention | str | None] | None = None
    weak: set[str] = set()
    places_weak = False
    for slot in ordered:
        spans_before = reader.spans_read
        if slot.kind == "place":
            if places is None:
                found = reader.places()
                places_weak = reader.spans_read > spans_before
                places = (
                    _places_by_role(place_slots, found, reader.query)
                    if len(place_slots) > 1
                    else list(found)
                )
            index = place_slots.index(slot)
            if len(place_slots) == 1 and len(places) > 1:
                named = [p for p in places[:max_calls] if p is not None]
                fan_out = (slot.name, [_place_text(p, slot) for p in named])
            # Several place parameters (from/to) take the places by role, else in order.
            place = places[index] if index < len(places) else None
            if place is None:
                continue
            value = _place_text(place, slot)
        else:
            lone = slot is (text_slots[0] if text_slots else None) and (
                len(text_slots) == 1 or slot.required
            )
            value = filler.evidence(slot, lone_text=lone)
            if value is NOTHING:
                continue
        value = _fitted(slot, value, reader.today)
        values[slot.name] = value
        from_query.add(slot.name)
        if reader.spans_read > spans_before or (slot.kind == "place" and places_weak):
            weak.add(slot.name)
    guessed: set[str] = set()
    for slot in slots:
        if slot.required and slot.name not in values:
            values[slot.name] = _fitted(slot, filler.default(slot), reader.today)
            guessed.add(slot.name)
    # Copies: values may come from a (cached) schema's enum or default, which must not be
    # shared with whoever receives the call.
    ordered_values = {
        s.name: copy.deepcopy(values[s.name])
        for s in _declared_order(parameters, slots)
        if s.name in values
    }
    calls: list[dict[str, Any]] = [ordered_values]
    if fan_out is not None:
        name, names = fan_out
        place_slot = next(s for s in slots if s.name == name)
        calls = []
        for place in dict.fromkeys(names):
            value = _fitted(place_slot, place, reader.today)
            calls.append({**ordered_values, name: value})
    unsure = {s.name for s in slots if s.kind == "identifier" and s.name in guessed}
    return ArgumentPlan(
        tuple(calls),
        frozenset(from_query),
        frozenset(guessed),
        frozenset(weak),
        frozenset(unsure),
    )


def _fitted(slot: Slot, preferred: Any, today: dt.date) -> Any:
    """``preferred`` made valid for ``slot``; its description's example when nothing near fits."""
    if preferred is NOTHING:
        value = value_for_schema(slot.schema, today=today)
    else:
        value = value_for_schema(slot.schema, preferred=preferred, today=today)
    example = slot.example
    if not fits_schema(value, slot.schema) and example is not None:
        fitting_example = value_for_schema(slot.schema, preferred=example, today=today)
        if fits_schema(fitting_example, slot.schema):
            return fitting_example
    return value


def _declared_order(parameters: Any, slots: list[Slot]) -> list[Slot]:
    properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
    order = list(properties) if isinstance(properties, Mapping) else []
    return sorted(slots, key=lambda s: order.index(s.name) if s.name in order else len(order))


def plan_arguments(
    parameters: Any,
    query: str,
    *,
    today: dt.date | None = None,
    tool_text: str = "",
    max_calls: int = RULE_AGENT_MAX_PARALLEL_CALLS,
) -> ArgumentPlan:
    """Fill the arguments of one tool from ``query`` (see the module docs).

    Args:
        parameters: The tool's JSON Schema ``parameters`` object.
        query: The user's query (or the part of it meant for this tool).
        today: The date relative words count from; defaults to today.
        tool_text: The tool's name and description; their words are not the subject of the
            query, which helps find the span a free-text parameter wants.
        max_calls: Most argument sets (parallel calls) to return.

    Returns:
        The plan: one or more complete argument sets, and which values were evidence.
    """
    reader = QueryReader(query, today=today or dt.date.today(), tool_text=tool_text)
    return _fill(parameters, reader, max_calls=max(1, max_calls))


def fill_arguments(
    parameters: Any, query: str, *, today: dt.date | None = None, tool_text: str = ""
) -> dict[str, Any]:
    """Return one complete argument set for a tool from ``query`` (the first of the plan)."""
    return plan_arguments(parameters, query, today=today, tool_text=tool_text).arguments


def complete_arguments(
    parameters: Any,
    query: str,
    given: Mapping[str, Any],
    *,
    today: dt.date | None = None,
    tool_text: str = "",
) -> dict[str, Any]:
    """Return ``given`` with its one missing required argument filled from ``query``.

    This is the ToolChoice rule (docs/protocol.md section 7): when exactly one required input is
    missing, the query fills it; otherwise ``given`` is returned as is (a copy).
    """
    required = parameters.get("required") if isinstance(parameters, Mapping) else None
    missing = [n for n in required or [] if isinstance(n, str) and n not in given]
    result = dict(given)
    if len(missing) != 1:
        return result
    plan = plan_arguments(parameters, query, today=today, tool_text=tool_text, max_calls=1)
    result[missing[0]] = plan.arguments[missing[0]]
    return result
