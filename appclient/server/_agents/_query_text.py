"""What a user's query says, read with a few plain rules, in Chinese and English (pure).

Which tools its words point to (:func:`terms`: English words, Chinese character pairs, and
concepts that join the two languages), which values it states (:func:`find_values`, each with
its position), and where one request ends and the next begins (:func:`split_clauses`).
"""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

Language = Literal["zh", "en"]


@dataclass(frozen=True)
class Found:
    """A value the query states: its kind, the value, and the span of text it came from."""

    kind: str
    value: Any
    start: int
    end: int


def is_cjk(char: str) -> bool:
    """Whether ``char`` is a CJK ideograph."""
    return "\u4e00" <= char <= "\u9fff" or "\u3400" <= char <= "\u4dbf"


def detect_language(text: str) -> Language:
    """``"zh"`` when ``text`` has any Chinese character, else ``"en"``."""
    return "zh" if any(is_cjk(char) for char in text) else "en"


#: Concepts that join Chinese and English words: each word adds the term "#<concept>".
_CONCEPTS = {
    "weather": ("weather", "天气", "气温", "温度", "temperature", "forecast", "预报", "下雨"),
    "calculate": ("calculat", "计算", "算一下", "算术", "arithmetic", "expression", "表达式"),
    "birthday": ("birthday", "生日"),
    "person": ("person", "人员", "员工", "employee", "同学"),
    "order": ("order", "订单"),
    "file": ("file", "文件"),
}
#: Words that say little about which tool is meant: they count a fifth of a word.
_GENERIC = frozenset(
    re.findall(
        r"\w+",
        "get set the a an of to in on for and or is are what how please tool tools query info "
        "information data value current give me my you this that it do can with by "
        "查询 信息 工具 一下 请问 怎么 什么 帮我 指定 获取 支持 参数 今天",
    )
)
_PARTICLES = re.compile("[的了是和与及在吗呢吧啊]")
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def english_words(text: str) -> list[str]:
    """The lower-case English words of ``text``; identifiers split into their parts."""
    words = [w.lower() for w in _WORD.findall(text)]
    # A light plural strip, so "cities" and "city" or "orders" and "order" meet.
    return [
        w[:-3] + "y" if w.endswith("ies") else w[:-1] if w.endswith("s") and len(w) > 3 else w
        for w in words
    ]


def terms(text: str) -> frozenset[str]:
    """The terms of ``text``: English words, Chinese character pairs and ``#concepts``."""
    return _terms(text[:2000])


@lru_cache(maxsize=1024)
def _terms(text: str) -> frozenset[str]:
    found = set(english_words(text))
    lowered = text.lower()
    for concept, words in _CONCEPTS.items():
        for word in words:
            if word in lowered:
                found.add(f"#{concept}")
                # A concept's Chinese words count once, as the concept, not again as pairs.
                lowered = lowered.replace(word, " ")
    # Particles split runs: the 的天 of 的天气 is no term.
    for run in re.findall(r"[\u3400-\u4dbf\u4e00-\u9fff]+", _PARTICLES.sub(" ", lowered)):
        found.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    return frozenset(found)


def weight(term: str) -> float:
    """How much a shared term says: a concept most, a generic word least."""
    return 3.0 if term.startswith("#") else 0.2 if term in _GENERIC or term.isdigit() else 1.0


_CLAUSE_END = re.compile(r"[。！？!?；;\n]+|[，,]\s*(?=再|然后|还有|另外|顺便|(?:and|then|also)\b)")


def split_clauses(text: str, *, limit: int) -> list[tuple[int, str]]:
    """Split ``text`` into requests; each is ``(start, text)``. Past ``limit`` they are one."""
    clauses: list[tuple[int, str]] = []
    start = 0
    for match in _CLAUSE_END.finditer(text):
        if len(clauses) == limit - 1:
            break
        if text[start : match.start()].strip():
            clauses.append((start, text[start : match.start()]))
        start = match.end()
    if text[start:].strip():
        clauses.append((start, text[start:]))
    return clauses


@dataclass(frozen=True)
class Place:
    """A known place: its Chinese and English names and other spellings."""

    zh: str
    en: str
    aliases: tuple[str, ...] = ()


# zh|en|other spellings, "; " between places. Upper-case spellings of 2-3 letters match in
# upper case only, so "US" and "LA" are places and the word "us" is not.
_PLACE_TABLE = """
    北京|Beijing|Peking|北京市; 上海|Shanghai|上海市; 广州|Guangzhou|Canton; 深圳|Shenzhen
    杭州|Hangzhou; 成都|Chengdu; 重庆|Chongqing; 天津|Tianjin; 南京|Nanjing; 武汉|Wuhan
    西安|Xi'an|Xian; 苏州|Suzhou; 长沙|Changsha; 郑州|Zhengzhou; 青岛|Qingdao; 沈阳|Shenyang
    大连|Dalian; 厦门|Xiamen; 昆明|Kunming; 哈尔滨|Harbin; 济南|Jinan; 福州|Fuzhou; 合肥|Hefei
    南昌|Nanchang; 南宁|Nanning; 贵阳|Guiyang; 兰州|Lanzhou; 太原|Taiyuan; 石家庄|Shijiazhuang
    长春|Changchun; 乌鲁木齐|Urumqi; 拉萨|Lhasa; 呼和浩特|Hohhot; 海口|Haikou; 三亚|Sanya
    宁波|Ningbo; 无锡|Wuxi; 珠海|Zhuhai; 东莞|Dongguan; 佛山|Foshan; 香港|Hong Kong|HK
    澳门|Macau|Macao; 台北|Taipei; 河北|Hebei|河北省; 河南|Henan|河南省; 山东|Shandong|山东省
    山西|Shanxi|山西省; 陕西|Shaanxi|陕西省; 广东|Guangdong|广东省; 浙江|Zhejiang|浙江省
    江苏|Jiangsu|江苏省; 四川|Sichuan|四川省; 湖南|Hunan|湖南省; 湖北|Hubei|湖北省
    福建|Fujian|福建省; 云南|Yunnan|云南省; 海南|Hainan|海南省; 黑龙江|Heilongjiang|黑龙江省
    新疆|Xinjiang; 内蒙古|Inner Mongolia; 东京|Tokyo; 大阪|Osaka; 京都|Kyoto; 首尔|Seoul
    新加坡|Singapore; 曼谷|Bangkok; 巴黎|Paris; 伦敦|London; 纽约|New York|NYC|New York City
    洛杉矶|Los Angeles|LA; 旧金山|San Francisco|三藩市|SF; 芝加哥|Chicago; 西雅图|Seattle
    波士顿|Boston; 华盛顿|Washington; 多伦多|Toronto; 温哥华|Vancouver; 悉尼|Sydney
    墨尔本|Melbourne; 柏林|Berlin; 慕尼黑|Munich; 罗马|Rome; 米兰|Milan; 马德里|Madrid
    巴塞罗那|Barcelona; 阿姆斯特丹|Amsterdam; 莫斯科|Moscow; 迪拜|Dubai; 开罗|Cairo; 孟买|Mumbai
    新德里|New Delhi; 吉隆坡|Kuala Lumpur; 维也纳|Vienna; 苏黎世|Zurich; 日内瓦|Geneva
    伊斯坦布尔|Istanbul; 中国|China; 日本|Japan; 美国|United States|USA|US|America
    英国|United Kingdom|UK|Britain; 法国|France; 德国|Germany; 韩国|South Korea|Korea
    俄罗斯|Russia; 加拿大|Canada; 澳大利亚|Australia; 意大利|Italy; 西班牙|Spain; 印度|India
    巴西|Brazil
"""


@lru_cache(maxsize=1)
def _place_index() -> tuple[dict[str, Place], re.Pattern[str], frozenset[str], dict[str, int]]:
    by_spelling: dict[str, Place] = {}
    upper_only: set[str] = set()
    for row in _PLACE_TABLE.replace("\n", "; ").split("; "):
        if row.strip():
            zh, en, *aliases = row.strip().split("|")
            place = Place(zh, en, tuple(aliases))
            for spelling in (zh, en, *aliases):
                by_spelling.setdefault(spelling.casefold(), place)
                if len(spelling) <= 3 and spelling.isupper():
                    upper_only.add(spelling.casefold())
    # Longest first, so 北京市 wins over 北京.
    chinese = sorted((s for s in by_spelling if not s.isascii()), key=len, reverse=True)
    # An English name's first word -> the most words a name starting with it has.
    starts: dict[str, int] = {}
    for spelling in filter(str.isascii, by_spelling):
        first, *rest = spelling.split(" ")
        starts[first] = max(starts.get(first, 0), 1 + len(rest))
    pattern = re.compile("|".join(map(re.escape, chinese)))
    return by_spelling, pattern, frozenset(upper_only), starts


def lookup_place(name: str) -> Place | None:
    """The known place spelled ``name`` (any language, any case), or ``None``."""
    return _place_index()[0].get(" ".join(name.split()).casefold())


# English words; "Xi'an" is one word, the "'s" of "Tokyo's" is not part of it.
_NAME_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]{2,})?")


def _place_mentions(text: str) -> list[tuple[int, int, Place]]:
    by_spelling, chinese, upper_only, starts = _place_index()
    found = [(m.start(), m.end(), by_spelling[m.group()]) for m in chinese.finditer(text)]
    words = list(_NAME_WORD.finditer(text))
    i = 0
    while i < len(words):
        # Longest name first: New York City before New York.
        for size in range(min(starts.get(words[i].group().casefold(), 0), len(words) - i), 0, -1):
            group = words[i : i + size]
            key = " ".join(w.group() for w in group).casefold()
            place = by_spelling.get(key)
            if (
                place is not None
                and all(text[a.end() : b.start()] == " " for a, b in itertools.pairwise(group))
                and (key not in upper_only or group[0].group().isupper())
            ):
                found.append((group[0].start(), group[-1].end(), place))
                i += size - 1
                break
        i += 1
    return sorted(found, key=lambda item: item[0])


def place_name(place: Place, language: Language | None, *, written: str = "") -> str:
    """The name of ``place`` in ``language``; ``None`` keeps the script of ``written``."""
    language = language or (detect_language(written) if written else "zh")
    return place.zh if language == "zh" else place.en


_DIGITS = {char: n for n, char in enumerate("零一二三四五六七八九")} | {"两": 2}


def chinese_number(text: str) -> int:
    """``三`` -> 3, ``十五`` -> 15, ``二百零五`` -> 205 (``text`` is digits and 十百千 only)."""
    total, digit = 0, None
    for char in text:
        if char in "十百千":
            total += (1 if digit is None else digit) * {"十": 10, "百": 100, "千": 1000}[char]
            digit = None
        else:
            digit = _DIGITS[char]
    return total + (digit or 0)


#: Words for the days from two days ago (the first) to two days ahead (the last).
_DAY_WORDS = ("前天", "昨天 yesterday", "今天 今日 today", "明天 明日 tomorrow", "后天")
_RELATIVE_DAYS = {word: n - 2 for n, words in enumerate(_DAY_WORDS) for word in words.split()}
_DATE_PATTERNS = (
    re.compile(r"(?P<y>\d{4})[-/年](?P<m>\d{1,2})[-/月](?P<d>\d{1,2})[日号]?"),
    re.compile(r"(?P<m>\d{1,2})月(?P<d>\d{1,2})[日号]"),
    re.compile("|".join(sorted(_RELATIVE_DAYS, key=len, reverse=True)), re.IGNORECASE),
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://[^\s\"'<>，。]+")
_PATH = re.compile(r"(?<![\w/])(?:~?/|\./)?(?:[\w.-]+/)+[\w.-]+\.\w+|(?<![\w/])/[\w./-]+")
# An id: letters and digits in one word (A-1, ORD-2024-0042, A1024).
_TOKEN = re.compile(r"\b(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[A-Za-z0-9][\w-]*[A-Za-z0-9]\b")
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|「([^」]+)」|'([^']+)'")
# Chinese numerals only before a measure word: 三天 is 3, the 一 of 一下 is no number.
_NUMBER = re.compile(
    r"-?\d+(?:\.\d+)?|[零一二两三四五六七八九十百千]+(?=[天个人位条次件岁年周页名])"
)
# A longer word before its prefix (乘以 before 乘): they are replaced in this order.
_OPERATORS = {
    word: symbol
    for symbol, words in (
        ("*", "乘以|乘|×|times"),
        ("+", "加上|加|plus"),
        ("-", "减去|减|minus"),
        ("/", "除以|÷|divided by"),
    )
    for word in words.split("|")
}
_TERM = r"(?:\(\s*)*-?\d+(?:\.\d+)?(?:\s*\))*"
_OPERATOR = r"\s*(?:[-+*/%^]|\*\*|//|" + "|".join(_OPERATORS) + r")\s*"
_EXPRESSION = re.compile(rf"{_TERM}(?:{_OPERATOR}{_TERM})+")


def _date_of(match: re.Match[str], today: dt.date) -> dt.date | None:
    word = match.group().lower()
    if word in _RELATIVE_DAYS:
        return today + dt.timedelta(days=_RELATIVE_DAYS[word])
    parts = match.groupdict()
    try:
        return dt.date(int(parts.get("y") or today.year), int(parts["m"]), int(parts["d"]))
    except ValueError:
        return None


def _expression(text: str) -> str:
    for word, symbol in _OPERATORS.items():
        text = text.replace(word, symbol)
    return text.strip()


def states_arithmetic(text: str) -> bool:
    """Whether ``text`` holds arithmetic (``3*7``, ``(3+4)*2``, ``3乘以4``)."""
    return _EXPRESSION.search(text) is not None


def find_values(text: str, *, today: dt.date) -> list[Found]:
    """Every value ``text`` states, in order, none overlapping an earlier-listed kind's span.

    Kinds, in the order they claim text: ``quoted``, ``url``, ``email``, ``path``, ``token`` (a word
    of letters and digits: an id such as ``A-1`` or ``ORD-2024-0042``), ``date`` (a
    :class:`datetime.date`), ``expression`` (arithmetic, operators written as symbols),
    ``place`` (a :class:`Place`), ``number``.
    """
    found: list[Found] = []
    # The spans taken so far, sorted and disjoint: a new span is checked against its two
    # neighbours only, so a query of thousands of numbers is not quadratic.
    starts: list[int] = []
    ends: list[int] = []

    def add(kind: str, value: Any, start: int, end: int) -> None:
        at = bisect.bisect_left(starts, start)
        if (at == 0 or ends[at - 1] <= start) and (at == len(starts) or end <= starts[at]):
            starts.insert(at, start)
            ends.insert(at, end)
            found.append(Found(kind, value, start, end))

    for match in _QUOTED.finditer(text):
        add("quoted", next(g for g in match.groups() if g), match.start(), match.end())
    for kind, pattern in (("url", _URL), ("email", _EMAIL), ("path", _PATH), ("token", _TOKEN)):
        for match in pattern.finditer(text):
            add(kind, match.group().rstrip(".,;:!?"), match.start(), match.end())
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            if (date := _date_of(match, today)) is not None:
                add("date", date, match.start(), match.end())
    for match in _EXPRESSION.finditer(text):
        add("expression", _expression(match.group()), match.start(), match.end())
    seen: set[Place] = set()
    for start, end, place in _place_mentions(text):
        if place not in seen:  # a place named twice is one place
            seen.add(place)
            add("place", place, start, end)
    for match in _NUMBER.finditer(text):
        word = match.group()
        number = chinese_number(word) if is_cjk(word[0]) else float(word)
        value = int(number) if float(number).is_integer() else number
        add("number", value, match.start(), match.end())
    return sorted(found, key=lambda f: f.start)


def shape_of(text: str) -> str:
    """``ORD-2024-0001`` -> ``A-9-9``: letters, digits and separators, runs collapsed."""
    return re.sub(r"[A-Za-z]+", "A", re.sub(r"\d+", "9", text))
