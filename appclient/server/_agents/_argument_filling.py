"""Fill a tool's arguments from a user's query, guided by the parameters' schema (pure).

Each parameter wants one kind of value (from its type, name and description) and each value
the query states (:func:`._query_text.find_values`) goes to one parameter of its kind; free
text gets what is left once the tool's own words and filler are gone. A required parameter
without a value is guessed (an id, a path or a URL is unsure: only the user can give it).
Several places for a tool's one place parameter make parallel calls, one per place.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .._settings import RULE_AGENT_MAX_PARALLEL_CALLS
from ._query_text import (
    Found,
    Language,
    Place,
    detect_language,
    english_words,
    find_values,
    is_cjk,
    lookup_place,
    place_name,
    shape_of,
)
from ._schema_fit import fits_schema, inline_refs, value_for_schema

#: Kinds of string parameter by name words and description words, first match wins.
_STRING_KINDS = tuple(
    (kind, tuple(names.split()), tuple(cues.split()))
    for kind, names, cues in (
        ("email", "email mail", "邮箱 e-mail email"),
        ("identifier", "id sku path file filename url uri link", "路径 链接"),
        ("expression", "expression expr formula", "表达式 算式 expression"),
        (
            "place",
            "location city place address region country province origin destination "
            "departure arrival",
            "城市 地点 位置 地区 市名 省 city location",
        ),
        ("date", "date day", "日期"),
    )
)
_TYPE_KINDS = {
    "integer": "number",
    "number": "number",
    "array": "array",
    "boolean": "boolean",
    "object": "object",
}
_FORMAT_KINDS = {
    "date": "date",
    "date-time": "date",
    "email": "email",
    "uri": "identifier",
    "url": "identifier",
}
_ID_KINDS = {"token", "path", "url"}
#: The order parameters take values in: exact kinds before the free text that takes the rest.
_ORDER = (
    "choice",
    "date",
    "email",
    "identifier",
    "expression",
    "place",
    "number",
    "array",
    "boolean",
    "object",
    "other",
    "text",
)
#: As many as there are.
_EVERY = 1 << 16
#: Longest schema text whose reading is kept (a bound on the slot cache's memory).
_MAX_CACHED_SCHEMA = 16 * 1024
_NEGATIONS = frozenset({"no", "not", "without", "don't", "dont", "never"})
#: A place's role, from the words before it (to Tokyo) or a parameter's name and description.
_ROLES = (
    ("to", re.compile(r"(?:\bto|去|到|飞往|前往)\s*$|destination|arrival|目的")),
    ("from", re.compile(r"(?:\bfrom|从)\s*$|origin|departure|出发")),
)
#: Words of a flag's name that say nothing of what it turns on.
_FLAG_WORDS = frozenset({"include", "is", "enable", "enabled", "use", "with", "show", "has"})
#: Ways people write common choices (an enum member matches its own name and these).
_SYNONYMS = {
    "celsius": ("celsius", "centigrade", "°c", "℃", "摄氏"),
    "fahrenheit": ("fahrenheit", "°f", "℉", "华氏"),
    "en": ("english", "英文", "英语"),
    "zh": ("chinese", "中文", "汉语"),
    "asc": ("ascending", "升序", "从低到高", "从小到大"),
    "desc": ("descending", "降序", "从高到低", "从大到小"),
}
_EXAMPLE = re.compile(
    r"(?:例如|举例|比如|e\.g\.|for example|such as)[：:,\s]*[\"'“]?"
    r"(.+?)(?:[\"'”,，。;；]|\.(?:\s|$)|$)",
    re.IGNORECASE,
)
#: Filler words that never name what a query is about, trimmed from the ends of a run.
_FILLER = (
    "请问|请|帮我|帮忙|麻烦|一下|看看|告诉我|我想|想知道|知道|查一查|查查|查询|查找|搜索|怎么样|怎样|"
    "怎么|如何|什么|哪天|哪里|多少|是不是|是|的|吗|呢|吧|啊|了|那|这|谁|给我|我|你|现在|今天|明天|天气"
)
_FILLER_EDGES = re.compile(f"^(?:{_FILLER})+|(?:{_FILLER})+$")
_ENGLISH_FILLER = frozenset(
    re.findall(
        r"\w+",
        "what whats s is are was the a an of to in on at for and or please me my you your tell "
        "show give find look up about can could would do does how who which when there it this "
        "that i need want know weather",
    )
)


@dataclass(frozen=True)
class ArgumentPlan:
    """The arguments a query gives for one tool.

    Attributes:
        calls: One argument set per call (one per place when the query names several).
        from_query: The parameters whose values the query supplied.
        guessed: The required parameters filled without a value from the query.
        weak: Those in ``from_query`` filled only from leftover free text (no reason to call
            a tool again in a follow-up).
        unsure: Those in ``guessed`` no guess may fill (an id, a path, a URL).
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


@dataclass(frozen=True)
class _Slot:
    name: str
    schema: Mapping[str, Any]
    required: bool
    kind: str
    options: tuple[Any, ...]
    example: str | None
    language: Language | None  # the script its examples ask place names in
    role: str | None  # "to" or "from" when the parameter is one end of a trip


def _main_schema(schema: Any) -> Mapping[str, Any]:
    """The non-null branch of a nullable schema (``anyOf`` with null, or a type list)."""
    if not isinstance(schema, Mapping):
        return {}
    for key in ("anyOf", "oneOf"):
        branches = [b for b in schema.get(key) or () if isinstance(b, Mapping)]
        real = [b for b in branches if b.get("type") != "null"]
        if real:
            return {**schema, **real[0]}
    return schema


def _slot(name: str, schema: Mapping[str, Any], *, required: bool) -> _Slot:
    main = _main_schema(schema)
    description = str(main.get("description") or "")
    types = main.get("type")
    kind_type = next((t for t in types if t != "null"), None) if isinstance(types, list) else types
    example = match.group(1).strip() if (match := _EXAMPLE.search(description)) else None
    options: tuple[Any, ...] = ()
    if isinstance(main.get("enum"), list):
        options = tuple(main["enum"])
    elif "const" in main:
        options = (main["const"],)
    elif len(quoted := re.findall(r"[\"'“]([^\"'”]+)[\"'”]", description)) >= 2:
        options = tuple(quoted)
    if options:
        kind = "choice"
    elif kind_type not in (None, "string"):
        kind = _TYPE_KINDS.get(str(kind_type), "other")
    elif (fmt := str(main.get("format"))) in _FORMAT_KINDS:
        kind = _FORMAT_KINDS[fmt]
    elif example and {f.kind for f in find_values(example, today=dt.date.min)[:1]} & _ID_KINDS:
        kind = "identifier"  # an example shaped like an id (ORD-2024-0001) makes it one
    else:
        words, lowered = english_words(name), description.lower()
        kind = next(
            (
                k
                for k, names, cues in _STRING_KINDS
                if any(w in names for w in words) or any(c in lowered for c in cues)
            ),
            "text",
        )
    language, role = _example_language(main), _role(f"{name} {description}")
    return _Slot(name, schema, required, kind, options, example, language, role)


def _slots(parameters: Any) -> tuple[_Slot, ...]:
    # Every decision reads each tool's slots again; the schema's text is the key.
    try:
        key = json.dumps(parameters)
    except (TypeError, ValueError):
        return ()
    return _read_slots(key) if len(key) <= _MAX_CACHED_SCHEMA else _read_slots.__wrapped__(key)


@lru_cache(maxsize=256)
def _read_slots(key: str) -> tuple[_Slot, ...]:
    parameters = inline_refs(json.loads(key))
    if not isinstance(parameters, Mapping) or not isinstance(parameters.get("properties"), Mapping):
        return ()
    required = parameters.get("required")
    needed = set(required) if isinstance(required, list) else set()
    return tuple(
        _slot(name, schema if isinstance(schema, Mapping) else {}, required=name in needed)
        for name, schema in parameters["properties"].items()
        if isinstance(name, str)
    )


def parameter_kinds(parameters: Any) -> frozenset[str]:
    """The kinds of value a tool's parameters want (``place``, ``date``, ``choice``, ...)."""
    return frozenset(slot.kind for slot in _slots(parameters))


def _surfaces(option: Any) -> tuple[str, ...]:
    """How a query may write ``option``: itself, its synonyms, its place names."""
    text = str(option).lower()
    words = [
        word
        for key, synonyms in _SYNONYMS.items()
        if text == key or text.startswith(f"{key}-") or any(w in text for w in synonyms)
        for word in synonyms
    ]
    place = lookup_place(str(option))
    names = (place.zh, place.en, *place.aliases) if place else ()
    return (text, *words, *(name.lower() for name in names))


def _choices(options: tuple[Any, ...], text: str) -> list[tuple[int, int, Any]]:
    """Every option ``text`` names, as ``(start, end, option)`` in the order written."""
    lowered = text.lower()
    found = []
    for option in options:
        for surface in filter(None, _surfaces(option)):
            # An English surface is a whole word: the "c" of "cat" is no celsius.
            pattern = rf"(?<![a-z]){re.escape(surface)}(?![a-z])" if surface.isascii() else None
            match = re.search(pattern or re.escape(surface), lowered)
            if match:
                found.append((match.start(), match.end(), option))
                break
    return sorted(found, key=lambda hit: hit[0])


def _role(text: str) -> str | None:
    """``"to"`` or ``"from"`` when ``text`` (a parameter's name, or words before a place) says."""
    return next((role for role, pattern in _ROLES if pattern.search(text)), None)


def _example_language(schema: Mapping[str, Any]) -> Language | None:
    # Examples in one script ask for names in it (举例：北京 wants 东京); mixed ones do not.
    examples = " ".join(m.group(1) for m in _EXAMPLE.finditer(str(schema.get("description"))))
    if not examples or (re.search("[A-Za-z]", examples) and detect_language(examples) == "zh"):
        return None
    return detect_language(examples)


def _free_text(text: str, tool_text: str) -> str:
    """The longest run of ``text`` left once the tool's words and filler words are gone."""
    tool_pairs = {tool_text[i : i + 2] for i in range(len(tool_text) - 1)}
    framing = set(english_words(tool_text)) | _ENGLISH_FILLER
    kept = list(text)
    for i in range(len(text) - 1):
        if is_cjk(text[i]) and text[i : i + 2] in tool_pairs:
            kept[i] = kept[i + 1] = " "
    runs = re.split(
        r"[\s,，。.!！?？:：;；、\"'“”()（）]{2,}|[,，。!！?？:：;；、\"“”()（）]", "".join(kept)
    )
    return max((_trimmed(run, framing) for run in runs), key=len, default="")


def _trimmed(run: str, framing: set[str]) -> str:
    """``run`` without filler at its ends: 量子计算的最新进展 keeps its 的, 请问张三 loses 请问."""
    while True:
        words = _FILLER_EDGES.sub("", run).strip().split(" ")
        while words and set(english_words(words[0]) or [""]) <= framing:
            words.pop(0)
        while words and set(english_words(words[-1]) or [""]) <= framing:
            words.pop()
        trimmed = " ".join(words).strip()
        if trimmed == run:
            return run
        run = trimmed


def _fitted(slot: _Slot, preferred: Any, today: dt.date) -> Any:
    wanted = {} if preferred is None else {"preferred": preferred}
    value = value_for_schema(slot.schema, today=today, **wanted)
    if not fits_schema(value, slot.schema) and slot.example is not None:
        fitting = value_for_schema(slot.schema, preferred=slot.example, today=today)
        if fits_schema(fitting, slot.schema):
            return fitting
    return value


class _Reading:
    """The query's values for one tool, each handed to one parameter at most."""

    def __init__(self, query: str, today: dt.date) -> None:
        self.query = query
        self.today = today
        self.unused = find_values(query, today=today)
        self.used: list[tuple[int, int]] = []

    def choose(self, options: tuple[Any, ...], *, most: int = 1) -> list[tuple[int, int, Any]]:
        hits = _choices(options, self.rest())[:most]
        self.used += [(start, end) for start, end, _ in hits]
        return hits

    def take(
        self, *kinds: str, shape: str | None = None, most: int = 1, role: str | None = None
    ) -> list[Found]:
        found = [f for f in self.unused if f.kind in kinds]
        if role is not None:
            # A from-place never fills a to-parameter, nor the other way round; a place of
            # the parameter's own role comes first.
            roles = {id(f): _role(self.query[max(0, f.start - 6) : f.start]) for f in found}
            found = [f for f in found if roles[id(f)] in (None, role)]
            found.sort(key=lambda f: roles[id(f)] != role)
        if shape is not None:
            found = [f for f in found if shape_of(str(f.value)) == shape] or found
        found = found[:most]
        for item in found:
            self.unused.remove(item)
            self.used.append((item.start, item.end))
        return found

    def rest(self) -> str:
        text = list(self.query)
        for start, end in self.used:
            text[start:end] = " " * (end - start)
        return "".join(text)


def _evidence(slot: _Slot, reading: _Reading, *, max_calls: int) -> list[Any]:
    """The values the query gives ``slot``: usually one, one per place for a place."""
    kind = slot.kind
    if kind == "choice":
        return [option for *_, option in reading.choose(slot.options)]
    if kind == "date":
        clock = "T00:00:00" if _main_schema(slot.schema).get("format") == "date-time" else ""
        return [f.value.isoformat() + clock for f in reading.take("date")]
    if kind in ("email", "expression", "number"):
        return [f.value for f in reading.take(kind)]
    if kind == "text":
        return [f.value for f in reading.take("quoted")]
    if kind == "identifier":
        shape = shape_of(slot.example) if slot.example else None
        found = reading.take("url", "path", "token", "quoted", "number", shape=shape)
        return [str(f.value) for f in found]
    if kind == "place":
        return [
            place_name(f.value, slot.language, written=reading.query[f.start : f.end])
            for f in reading.take("place", most=max_calls, role=slot.role)
        ]
    if kind == "boolean":
        # A flag the query names (include_forecast: "include the forecast") is asked for.
        words = [w for w in english_words(slot.name) if w not in _FLAG_WORDS]
        query = english_words(reading.query)
        if not words or not all(w in query for w in words):
            return []
        return [not any(w in _NEGATIONS for w in query[: query.index(words[0])])]
    if kind == "object":
        nested = plan_arguments(slot.schema, reading.rest(), today=reading.today, max_calls=1)
        return [nested.arguments] if nested.from_query else []
    if kind == "array":
        items = _main_schema(slot.schema.get("items"))
        if isinstance(items.get("enum"), list):
            values = [option for *_, option in reading.choose(tuple(items["enum"]), most=_EVERY)]
        elif items.get("type") in ("integer", "number"):
            values = [f.value for f in reading.take("number", most=_EVERY)]
        else:
            values = [
                place_name(f.value, None, written=reading.query[f.start : f.end])
                if isinstance(f.value, Place)
                else f.value
                for f in reading.take("place", "quoted", most=_EVERY)
            ]
        return [values] if values else []
    return []


def plan_arguments(
    parameters: Any,
    query: str,
    *,
    today: dt.date | None = None,
    tool_text: str = "",
    max_calls: int = RULE_AGENT_MAX_PARALLEL_CALLS,
) -> ArgumentPlan:
    """Fill one tool's arguments from ``query`` (see the module docs), at most ``max_calls`` sets.

    The words of ``tool_text`` (the tool's name and description) are not the query's subject.
    """
    day = today or dt.date.today()
    slots = _slots(parameters)
    reading = _Reading(query, day)
    values: dict[str, Any] = {}
    fan_out: list[Any] = []
    weak: set[str] = set()
    places = [s for s in slots if s.kind == "place"]
    for slot in sorted(slots, key=lambda s: _ORDER.index(s.kind)):
        found = _evidence(slot, reading, max_calls=max(1, max_calls) if len(places) == 1 else 1)
        if (
            not found
            and (slot.kind == "place" or (slot.kind == "text" and slot.required))
            and len([s for s in slots if s.kind in ("text", "place") and s.name not in values]) == 1
        ):
            # The one free-text parameter takes what is left: 查找张三的信息 gives 张三.
            found = [rest] if (rest := _free_text(reading.rest(), tool_text)) else []
            weak.update(slot.name for _ in found)
        if found:
            values[slot.name] = _fitted(slot, found[0], day)
            if slot.kind == "place" and len(found) > 1:
                fan_out = [(slot, value) for value in found]
    guessed = {s.name for s in slots if s.required and s.name not in values}
    from_query = frozenset(values)
    for slot in slots:
        if slot.name in guessed:
            # The schema's default, else its first option (a unit is celsius unless asked).
            default = slot.schema.get("default", slot.options[0] if slot.options else None)
            values[slot.name] = _fitted(slot, default, day)
    ordered = {s.name: copy.deepcopy(values[s.name]) for s in slots if s.name in values}
    calls = [{**ordered, slot.name: _fitted(slot, v, day)} for slot, v in fan_out] or [ordered]
    unsure = {s.name for s in slots if s.kind == "identifier" and s.name in guessed}
    return ArgumentPlan(
        tuple(calls), from_query, frozenset(guessed), frozenset(weak), frozenset(unsure)
    )


def complete_arguments(
    parameters: Any,
    query: str,
    given: Mapping[str, Any],
    *,
    today: dt.date | None = None,
    tool_text: str = "",
) -> dict[str, Any]:
    """A copy of ``given``; ``query`` fills the one missing required input (protocol section 7)."""
    required = parameters.get("required") if isinstance(parameters, Mapping) else None
    missing = [n for n in required or [] if isinstance(n, str) and n not in given]
    result = dict(given)
    if len(missing) == 1:
        plan = plan_arguments(parameters, query, today=today, tool_text=tool_text, max_calls=1)
        result[missing[0]] = plan.arguments[missing[0]]
    return result
