from __future__ import annotations

import datetime as dt

import pytest

from appclient.server._parameter_slots import slot_of
from appclient.server._place_names import PlaceMention
from appclient.server._query_reader import NOTHING, QueryReader, search_word

TODAY = dt.date(2024, 5, 1)


def _reader(query: str, tool_text: str = "") -> QueryReader:
    return QueryReader(query, today=TODAY, tool_text=tool_text)


def test_take_blanks_used_text_and_keeps_positions():
    """Used text turns into spaces; the text keeps its length."""
    reader = _reader("北京天气")
    reader.take(0, 2)
    assert reader.text == "  天气"


def test_choice_finds_a_synonym_and_uses_it_up():
    """摄氏度 picks the celsius member, and the words are used up."""
    reader = _reader("北京天气用摄氏度")
    assert reader.choice(("celsius", "fahrenheit")) == "celsius"
    assert "摄氏度" not in reader.text


def test_choice_prefers_the_option_named_first():
    """When two options are named, the earlier one wins."""
    assert _reader("fahrenheit, not celsius").choice(("celsius", "fahrenheit")) == "fahrenheit"


def test_choice_returns_nothing_when_no_option_is_named():
    """No option in the text gives the NOTHING marker."""
    assert _reader("北京天气").choice(("celsius", "fahrenheit")) is NOTHING


def test_dates_are_read_and_used_up():
    """明天 becomes tomorrow's date and is blanked."""
    reader = _reader("明天北京")
    assert reader.dates() == [dt.date(2024, 5, 2)]
    assert reader.text.strip() == "北京"


def test_places_returns_known_mentions():
    """Known places come back as mentions, all of them."""
    found = _reader("北京和上海").places()
    assert [m.place.en for m in found if isinstance(m, PlaceMention)] == ["Beijing", "Shanghai"]


@pytest.mark.parametrize(
    ("query", "place"),
    [("weather in Springfield today", "Springfield"), ("张家口市的天气", "张家口市")],
)
def test_places_outside_the_table_are_read_from_cues(query, place):
    """A capitalised name after "in", or a name ending in 市, is a place."""
    assert _reader(query).places() == [place]


def test_numbers_prefer_one_tied_to_the_parameter():
    """For a days parameter the number next to 天 wins over an earlier one."""
    slot = slot_of("days", {"type": "integer"}, required=True)
    assert _reader("第2页，未来3天").numbers(slot, tied_only=False) == 3


@pytest.mark.parametrize(
    ("name", "query", "number"),
    [("priority", "room 5, priority 2", 2), ("quantity", "page 3: 4 in quantity", 4)],
)
def test_long_cue_words_tie_numbers_too(name, query, number):
    """A cue word longer than the reach (``priority``) still ties the number beside it."""
    slot = slot_of(name, {"type": "integer"}, required=True)
    assert _reader(query).numbers(slot, tied_only=True) == number


def test_cue_words_match_their_plural():
    """The cue ``passenger`` (the name's stem) ties the number before ``passengers``."""
    slot = slot_of("passengers", {"type": "integer"}, required=True)
    assert _reader("3 bags for 2 passengers").numbers(slot, tied_only=True) == 2


def test_untied_numbers_only_when_allowed():
    """tied_only refuses a number no cue word sits next to."""
    slot = slot_of("days", {"type": "integer"}, required=False)
    assert _reader("page 7").numbers(slot, tied_only=True) is NOTHING
    assert _reader("page 7").numbers(slot, tied_only=False) == 7


def test_boolean_reads_negation():
    """A negated subject is False, a plain one True, an absent one NOTHING."""
    slot = slot_of("include_forecast", {"type": "boolean"}, required=True)
    assert _reader("with the forecast").boolean(slot) is True
    assert _reader("without forecast").boolean(slot) is False
    assert _reader("just today").boolean(slot) is NOTHING


def test_quoted_text_is_read_and_used_up():
    """Quoted pieces come back without their quotes."""
    reader = _reader('translate "good morning" and “晚安”')
    assert reader.quoted() == ["good morning", "晚安"]
    assert '"' not in reader.text


def test_span_drops_framing_and_the_tools_own_words():
    """The subject is what is left once request words and the tool's words are gone."""
    assert _reader("查找张三的信息", "lookup_person 查找公司内指定人员的信息").span() == "张三"
    assert _reader("Find information about John Smith", "lookup person").span() == "John Smith"


def test_span_with_all_concepts_drops_topic_words():
    """For places every topic word is framing, so 天气 alone leaves nothing."""
    assert _reader("今天天气怎么样").span(all_concepts=True) == ""


def test_search_word_matches_whole_words_only():
    """Celsius is not found inside celsiusx; CJK words are found anywhere."""
    assert search_word("celsius", "in Celsius") is not None
    assert search_word("celsius", "celsiusx") is None
    assert search_word("°c", "25°C") is not None
    assert search_word("摄氏", "用摄氏度") is not None


def test_one_leftover_character_is_not_a_place():
    """那 left of 那明天呢 once the date is read is not taken for an unknown place."""
    reader = _reader("那明天呢")
    reader.dates()
    assert reader.places() == []
