"""Values a user's query states: numbers, dates, times, quotes, arithmetic, clauses (pure).

Every finder returns :class:`Found` items that keep their position in the query, so the
argument filler can tell which parts of the text a value used up (and never reads the same
words twice), and can keep the parts of a query that belong to another tool apart.
Chinese and English are both understood: ``三天`` and ``3 days``, ``明天`` and
``tomorrow``, ``5月1日`` and ``May 1``, ``下午三点`` and ``3pm``, ``3乘以4`` and ``3 * 4``.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "Found",
    "Language",
    "blank_spans",
    "detect_language",
    "find_dates",
    "find_expression",
    "find_identifiers",
    "find_numbers",
    "find_quoted",
    "find_times",
    "is_cjk",
    "parse_chinese_number",
    "shape_of",
    "split_clauses",
]

Language = Literal["zh", "en"]


@dataclass(frozen=True)
class Found:
    """A value found in the query, with the span ``[start, end)`` of the text it came from."""

    value: Any
    start: int
    end: int
    text: str


def is_cjk(char: str) -> bool:
    """Return whether ``char`` is a CJK ideograph (the characters Chinese is written in)."""
    return "\u4e00" <= char <= "\u9fff" or "\u3400" <= char <= "\u4dbf"


def detect_language(text: str) -> Language:
    """Return ``"zh"`` when ``text`` contains Chinese characters, otherwise ``"en"``."""
    return "zh" if any(is_cjk(char) for char in text) else "en"


# --- numbers ------------------------------------------------------------------------------

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6}
_CN_DIGITS.update({"七": 7, "八": 8, "九": 9})
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000}
# Counting words after a Chinese numeral; without one, a lone 一 is usually not a number
# (一下, 一些, 一起), so a single numeral counts only when a counting word follows it.
_CN_COUNTERS = "个天条次本张位名页岁年月周度元块人件只篇首项家份小分秒倍台辆杯瓶"

# Thousands separators (1,200) and a 万/亿 multiplier (3.5万) belong to the number.
_ARABIC = re.compile(
    r"(?:(?<![0-9A-Za-z)\]])-)?(?:\d{1,3}(?:,\d{3})+(?![0-9])|\d+)(?:\.\d+)?(?![0-9])([万亿])?"
)
_MULTIPLIERS = {"万": 10_000, "亿": 100_000_000}
# Words after which a lone numeral is the value being set (调到三, 改为五, 换成八).
_SETTING_WORDS = "到为成至"
_CHINESE = re.compile(rf"[零〇一二两三四五六七八九十百千万]+(?=([{_CN_COUNTERS}])?)")


def parse_chinese_number(text: str) -> int | None:
    """Parse a Chinese numeral such as ``三``, ``十二``, ``一百零八``, ``三百五``, ``二零二四``.

    Args:
        text: The numeral, Chinese digits and units only.

    Returns:
        Its value, or ``None`` when the text is not a well-formed numeral.
    """
    if not text or any(c not in _CN_DIGITS and c not in _CN_UNITS for c in text):
        return None
    if not any(c in _CN_UNITS for c in text):
        # Digit by digit, as in years: 二零二四 -> 2024.
        return int("".join(str(_CN_DIGITS[c]) for c in text))
    total, section, digit = 0, 0, None
    for char in text:
        if char in _CN_DIGITS:
            if digit:  # two digits in a row ("三四") is not a numeral; 零 only fills a gap
                return None
            digit = _CN_DIGITS[char]
            continue
        unit = _CN_UNITS[char]
        if unit == 10_000:
            total += (section + (digit or 0)) * unit
            section, digit = 0, None
        else:
            section += (1 if digit is None else digit) * unit
            digit = None
    last_unit = _CN_UNITS.get(text[-2], 0) if len(text) > 1 and text[-1] in _CN_DIGITS else 0
    if digit and last_unit >= 100:
        # Spoken shorthand: a last digit right after 百/千/万 counts in the next lower unit
        # (三百五 is 350, 一万二 is 12000); 三百零五 says 305.
        digit *= last_unit // 10
    return total + section + (digit or 0)


def _arabic_value(match: re.Match[str]) -> int | float:
    digits = match.group().rstrip("万亿").replace(",", "")
    value: int | float = float(digits) if "." in digits else int(digits)
    if match.group(1):
        value *= _MULTIPLIERS[match.group(1)]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
    return value


def find_numbers(text: str) -> list[Found]:
    """Return the numbers in ``text``: ``42``, ``-3.5``, ``1,200``, ``3.5万``, ``三天``.

    A number glued to letters (``mp3``, ``H2O``) is not a number here.
    """
    found = [
        Found(_arabic_value(m), m.start(), m.end(), m.group())
        for m in _ARABIC.finditer(text)
        if not (m.start() > 0 and text[m.start() - 1].isascii() and text[m.start() - 1].isalpha())
    ]
    for match in _CHINESE.finditer(text):
        numeral = match.group()
        value = parse_chinese_number(numeral)
        if value is None:
            continue
        # Without a counting word, a lone numeral counts only as a value being set (调到三).
        set_to = numeral != "一" and match.start() > 0 and text[match.start() - 1] in _SETTING_WORDS
        if len(numeral) == 1 and match.group(1) is None and not set_to:
            continue
        if any(f.start < match.end() and match.start() < f.end for f in found):
            continue  # the 万 of 3.5万
        found.append(Found(value, match.start(), match.end(), numeral))
    return sorted(found, key=lambda item: item.start)


# --- dates --------------------------------------------------------------------------------

_RELATIVE_DAYS = (
    ("大后天", 3),
    ("day after tomorrow", 2),
    ("后天", 2),
    ("明天", 1),
    ("明日", 1),
    ("tomorrow", 1),
    ("今天", 0),
    ("今日", 0),
    ("今晚", 0),
    ("tonight", 0),
    ("today", 0),
    ("day before yesterday", -2),
    ("前天", -2),
    ("昨天", -1),
    ("昨日", -1),
    ("yesterday", -1),
)
_RELATIVE = re.compile(
    "|".join(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])" for word, _ in _RELATIVE_DAYS),
    re.IGNORECASE,
)
_CN_NUM = "[0-9零〇一二两三四五六七八九十]{1,3}"
_ISO = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_CN_DATE = re.compile(
    rf"(?:(\d{{4}}|[零〇一二三四五六七八九]{{4}})年|(明年|今年|去年|后年|前年))?"
    rf"({_CN_NUM})月({_CN_NUM})[日号]"
)
_YEAR_OFFSETS = {"明年": 1, "后年": 2, "去年": -1, "前年": -2}
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_EN_DATE = re.compile(
    rf"(?<![A-Za-z]){_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?(?!\d)"
    rf"|(?<!\d)(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+(\d{{4}}))?",
    re.IGNORECASE,
)
_IN_DAYS = re.compile(rf"(?:in\s+(\d+)\s+days?)|(?:({_CN_NUM})天(?:后|以后|之后))", re.IGNORECASE)
_WEEKDAYS_ZH = "一二三四五六日天"
_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(
    rf"(下(?:个)?)?(?:周|星期|礼拜)([{_WEEKDAYS_ZH}])"
    rf"|(?<![A-Za-z])(next\s+|this\s+)?({'|'.join(_WEEKDAYS_EN)})(?![A-Za-z])",
    re.IGNORECASE,
)


def _number(text: str) -> int | None:
    return int(text) if text.isdigit() else parse_chinese_number(text)


def _safe_date(year: int | None, month: int | None, day: int | None) -> dt.date | None:
    if year is None or month is None or day is None:
        return None
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _weekday_date(today: dt.date, weekday: int, *, next_week: bool) -> dt.date:
    monday = today - dt.timedelta(days=today.weekday())
    candidate = monday + dt.timedelta(days=weekday)
    if next_week:
        return candidate + dt.timedelta(days=7)
    return candidate if candidate >= today else candidate + dt.timedelta(days=7)


def _dates_from(pattern: re.Pattern[str], text: str, today: dt.date) -> list[Found]:
    found = []
    for m in pattern.finditer(text):
        value: dt.date | None = None
        if pattern is _ISO:
            value = _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        elif pattern is _CN_DATE:
            year = _number(m.group(1)) if m.group(1) else today.year
            year = None if year is None else year + _YEAR_OFFSETS.get(m.group(2), 0)
            value = _safe_date(year, _number(m.group(3)), _number(m.group(4)))
        elif pattern is _EN_DATE:
            month_text, day_text, year_text = (
                (m.group(1), m.group(2), m.group(3))
                if m.group(1)
                else (m.group(5), m.group(4), m.group(6))
            )
            year = int(year_text) if year_text else today.year
            month = _MONTHS.index(month_text[:3].lower()) + 1
            value = _safe_date(year, month, int(day_text))
        elif pattern is _IN_DAYS:
            days = _number(m.group(1) or m.group(2))
            value = None if days is None else today + dt.timedelta(days=days)
        elif pattern is _WEEKDAY:
            if m.group(2):
                weekday = min(_WEEKDAYS_ZH.index(m.group(2)), 6)
                next_week = bool(m.group(1))
            else:
                weekday = _WEEKDAYS_EN.index(m.group(4).lower())
                next_week = (m.group(3) or "").strip().lower() == "next"
            value = _weekday_date(today, weekday, next_week=next_week)
        else:
            offset = next(d for w, d in _RELATIVE_DAYS if w == m.group().lower())
            value = today + dt.timedelta(days=offset)
        if value is not None:
            found.append(Found(value, m.start(), m.end(), m.group()))
    return found


def find_dates(text: str, *, today: dt.date) -> list[Found]:
    """Return the dates ``text`` names, as :class:`datetime.date` values, in order.

    Understood: ISO and slashed dates, ``2024年5月1日``/``五月一日``, ``May 1``/``1 May 2024``,
    today/tomorrow/yesterday and 今天/明天/后天/昨天, ``in 3 days``/``三天后``, weekdays
    (``周五``, ``下周一``, ``next Monday``).

    Args:
        text: A user's query.
        today: The date relative words are counted from.
    """
    found: list[Found] = []
    for pattern in (_ISO, _CN_DATE, _EN_DATE, _IN_DAYS, _WEEKDAY, _RELATIVE):
        for item in _dates_from(pattern, text, today):
            if not any(item.start < f.end and f.start < item.end for f in found):
                found.append(item)
    return sorted(found, key=lambda item: item.start)


# --- clock times ---------------------------------------------------------------------------

_CLOCK = re.compile(
    r"(?<![\d:])(\d{1,2}):(\d{2})(?::(\d{2}))?(?![\d:])(?:\s*(am|pm|a\.m\.|p\.m\.))?"
    r"|(?<![\d.])(\d{1,2})\s*(am|pm|a\.m\.|p\.m\.)(?![A-Za-z])",
    re.IGNORECASE,
)
_CN_CLOCK = re.compile(
    rf"(凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|今晚)?({_CN_NUM})[点點时](?:(半)|({_CN_NUM})分?)?"
)
_AFTERNOON = ("下午", "傍晚", "晚上", "今晚")


def _clock(hour: int | None, minute: int | None, second: int = 0) -> dt.time | None:
    if hour is None or minute is None or not (0 <= hour < 24 and 0 <= minute < 60):
        return None
    return dt.time(hour, minute, second) if 0 <= second < 60 else None


def find_times(text: str) -> list[Found]:
    """Return the clock times ``text`` names, as :class:`datetime.time` values, in order.

    Understood: ``10:30``, ``3pm``/``11 am``, and ``下午三点半``/``早上8点20分``/``晚上十点``.
    """
    found: list[Found] = []
    for m in _CLOCK.finditer(text):
        suffix = (m.group(4) or m.group(6) or "").lower().replace(".", "")
        hour = int(m.group(1) or m.group(5))
        if suffix and not 1 <= hour <= 12:
            continue
        if suffix:
            hour = hour % 12 + (12 if suffix == "pm" else 0)
        minute = int(m.group(2)) if m.group(2) else 0
        value = _clock(hour, minute, int(m.group(3) or 0))
        if value is not None:
            found.append(Found(value, m.start(), m.end(), m.group()))
    for m in _CN_CLOCK.finditer(text):
        if m.group(2) == "一" and not any(m.group(i) for i in (1, 3, 4)):
            continue  # 一点 alone is "a little" (便宜一点), not one o'clock
        spoken_hour = _number(m.group(2))
        spoken_minute = 30 if m.group(3) else (_number(m.group(4)) if m.group(4) else 0)
        if spoken_hour is not None and m.group(1) in _AFTERNOON and spoken_hour < 12:
            spoken_hour += 12
        value = _clock(spoken_hour, spoken_minute)
        if value is not None and not any(m.start() < f.end and f.start < m.end() for f in found):
            found.append(Found(value, m.start(), m.end(), m.group()))
    return sorted(found, key=lambda item: item.start)


# --- quoted text --------------------------------------------------------------------------

_QUOTED = re.compile(
    r"\"([^\"\n]+)\"|“([^”\n]+)”|「([^」\n]+)」|『([^』\n]+)』|《([^》\n]+)》|‘([^’\n]+)’"
    r"|`([^`\n]+)`|(?<![A-Za-z])'([^'\n]+)'(?![A-Za-z])"
)


def find_quoted(text: str) -> list[Found]:
    """Return the text inside quotes (``"…"``, ``'…'``, ``“…”``, ``「…」``, ``《…》``, …)."""
    return [
        Found(next(g for g in m.groups() if g is not None), m.start(), m.end(), m.group())
        for m in _QUOTED.finditer(text)
    ]


# --- arithmetic ---------------------------------------------------------------------------

_OPERATOR_WORDS: tuple[tuple[str, str], ...] = (
    ("加上", "+"),
    ("加", "+"),
    ("减去", "-"),
    ("减", "-"),
    ("乘以", "*"),
    ("乘", "*"),
    ("除以", "/"),
    ("的平方", "**2"),
    ("的立方", "**3"),
)
_CN_NUMERAL = re.compile(r"[零〇一二两三四五六七八九十百千万]+")
_EXPRESSION = re.compile(
    r"(?:\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百千万]+|[()（）]|[ \t]+|[-+*/×÷^%＋－＊／]|"
    + "|".join(re.escape(word) for word, _ in _OPERATOR_WORDS)
    + ")+"
)
_OPERATOR_TOKEN = re.compile(r"\*\*|[-+*/×÷^%＋－＊／]")


def _arabic_numeral(match: re.Match[str]) -> str:
    return str(parse_chinese_number(match.group()))


def _to_operators(text: str) -> str:
    for word, symbol in _OPERATOR_WORDS:
        text = text.replace(word, symbol)
    return text


def find_expression(text: str) -> Found | None:
    """Return the longest arithmetic expression in ``text`` (value: Python operator syntax).

    ``3乘以4``, ``(3 + 4) × 2``, ``2^10`` and ``一百加二十`` (as ``100+20``) are found; a lone
    number is not an expression.
    Dates and other values the caller already used should be blanked out of ``text`` first.
    """
    best: Found | None = None
    for match in _EXPRESSION.finditer(text):
        raw = match.group()
        start = match.start() + (len(raw) - len(raw.lstrip()))
        raw = raw.strip()
        # Trim operators that cannot start or end an expression ("，加" or "3 +").
        while raw and (_to_operators(raw[0]) in "*/×÷^%＊／" or raw[0] in "）)"):
            raw, start = raw[1:].lstrip(), start + 1 + (len(raw[1:]) - len(raw[1:].lstrip()))
        while raw and _to_operators(raw[-1]) in "+-*/×÷^%＋－＊／（(":
            raw = raw[:-1].rstrip()
        expression = _to_operators(raw).replace("^", "**").replace("×", "*").replace("÷", "/")
        expression = expression.replace("（", "(").replace("）", ")")
        if any(parse_chinese_number(m.group()) is None for m in _CN_NUMERAL.finditer(expression)):
            continue  # 三四 is no number, so this is no arithmetic
        expression = _CN_NUMERAL.sub(_arabic_numeral, expression)
        if not re.search(r"\d", expression) or not _OPERATOR_TOKEN.search(
            re.sub(r"^\s*-", "", expression)
        ):
            continue
        if best is None or len(raw) > len(best.text):
            best = Found(re.sub(r"\s+", " ", expression).strip(), start, start + len(raw), raw)
    return best


def blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """Return ``text`` with the characters in ``spans`` replaced by spaces (same length)."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


# --- clauses ------------------------------------------------------------------------------

_CLAUSE_BREAK = re.compile(
    r"[。！？!?；;\n]+|[，,](?!\d)|\.(?=\s|$)"
    r"|(?:然后|另外|并且|同时|顺便|此外|再(?=[帮算查告看计问给说]))"
    r"|(?<![A-Za-z])(?:and\s+then|then|also|plus|and(?=\s+(?:what|how|calculate|compute|"
    r"tell|please|can|could|also|then|convert|search|find|look)\b))(?![A-Za-z])",
    re.IGNORECASE,
)


def split_clauses(text: str) -> list[Found]:
    """Split ``text`` where a new request starts (sentence ends, ``然后``, ``then``, ``also``).

    Entity lists stay together: ``北京和上海的天气`` and ``in Tokyo and Paris`` are one clause.
    Each clause's ``value`` is its text, stripped.
    """
    clauses: list[Found] = []
    position = 0
    for match in [*_CLAUSE_BREAK.finditer(text), None]:
        end = match.start() if match else len(text)
        piece = text[position:end]
        if piece.strip():
            offset = len(piece) - len(piece.lstrip())
            stripped = piece.strip()
            clauses.append(
                Found(stripped, position + offset, position + offset + len(stripped), stripped)
            )
        if match:
            position = match.end()
    return clauses


# A URL, a path (absolute, home-relative, Windows, or with a folder), or a token holding a
# digit or inner punctuation: what a user copies, and an agent must copy whole.
_URL = r"[A-Za-z][A-Za-z0-9+.-]*://[^\s<>\"'，。！？；、）]+"
_PATH = (
    r"(?:~|\.{1,2})?/[^\s<>\"'，。！？；、）]+|[A-Za-z]:\\[^\s<>\"'，。！？；]+"
    r"|[\w.-]+(?:/[\w.@%+~-]+)+"
)
_ID = r"[A-Za-z0-9][A-Za-z0-9_.:#@+/-]*[A-Za-z0-9]|[0-9]"
_IDENTIFIER = re.compile(rf"(?<![\w/.:-])(?:(?P<url>{_URL})|(?P<path>{_PATH})|(?P<id>{_ID}))")
#: Sentence punctuation a copied token does not end with ("see /a/b." is /a/b).
_TRAILING = ".,;:!?)]}'\""


def find_identifiers(text: str) -> list[Found]:
    """Return the ids, paths and URLs in ``text``, whole, in order.

    ``value`` is ``(kind, token)`` with kind ``"url"``, ``"path"`` or ``"id"``; an ``id``
    holds a digit or inner punctuation (``A-1``, ``ORD-2024-0042``, ``v1.2``), so plain
    words are never one.
    """
    found = []
    for match in _IDENTIFIER.finditer(text):
        kind = match.lastgroup or "id"
        token = match.group().rstrip(_TRAILING)
        if kind == "id" and not any(c.isdigit() or c in "_.:#@+/-" for c in token):
            continue
        found.append(Found((kind, token), match.start(), match.start() + len(token), token))
    return found


def shape_of(text: str) -> str:
    """The shape of a token: letters as ``a``, digits as ``9``, runs folded.

    ``A-12`` and ``B-7`` both have the shape ``a-9``.
    """
    shape: list[str] = []
    for char in text:
        mark = "a" if char.isalpha() else "9" if char.isdigit() else char
        if not shape or shape[-1] != mark or mark not in "a9":
            shape.append(mark)
    return "".join(shape)
