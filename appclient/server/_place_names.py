"""Known place names in Chinese and English, and finding them in a user's query (pure).

The rule agent fills location-like parameters from the query. A small table of cities,
Chinese provinces and countries lets it recognise ``北京`` as well as ``Beijing`` and hand a
tool the spelling its schema expects (a description such as ``城市名，举例：北京`` asks for
Chinese names). Places outside the table are still found by the argument filler through
other cues; this table only makes the common ones exact.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache

from ._query_values import Language, detect_language, is_cjk

__all__ = ["Place", "PlaceMention", "find_places", "lookup_place", "place_name"]


@dataclass(frozen=True)
class Place:
    """A place with its Chinese and English names and other spellings."""

    zh: str
    en: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlaceMention:
    """Where a query names a place: the place, the text as written, and its span."""

    place: Place
    text: str
    start: int
    end: int


def _places(rows: str) -> tuple[Place, ...]:
    places = []
    for line in rows.strip().splitlines():
        zh, en, *aliases = (part.strip() for part in line.split("|"))
        places.append(Place(zh=zh, en=en, aliases=tuple(a for a in aliases if a)))
    return tuple(places)


# zh | en | other spellings (Chinese or English). Upper-case aliases of 2-3 letters match
# only in upper case, so "US"/"LA" are found but the word "us" is not.
PLACES: tuple[Place, ...] = _places(
    """
    北京 | Beijing | Peking | 北京市
    上海 | Shanghai | 上海市
    广州 | Guangzhou | Canton
    深圳 | Shenzhen
    杭州 | Hangzhou
    成都 | Chengdu
    重庆 | Chongqing
    天津 | Tianjin
    南京 | Nanjing
    武汉 | Wuhan
    西安 | Xi'an | Xian
    苏州 | Suzhou
    长沙 | Changsha
    郑州 | Zhengzhou
    青岛 | Qingdao
    沈阳 | Shenyang
    大连 | Dalian
    厦门 | Xiamen
    昆明 | Kunming
    哈尔滨 | Harbin
    济南 | Jinan
    福州 | Fuzhou
    合肥 | Hefei
    南昌 | Nanchang
    南宁 | Nanning
    贵阳 | Guiyang
    兰州 | Lanzhou
    太原 | Taiyuan
    石家庄 | Shijiazhuang
    长春 | Changchun
    乌鲁木齐 | Urumqi
    拉萨 | Lhasa
    呼和浩特 | Hohhot
    海口 | Haikou
    三亚 | Sanya
    宁波 | Ningbo
    无锡 | Wuxi
    珠海 | Zhuhai
    东莞 | Dongguan
    佛山 | Foshan
    香港 | Hong Kong | HK
    澳门 | Macau | Macao
    台北 | Taipei
    河北 | Hebei | 河北省
    河南 | Henan | 河南省
    山东 | Shandong | 山东省
    山西 | Shanxi | 山西省
    陕西 | Shaanxi | 陕西省
    广东 | Guangdong | 广东省
    浙江 | Zhejiang | 浙江省
    江苏 | Jiangsu | 江苏省
    四川 | Sichuan | 四川省
    湖南 | Hunan | 湖南省
    湖北 | Hubei | 湖北省
    福建 | Fujian | 福建省
    云南 | Yunnan | 云南省
    海南 | Hainan | 海南省
    黑龙江 | Heilongjiang | 黑龙江省
    新疆 | Xinjiang
    内蒙古 | Inner Mongolia
    东京 | Tokyo
    大阪 | Osaka
    京都 | Kyoto
    首尔 | Seoul
    新加坡 | Singapore
    曼谷 | Bangkok
    巴黎 | Paris
    伦敦 | London
    纽约 | New York | NYC | New York City
    洛杉矶 | Los Angeles | LA
    旧金山 | San Francisco | 三藩市 | SF
    芝加哥 | Chicago
    西雅图 | Seattle
    波士顿 | Boston
    华盛顿 | Washington
    多伦多 | Toronto
    温哥华 | Vancouver
    悉尼 | Sydney
    墨尔本 | Melbourne
    柏林 | Berlin
    慕尼黑 | Munich
    罗马 | Rome
    米兰 | Milan
    马德里 | Madrid
    巴塞罗那 | Barcelona
    阿姆斯特丹 | Amsterdam
    莫斯科 | Moscow
    迪拜 | Dubai
    开罗 | Cairo
    孟买 | Mumbai
    新德里 | New Delhi
    吉隆坡 | Kuala Lumpur
    维也纳 | Vienna
    苏黎世 | Zurich
    日内瓦 | Geneva
    伊斯坦布尔 | Istanbul
    中国 | China
    日本 | Japan
    美国 | United States | USA | US | America
    英国 | United Kingdom | UK | Britain
    法国 | France
    德国 | Germany
    韩国 | South Korea | Korea
    俄罗斯 | Russia
    加拿大 | Canada
    澳大利亚 | Australia
    意大利 | Italy
    西班牙 | Spain
    印度 | India
    巴西 | Brazil
    """
)


@dataclass(frozen=True)
class _Index:
    """The table arranged for lookups: by spelling, by Chinese text, by English words."""

    by_spelling: dict[str, Place]
    chinese: dict[str, Place]
    chinese_lengths: tuple[int, ...]
    english: dict[tuple[str, ...], Place]
    upper: dict[str, Place]
    words_after: dict[str, int]


# English words; "Xi'an" is one word, the "'s" of "Tokyo's" is not part of it.
_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]{2,})?")


@lru_cache(maxsize=1)
def _index() -> _Index:
    by_spelling: dict[str, Place] = {}
    chinese: dict[str, Place] = {}
    english: dict[tuple[str, ...], Place] = {}
    upper: dict[str, Place] = {}
    for place in PLACES:
        for spelling in (place.zh, place.en, *place.aliases):
            by_spelling.setdefault(_key(spelling), place)
            if detect_language(spelling) == "zh":
                chinese.setdefault(spelling, place)
            elif len(spelling) <= 3 and spelling.isupper():
                # Matched in upper case only: "US" is a place, the word "us" is not.
                upper.setdefault(spelling, place)
            else:
                english.setdefault(tuple(_key(spelling).split()), place)
    lengths = tuple(sorted({len(s) for s in chinese}, reverse=True))
    # First word of an English name -> the most words a name starting with it has.
    words_after: dict[str, int] = {}
    for words in english:
        words_after[words[0]] = max(words_after.get(words[0], 0), len(words))
    return _Index(by_spelling, chinese, lengths, english, upper, words_after)


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text).casefold()


def lookup_place(name: str) -> Place | None:
    """Return the known place spelled ``name`` (any language, any case), or ``None``."""
    return _index().by_spelling.get(_key(name.strip()))


def _chinese_mentions(text: str, index: _Index) -> list[tuple[int, int, Place]]:
    found = []
    position = 0
    while position < len(text):
        if is_cjk(text[position]):
            # Longest first, so 北京市 wins over 北京.
            for length in index.chinese_lengths:
                place = index.chinese.get(text[position : position + length])
                if place is not None:
                    found.append((position, position + length, place))
                    position += length
                    break
            else:
                position += 1
        else:
            position += 1
    return found


def _english_mentions(text: str, index: _Index) -> list[tuple[int, int, Place]]:
    words = list(_WORD.finditer(text))
    found = []
    position = 0
    while position < len(words):
        first = words[position].group()
        most = index.words_after.get(first.casefold(), 1 if first in index.upper else 0)
        # Longest first, so New York City wins over New York.
        for size in range(min(most, len(words) - position), 0, -1):
            group = words[position : position + size]
            if any(text[a.end() : b.start()].strip() for a, b in itertools.pairwise(group)):
                continue  # only spaces may separate the words of one name
            place = index.english.get(tuple(w.group().casefold() for w in group))
            if place is None and size == 1:
                place = index.upper.get(group[0].group())
            if place is not None:
                found.append((group[0].start(), group[-1].end(), place))
                position += size
                break
        else:
            position += 1
    return found


def find_places(text: str) -> list[PlaceMention]:
    """Return the known places named in ``text``, in order, without overlaps or repeats.

    Args:
        text: A user's query.

    Returns:
        One mention per distinct place, in the order they first appear.
    """
    index = _index()
    found = sorted(
        _chinese_mentions(text, index) + _english_mentions(text, index), key=lambda f: f[:2]
    )
    mentions: list[PlaceMention] = []
    seen: set[Place] = set()
    for start, end, place in found:
        if place not in seen:
            seen.add(place)
            mentions.append(PlaceMention(place, text[start:end], start, end))
    return mentions


def place_name(place: Place, language: Language | None, *, written: str = "") -> str:
    """Return the name of ``place`` to send to a tool.

    Args:
        place: The place.
        language: ``"zh"`` or ``"en"`` for that language's name; ``None`` keeps the name as
            the user wrote it (falling back to the name in the script the user used).
        written: The text the user wrote for the place.

    Returns:
        The name.
    """
    if language == "zh":
        return place.zh
    if language == "en":
        return place.en
    if written:
        return place.zh if detect_language(written) == "zh" else place.en
    return place.zh
