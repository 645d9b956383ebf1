from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from appclient.server._agents._query_text import (
    detect_language,
    find_values,
    lookup_place,
    place_name,
    split_clauses,
    terms,
)

TODAY = dt.date(2024, 5, 1)


@pytest.mark.parametrize(
    ("text", "expected"), [("北京天气", "zh"), ("weather in Tokyo", "en"), ("", "en")]
)
def test_language_is_chinese_when_any_ideograph_is_there(text: str, expected: str) -> None:
    """One Chinese character makes a text Chinese; anything else is English."""
    assert detect_language(text) == expected


def test_concepts_join_chinese_and_english_words() -> None:
    """天气 and "weather" share the term #weather, so a Chinese query finds an English tool."""
    assert "#weather" in terms("今天天气怎么样") & terms("get_current_weather")


def test_identifiers_split_into_words_and_chinese_into_pairs() -> None:
    """get_current_weather gives its words; 北京上海 gives its character pairs."""
    assert {"get", "current", "weather"} <= terms("get_current_weather")
    assert {"北京", "京上", "上海"} <= terms("北京上海")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("上海明天的天气", [("place", "上海"), ("date", "2024-05-02")]),
        ("算一下 (3+4)*2", [("expression", "(3+4)*2")]),
        ("3乘以4", [("expression", "3*4")]),
        ("on 2024-06-15", [("date", "2024-06-15")]),
        ("后天", [("date", "2024-05-03")]),
        ("look up ORD-2024-0042", [("token", "ORD-2024-0042")]),
        ("read /var/log/app.log.", [("path", "/var/log/app.log")]),
        ("fetch https://example.com/a?x=1", [("url", "https://example.com/a?x=1")]),
        ("mail a@b.com", [("email", "a@b.com")]),
        ("取消订单 “A1024”", [("quoted", "A1024")]),
        ("三天 top 5", [("number", 3), ("number", 5)]),
        ("算一下", []),
    ],
)
def test_values_are_found_where_the_text_states_them(text: str, expected: list[Any]) -> None:
    """Each kind of value is read from its usual spellings, and 一下 is no number."""
    found = [
        (f.kind, f.value.isoformat() if isinstance(f.value, dt.date) else f.value)
        for f in find_values(text, today=TODAY)
    ]
    if found and found[0][0] == "place":
        found[0] = ("place", found[0][1].zh)
    assert found == expected


def test_places_are_found_in_both_languages_and_named_once() -> None:
    """Tokyo, 东京 and Paris are two places; a place named twice is one."""
    found = find_values("Tokyo 东京 and Paris", today=TODAY)
    assert [f.value.en for f in found] == ["Tokyo", "Paris"]


def test_short_upper_case_spellings_match_only_in_upper_case() -> None:
    """US is a place, the word "us" is not."""
    assert [f.value.en for f in find_values("tell us about US", today=TODAY)] == ["United States"]


def test_a_place_is_named_in_the_language_asked_for() -> None:
    """北京 is Beijing in English; with no language asked, as the user wrote it."""
    place = lookup_place("beijing")
    assert place is not None
    assert place_name(place, "en") == "Beijing"
    assert place_name(place, None, written="北京") == "北京"
    assert lookup_place("Atlantis") is None


def test_clauses_split_at_sentence_ends_and_at_and_then() -> None:
    """Each request is one clause; past the limit the rest is one clause."""
    assert [c for _, c in split_clauses("北京天气？再算一下 3*7", limit=8)] == [
        "北京天气",
        "再算一下 3*7",
    ]
    assert len(split_clauses("a。b。c。d", limit=2)) == 2


@given(st.text(max_size=80))
def test_found_values_never_overlap(text: str) -> None:
    """Each piece of text feeds one value at most, whatever the text."""
    spans = sorted((f.start, f.end) for f in find_values(text, today=TODAY))
    assert all(end <= start for (_, end), (start, _) in itertools.pairwise(spans))
    assert all(0 <= start < end <= len(text) for start, end in spans)
