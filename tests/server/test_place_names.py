from __future__ import annotations

import pytest

from appclient.server._place_names import PLACES, find_places, lookup_place, place_name


def _names(text: str) -> list[str]:
    return [mention.place.en for mention in find_places(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("今天北京天气怎么样？", ["Beijing"]),
        ("北京和上海的天气", ["Beijing", "Shanghai"]),
        ("What's the weather like today in celsius in Tokyo and Paris.", ["Tokyo", "Paris"]),
        ("weather in new york city", ["New York"]),
        ("纽约、伦敦、巴黎", ["New York", "London", "Paris"]),
        ("今天河北省天气", ["Hebei"]),
        ("flights from LA to SF", ["Los Angeles", "San Francisco"]),
    ],
)
def test_finds_places_in_order(text, expected):
    """Known places are found in Chinese and English, in the order they appear."""
    assert _names(text) == expected


def test_mentions_keep_their_span():
    """A mention knows where in the text it was written."""
    (mention,) = find_places("今天北京市天气")
    assert (mention.text, mention.start, mention.end) == ("北京市", 2, 5)


def test_repeated_places_are_found_once():
    """北京 and Beijing in one query are one place."""
    assert _names("Beijing, 北京, beijing") == ["Beijing"]


def test_short_uppercase_aliases_need_uppercase():
    """The pronoun "us" is not the United States; "US" is."""
    assert _names("tell us about it") == []
    assert _names("weather in the US") == ["United States"]


def test_place_names_inside_words_are_not_found():
    """Parisian is not Paris."""
    assert _names("a Parisian cafe") == []


def test_lookup_place_accepts_any_spelling():
    """Chinese, English and aliases, any case, find the same place."""
    assert lookup_place("beijing") == lookup_place("北京市") == lookup_place("Peking")
    assert lookup_place("Atlantis") is None


@pytest.mark.parametrize(
    ("language", "written", "expected"),
    [
        ("zh", "Tokyo", "东京"),
        ("en", "东京", "Tokyo"),
        (None, "东京", "东京"),
        (None, "tokyo", "Tokyo"),
    ],
)
def test_place_name_picks_the_language(language, written, expected):
    """A language gives that language's name; none keeps the script the user wrote in."""
    place = lookup_place("Tokyo")
    assert place is not None
    assert place_name(place, language, written=written) == expected


def test_table_has_the_cities_the_issue_names():
    """The table holds the cities the tests and the README rely on."""
    names = {p.zh for p in PLACES}
    assert {"北京", "上海", "广州", "深圳", "杭州", "成都", "东京", "巴黎", "伦敦", "纽约"} <= names
