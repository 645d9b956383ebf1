from __future__ import annotations

import pytest

from appclient.server._text_terms import concepts_in, english_words, text_terms


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("get_current_weather", ["get", "current", "weather"]),
        ("WeatherQuery", ["weather", "query"]),
        ("HTTPServerError", ["http", "server", "error"]),
        ("cities and news", ["city", "and", "news"]),
        ("Tokyo's weather", ["tokyo", "weather"]),
    ],
)
def test_english_words_split_identifiers_and_strip_plurals(text, words):
    """Identifiers split into lower-case words; plurals lose their s."""
    assert english_words(text) == words


def test_chinese_text_becomes_character_pairs():
    """Chinese is matched by overlapping character pairs."""
    assert {"今天", "天气", "北京"} <= text_terms("今天北京天气")


def test_stopwords_are_not_terms():
    """Words that say nothing about a tool are dropped."""
    assert "the" not in text_terms("What's the weather")
    assert "weather" in text_terms("What's the weather")


@pytest.mark.parametrize(
    ("text", "concept"),
    [
        ("今天天气怎么样", "weather"),
        ("get_current_weather", "weather"),
        ("气温", "weather"),
        ("帮我算一下", "math"),
        ("Calculator", "math"),
        ("张三的生日", "birthday"),
    ],
)
def test_concepts_join_chinese_and_english(text, concept):
    """天气 and weather express the same concept."""
    assert concept in concepts_in(text)
    assert f"#{concept}" in text_terms(text)


def test_computer_is_not_a_calculation():
    """计算机 (computer) contains 计算 without meaning a calculation."""
    assert "math" not in concepts_in("计算机是什么")


def test_new_york_is_not_news():
    """The word "new" does not express the news concept."""
    assert "news" not in concepts_in("weather in New York")
