from __future__ import annotations

import datetime as dt

import pytest

from appclient.server._query_values import (
    blank_spans,
    detect_language,
    find_dates,
    find_expression,
    find_numbers,
    find_quoted,
    find_times,
    parse_chinese_number,
    split_clauses,
)

TODAY = dt.date(2024, 5, 1)  # a Wednesday


@pytest.mark.parametrize(("text", "language"), [("今天天气", "zh"), ("weather", "en"), ("", "en")])
def test_detect_language(text, language):
    """Text with Chinese characters is Chinese, anything else English."""
    assert detect_language(text) == language


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("三", 3),
        ("十", 10),
        ("十二", 12),
        ("二十五", 25),
        ("一百零八", 108),
        ("两千", 2000),
        ("一万零一", 10001),
        ("二零二四", 2024),
        ("三四x", None),
        ("", None),
    ],
)
def test_parse_chinese_number(text, value):
    """Chinese numerals with and without units parse; anything else is None."""
    assert parse_chinese_number(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [("三百五", 350), ("一万二", 12000), ("两千三", 2300), ("三百零五", 305), ("十五", 15)],
)
def test_parse_chinese_number_reads_the_abbreviated_last_digit(text, value):
    """A last digit right after a unit counts in the next lower unit: 三百五 is 350."""
    assert parse_chinese_number(text) == value


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("top 5 results", [5]),
        ("between -3.5 and 7", [-3.5, 7]),
        ("查三天的天气", [3]),
        ("给我十二条新闻", [12]),
        ("查一下", []),
        ("mp3 files", []),
        ("3-1", [3, 1]),
    ],
)
def test_find_numbers(text, values):
    """Arabic and counted Chinese numbers are found; 一下 and mp3 are not numbers."""
    assert [n.value for n in find_numbers(text)] == values


@pytest.mark.parametrize(
    ("text", "values"), [("把音量调到三", [3]), ("温度设为二十", [20]), ("我们到一起去", [])]
)
def test_a_lone_chinese_numeral_after_a_setting_word_is_a_number(text, values):
    """调到三 and 设为二十 name numbers though no counting word follows; 到一起 does not."""
    assert [n.value for n in find_numbers(text)] == values


def test_find_numbers_reads_separators_and_wan():
    """``1,200`` is twelve hundred and ``3.5万`` thirty-five thousand, each one number."""
    assert [n.value for n in find_numbers("预算3.5万元，买1,200股, ids 1, 2")] == [
        35000,
        1200,
        1,
        2,
    ]
    assert [n.text for n in find_numbers("transfer $1,500.50 now")] == ["1,500.50"]


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("今天北京天气", ["2024-05-01"]),
        ("what about tomorrow?", ["2024-05-02"]),
        ("后天和大后天", ["2024-05-03", "2024-05-04"]),
        ("昨天", ["2024-04-30"]),
        ("on 2024-06-15", ["2024-06-15"]),
        ("2024/6/5", ["2024-06-05"]),
        ("2025年1月2日", ["2025-01-02"]),
        ("5月20日", ["2024-05-20"]),
        ("五月一日", ["2024-05-01"]),
        ("May 4th, 2025", ["2025-05-04"]),
        ("3 June", ["2024-06-03"]),
        ("in 3 days", ["2024-05-04"]),
        ("三天后", ["2024-05-04"]),
        ("周五", ["2024-05-03"]),
        ("周一", ["2024-05-06"]),
        ("下周一", ["2024-05-06"]),
        ("next Friday", ["2024-05-10"]),
        ("2024-02-30", []),
    ],
)
def test_find_dates(text, dates):
    """Absolute, relative and weekday dates become ISO dates counted from today."""
    assert [d.value.isoformat() for d in find_dates(text, today=TODAY)] == dates


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("明年1月2日", ["2025-01-02"]),
        ("去年12月31日", ["2023-12-31"]),
        ("今年六月一日", ["2024-06-01"]),
    ],
)
def test_find_dates_reads_a_relative_year(text, dates):
    """明年/去年/今年 before a month and day move the date to that year."""
    assert [d.value.isoformat() for d in find_dates(text, today=TODAY)] == dates


def test_find_quoted_understands_several_quote_styles():
    """ASCII, curly, corner and book-title quotes all delimit quoted text."""
    text = "把“你好”和「早上好」翻译成'English'，书名《三体》，\"ok\""
    assert [q.value for q in find_quoted(text)] == ["你好", "早上好", "English", "三体", "ok"]


def test_apostrophes_are_not_quotes():
    """What's and don't are not quoted text."""
    assert find_quoted("What's the weather, don't you know") == []


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("算一下 (3+4)×2 等于多少", "(3+4)*2"),
        ("3乘以4加5", "3*4+5"),
        ("what is 2^10?", "2**10"),
        ("3 + 4 = ?", "3 + 4"),
        ("-5+3", "-5+3"),
    ],
)
def test_find_expression(text, expression):
    """Arithmetic written with symbols or Chinese operator words is found and normalised."""
    found = find_expression(text)
    assert found is not None
    assert found.value == expression


@pytest.mark.parametrize(
    ("text", "expression"),
    [("计算一百加二十", "100+20"), ("一加一等于几", "1+1"), ("三乘以(4+五)", "3*(4+5)")],
)
def test_find_expression_reads_chinese_numerals(text, expression):
    """Numbers written in Chinese take part in arithmetic as their values."""
    found = find_expression(text)
    assert found is not None
    assert found.value == expression


@pytest.mark.parametrize("text", ["25度", "加拿大的天气", "page 3", "", "算一下", "第一加油站"])
def test_find_expression_ignores_lone_numbers_and_words(text):
    """A number alone, or 加 inside 加拿大, is not arithmetic."""
    assert find_expression(text) is None


def test_blank_spans_keeps_positions():
    """Blanking replaces characters with spaces, so positions stay valid."""
    assert blank_spans("2024-05-01 3+4", [(0, 10)]) == "           3+4"


@pytest.mark.parametrize(
    ("text", "clauses"),
    [
        ("北京天气怎么样？再算一下3*7", ["北京天气怎么样", "算一下3*7"]),
        ("北京和上海的天气", ["北京和上海的天气"]),
        (
            "What's the weather like today in celsius in Tokyo and Paris.",
            ["What's the weather like today in celsius in Tokyo and Paris"],
        ),
        (
            "Weather in Tokyo and what is 3*7? Also translate hello",
            ["Weather in Tokyo", "what is 3*7", "translate hello"],
        ),
        ("pi is 3.14", ["pi is 3.14"]),
        ("", []),
    ],
)
def test_split_clauses(text, clauses):
    """Requests split at sentence ends and sequencing words; entity lists stay together."""
    assert [c.value for c in split_clauses(text)] == clauses


def test_clause_spans_point_into_the_text():
    """Each clause's span is where its text sits in the query."""
    text = "北京天气？ 然后算 1+1"
    for clause in split_clauses(text):
        assert text[clause.start : clause.end] == clause.value


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("meet at 10:30 tomorrow", ["10:30:00"]),
        ("call me at 3pm or 11 am", ["15:00:00", "11:00:00"]),
        ("明天下午三点半开会", ["15:30:00"]),
        ("早上8点20分出发", ["08:20:00"]),
        ("晚上十点", ["22:00:00"]),
        ("3天后, 5个人, 12点", ["12:00:00"]),
        ("score 25:61, 3 people", []),
    ],
)
def test_find_times(text, times):
    """Clock times in English and Chinese are found as ``datetime.time`` values."""
    assert [t.value.isoformat() for t in find_times(text)] == times
