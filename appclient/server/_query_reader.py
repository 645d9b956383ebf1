"""Reading a user's query for one tool: values found and used up one by one (pure).

A :class:`QueryReader` holds the query as one tool sees it. Each method looks for one kind
of value (an enum member or a synonym of one, dates, places, email addresses, a number tied
to a parameter, a yes/no, quoted text, the free-text subject) and blanks out the text it
used, so the argument filler never reads the same words twice. The tool's own words (its
name and description) count as framing, which is what lets :meth:`QueryReader.span` find
the subject: ``查找张三的信息`` read for a tool described as ``查找公司内指定人员的信息``
leaves ``张三``.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from typing import Any

from .._limits import cache_short_keys
from ._argument_tables import VALUE_SYNONYMS
from ._parameter_slots import Slot
from ._place_names import PlaceMention, find_places, lookup_place
from ._query_values import (
    detect_language,
    find_dates,
    find_identifiers,
    find_numbers,
    find_quoted,
    find_times,
    is_cjk,
    shape_of,
)
from ._schema_fit import fits_schema
from ._text_terms import (
    CONCEPTS,
    FILLER_PHRASES,
    GENERIC_TERMS,
    STOPWORDS,
    concepts_in,
    english_words,
    text_terms,
)

__all__ = ["NOTHING", "QueryReader", "search_word"]

#: What a reader method returns when the query holds no such value.
NOTHING: Any = object()

_NEGATION = re.compile(r"不|没|别|无需|不要|don't|do not|not|no|without", re.IGNORECASE)
_BOOLEAN_NOISE = frozenset(
    {
        "is",
        "has",
        "include",
        "enable",
        "use",
        "with",
        "show",
        "should",
        "allow",
        "need",
        "flag",
        "get",
        "do",
        "want",
    }
)
_EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-.]*|[\u4e00-\u9fff]|\s+|.", re.DOTALL)
#: How far (in characters) a cue word may sit from the number it ties to a parameter.
_CUE_REACH = 8
_EDGE_PARTICLES = frozenset("的了吗呢吧啊呀是在和与及把给我你他她它们个在于")
_CAPITALISED_PLACE = re.compile(
    r"(?<![A-Za-z])(?:in|at|for|from|to|of|near)\s+([A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3})"
)
_SUFFIXED_PLACE = re.compile(r"[\u4e00-\u9fff]{2,4}?[市省县区州镇]")
_NOT_PLACES = frozenset(
    {
        *(
            w.capitalize()
            for w in (
                "celsius",
                "fahrenheit",
                "kelvin",
                "english",
                "chinese",
                "today",
                "tomorrow",
                "yesterday",
                "monday",
                "tuesday",
                "wednesday",
                "thursday",
                "friday",
                "saturday",
                "sunday",
            )
        )
    }
)


def _surfaces(option: Any) -> tuple[str, ...]:
    if isinstance(option, bool) or not isinstance(option, (str, int, float)):
        return ()
    return _surfaces_of(option)


@cache_short_keys(1024)
def _surfaces_of(option: str | int | float) -> tuple[str, ...]:
    text = str(option)
    forms = {text, text.replace("_", " ")}
    for spellings in VALUE_SYNONYMS.values():
        if text.lower() in spellings:
            forms.update(spellings)
            break
    place = lookup_place(text)
    if place is not None:
        forms.update((place.zh, place.en, *place.aliases))
    return tuple(f for f in forms if len(f) >= 2 or (f and not f.isalnum()))


@cache_short_keys(1024)
def _labelled_pattern(label: str) -> re.Pattern[str]:
    before = r"(?<![A-Za-z0-9])" if label[0].isascii() else ""
    return re.compile(
        before + re.escape(label) + r"\s*(?:是|为|:|：|=|\bis\b)\s*([^，,。；;！!？?\n]+)",
        re.IGNORECASE,
    )


def search_word(surface: str, text: str) -> re.Match[str] | None:
    """Find ``surface`` in ``text`` as a whole word (any case), or a CJK word anywhere."""
    return _surface_pattern(surface).search(text)


@cache_short_keys(4096)
def _surface_pattern(surface: str) -> re.Pattern[str]:
    """A word written as a whole word: ``celsius`` is not found inside ``celsiusx``."""
    if any(is_cjk(c) for c in surface):
        return re.compile(re.escape(surface))
    before = r"(?<![A-Za-z0-9])" if surface[0].isalnum() else ""
    after = r"(?![A-Za-z0-9])" if surface[-1].isalnum() else ""
    return re.compile(before + re.escape(surface) + after, re.IGNORECASE)


@cache_short_keys(512)
def _tool_vocabulary(tool_text: str) -> tuple[frozenset[str], frozenset[str], tuple[str, ...]]:
    """The tool's own words: English words, CJK pairs to cover, and phrases to cover."""
    terms = text_terms(tool_text) if tool_text else frozenset()
    concept_forms = [f for c in sorted(concepts_in(tool_text)) for f in CONCEPTS[c]]
    words = {t for t in terms if t.isascii() and not t.startswith("#")}
    words.update(w for f in concept_forms if f.isascii() for w in english_words(f))
    cover = {t for t in terms if len(t) == 2 and all(is_cjk(c) for c in t)} | GENERIC_TERMS
    phrases = (*FILLER_PHRASES, *(f for f in concept_forms if not f.isascii()))
    return frozenset(words), frozenset(cover), phrases


@lru_cache(maxsize=1)
def _all_concept_words() -> tuple[frozenset[str], tuple[str, ...]]:
    forms = [f for group in CONCEPTS.values() for f in group]
    words = frozenset(w for f in forms if f.isascii() for w in english_words(f))
    return words, tuple(f for f in forms if not f.isascii())


@cache_short_keys(1024)
def _cue_pattern(cue: str) -> re.Pattern[str]:
    """A cue as a whole word; cues are stems (``passenger``), so an English plural counts."""
    if not cue.isascii() or not cue[-1].isalpha():
        return _surface_pattern(cue)
    before = r"(?<![A-Za-z0-9])" if cue[0].isalnum() else ""
    return re.compile(before + re.escape(cue) + r"(?:e?s)?(?![A-Za-z0-9])", re.IGNORECASE)


def _cue_distance(text: str, start: int, end: int, cues: tuple[str, ...]) -> int | None:
    """How many characters lie between a number and its nearest cue word, if one is close."""
    distances = []
    for cue in cues:
        # The reach is the gap between number and cue, so the windows also hold the cue.
        reach = _CUE_REACH + len(cue)
        after = _cue_pattern(cue).search(text[end : end + reach + 2])
        if after is not None and after.start() <= _CUE_REACH:
            distances.append(after.start())
        before = text[max(0, start - reach) : start]
        matches = [
            m for m in _cue_pattern(cue).finditer(before) if len(before) - m.end() <= _CUE_REACH
        ]
        if matches:
            distances.append(len(before) - matches[-1].end())
    return min(distances) if distances else None


class QueryReader:
    """The query as one tool sees it, with each value used so far blanked out.

    Args:
        query: The query (or the part of it meant for this tool).
        today: The date relative words count from.
        tool_text: The tool's name, description and parameter names.
    """

    def __init__(self, query: str, *, today: dt.date, tool_text: str) -> None:
        self.chars = list(query)
        self.query = query
        self.today = today
        self.language = detect_language(query)
        self.tool_words, self.cover, self.phrases = _tool_vocabulary(tool_text)
        self.spans_read = 0

    @property
    def text(self) -> str:
        """The query with every value used so far blanked out (same length)."""
        return "".join(self.chars)

    def take(self, start: int, end: int) -> None:
        """Blank out ``[start, end)``: those characters are used."""
        self.chars[start:end] = " " * (end - start)

    def choice(self, options: tuple[Any, ...]) -> Any:
        """Return (and use up) the option the text names first, by value or synonym."""
        text = self.text
        best: tuple[int, int, Any] | None = None
        for option in options:
            for surface in _surfaces(option):
                match = search_word(surface, text)
                if match and (best is None or match.start() < best[0]):
                    best = (match.start(), match.end(), option)
            if not isinstance(option, bool) and isinstance(option, (int, float)):
                for number in find_numbers(text):
                    if number.value == option and (best is None or number.start < best[0]):
                        best = (number.start, number.end, option)
        if best is None:
            return NOTHING
        self.take(best[0], best[1])
        return best[2]

    def dates(self) -> list[dt.date]:
        """Return (and use up) every date the text names."""
        found = find_dates(self.text, today=self.today)
        for item in found:
            self.take(item.start, item.end)
        return [item.value for item in found]

    def times(self) -> list[dt.time]:
        """Return (and use up) every clock time the text names."""
        found = find_times(self.text)
        for item in found:
            self.take(item.start, item.end)
        return [item.value for item in found]

    def places(self) -> list[PlaceMention | str]:
        """Return (and use up) the places in the text: known ones, else one unknown name."""
        text = self.text
        mentions = find_places(text)
        if mentions:
            for mention in mentions:
                self.take(mention.start, mention.end)
            return list(mentions)
        for pattern in (_CAPITALISED_PLACE, _SUFFIXED_PLACE):
            for match in pattern.finditer(text):
                group = match.lastindex or 0
                value = match.group(group).strip()
                if value in _NOT_PLACES or any(w in value for w in ("哪", "这", "那", "城市")):
                    continue
                self.take(match.start(group), match.end(group))
                return [value]
        # A place outside the table: what is left once framing and topic words are gone.
        span = self.span(all_concepts=True)
        short = span and (len(span) <= 8 if is_cjk(span[0]) else len(span.split()) <= 4)
        # One character left over (那 of 那明天呢) is a pronoun or a particle, never a place.
        return [span] if short and len(span) > 1 else []

    def numbers(self, slot: Slot, *, tied_only: bool) -> Any:
        """Return (and use up) a number for ``slot``: the one a cue word sits closest to.

        With ``tied_only`` false and no cue nearby, the first number of the right type will
        do.
        """
        text = self.text.lower()
        # Only the type must match here; bounds are applied later by clamping (50 -> max 10).
        wanted_type = {"type": slot.fill.get("type", "number")}
        candidates = [n for n in find_numbers(self.text) if fits_schema(n.value, wanted_type)]
        best: tuple[int, Any] | None = None
        for number in candidates:
            distance = _cue_distance(text, number.start, number.end, slot.cues)
            if distance is not None and (best is None or distance < best[0]):
                best = (distance, number)
        chosen = best[1] if best else (None if tied_only or not candidates else candidates[0])
        if chosen is None:
            return NOTHING
        self.take(chosen.start, chosen.end)
        return chosen.value

    def boolean(self, slot: Slot) -> Any:
        """Return True when the text names the slot's subject, False when it negates it."""
        text = self.text
        for word in (w for w in slot.words if w not in _BOOLEAN_NOISE and len(w) > 2):
            match = search_word(word, text)
            if match:
                before = text[max(0, match.start() - 12) : match.start()]
                return not _NEGATION.search(before)
        return NOTHING

    def emails(self) -> list[str]:
        """Return (and use up) every email address in the text."""
        found = list(_EMAIL.finditer(self.text))
        for match in found:
            self.take(match.start(), match.end())
        return [match.group() for match in found]

    def identifier(self, slot: Slot) -> Any:
        """Return (and use up) the id, path or URL the text gives ``slot``, whole.

        A token shaped like the parameter's example (``e.g. A-1`` finds ``B-7``) wins; else
        the first URL for a URL parameter, the first path for a path or file parameter, and
        the first token of any of these kinds otherwise.
        """
        found = find_identifiers(self.text)
        if not found:
            return NOTHING
        wanted = set(slot.words)
        preferred: tuple[str, ...]
        if wanted & {"url", "uri", "link", "href"}:
            preferred = ("url",)
        elif wanted & {"path", "file", "filename", "filepath", "dir", "directory", "folder"}:
            preferred = ("path", "id")
        else:
            preferred = ("id", "path", "url")
        example = shape_of(slot.example) if slot.example else None
        ranked = sorted(
            (item for item in found if item.value[0] in preferred),
            key=lambda item: (
                example is None or shape_of(item.value[1]) != example,
                preferred.index(item.value[0]),
                item.start,
            ),
        )
        if not ranked:
            return NOTHING
        best = ranked[0]
        self.take(best.start, best.end)
        return best.value[1]

    def labelled(self, labels: tuple[str, ...]) -> Any:
        """Return (and use up) the value a label introduces (``主题是X``, ``subject: X``).

        The value runs to the end of its clause; the first label found in the text wins.
        """
        text = self.text
        best: re.Match[str] | None = None
        for label in labels:
            match = _labelled_pattern(label).search(text)
            if match and match.group(1).strip() and (best is None or match.start() < best.start()):
                best = match
        if best is None:
            return NOTHING
        self.take(best.start(), best.end())
        return best.group(1).strip().strip("\"'“”‘’「」")

    def quoted(self, *, limit: int | None = None) -> list[str]:
        """Return (and use up) the quoted pieces of text: every one, or the first ``limit``."""
        found = find_quoted(self.text)[:limit]
        for item in found:
            self.take(item.start, item.end)
        return [str(item.value) for item in found]

    def span(self, *, all_concepts: bool = False) -> str:
        """Return the longest stretch of the text that is not framing, tool words or used.

        Args:
            all_concepts: Also treat every topic word (weather, 天气, ...) as framing, for
                values such as places that are never a topic.
        """
        self.spans_read += 1
        text = self.text
        covered = [False] * len(text)
        for index in range(len(text) - 1):
            if text[index : index + 2] in self.cover:
                covered[index] = covered[index + 1] = True
        phrases = self.phrases
        known_words = self.tool_words
        if all_concepts:
            concept_words, concept_phrases = _all_concept_words()
            phrases = (*phrases, *concept_phrases)
            known_words = known_words | concept_words
        for phrase in phrases:
            for match in re.finditer(re.escape(phrase), text):
                covered[match.start() : match.end()] = [True] * (match.end() - match.start())
        runs: list[str] = []
        current: list[str] = []
        for match in _TOKEN.finditer(text):
            token = match.group()
            if token.isspace():
                current.append(" ")
                continue
            lowered = english_words(token)
            marked = (
                any(covered[match.start() : match.end()])
                or not (token[0].isalnum() or is_cjk(token[0]))
                or bool(lowered and all(w in STOPWORDS or w in known_words for w in lowered))
            )
            if marked:
                runs.append("".join(current))
                current = []
            else:
                current.append(token)
        runs.append("".join(current))
        cleaned = [self._trim(run) for run in runs]
        return max(cleaned, key=lambda run: len(run.replace(" ", "")), default="")

    @staticmethod
    def _trim(run: str) -> str:
        run = run.strip()
        while run and (run[0] in _EDGE_PARTICLES or run[0].isspace()):
            run = run[1:]
        while run and (run[-1] in _EDGE_PARTICLES or run[-1].isspace()):
            run = run[:-1]
        return run
