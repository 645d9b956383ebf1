"""The terms of a text, for matching queries against tools in Chinese and English (pure).

English is split into lower-case words (``get_current_weather`` and ``WeatherQuery`` into
their parts, with a light plural strip); Chinese, which has no spaces, into overlapping
character pairs (``今天天气`` -> ``今天``, ``天天``, ``天气``). A small table of concepts joins
the two languages: ``weather``, ``天气`` and ``气温`` all add the term ``#weather``, so a
Chinese query finds a tool described in English and the other way round. Generic words
(``get``, ``tool``, ``查询``, ``信息``) count for little, so they alone never pick a tool.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .._limits import cache_short_keys
from ._query_values import is_cjk

__all__ = [
    "CONCEPTS",
    "FILLER_PHRASES",
    "GENERIC_TERMS",
    "STOPWORDS",
    "concepts_in",
    "english_words",
    "text_terms",
]


def _words(text: str) -> list[str]:
    return text.split()


#: Concept -> the words that express it (English words; Chinese words of two characters or
#: more, matched as substrings).
CONCEPTS: dict[str, tuple[str, ...]] = {
    "weather": (
        "weather",
        "forecast",
        "temperature",
        "rain",
        "raining",
        "snow",
        "snowing",
        "sunny",
        "cloudy",
        "windy",
        "humidity",
        "天气",
        "气温",
        "温度",
        "下雨",
        "下雪",
        "预报",
        "气象",
        "冷不冷",
        "热不热",
    ),
    "math": (
        "calculate",
        "calculator",
        "calculation",
        "compute",
        "math",
        "arithmetic",
        "evaluate",
        "expression",
        "plus",
        "minus",
        "multiply",
        "multiplied",
        "divide",
        "divided",
        "计算",
        "算一下",
        "算算",
        "帮我算",
        "等于",
        "加上",
        "减去",
        "乘以",
        "除以",
        "表达式",
        "算式",
        "数学",
        "运算",
        "算术",
    ),
    "time": ("time", "clock", "timezone", "几点", "时间", "时区", "钟点"),
    "date": ("date", "calendar", "weekday", "日期", "几号", "星期几", "日历"),
    "search": ("search", "lookup", "find", "google", "搜索", "查找", "检索", "搜一下", "百度"),
    "translate": ("translate", "translation", "translator", "翻译", "译成", "译为"),
    "birthday": ("birthday", "birth", "born", "生日", "出生"),
    "person": (
        "person",
        "people",
        "employee",
        "staff",
        "colleague",
        "student",
        "contact",
        "人员",
        "员工",
        "同事",
        "同学",
        "联系人",
        "职员",
    ),
    "email": ("email", "mail", "inbox", "邮件", "邮箱"),
    "file": ("file", "document", "pdf", "文件", "文档"),
    "news": ("news", "headline", "新闻", "头条", "资讯"),
    "stock": ("stock", "ticker", "nasdaq", "股票", "股价", "股市"),
    "price": ("price", "cost", "价格", "多少钱", "价钱", "售价"),
    "currency": ("currency", "exchange", "汇率", "兑换", "货币", "换算"),
    "music": ("music", "song", "playlist", "音乐", "歌曲", "听歌", "播放"),
    "route": (
        "route",
        "navigation",
        "direction",
        "distance",
        "map",
        "路线",
        "导航",
        "距离",
        "地图",
        "怎么走",
    ),
    "flight": (
        "flight",
        "fly",
        "flying",
        "airline",
        "airport",
        "plane",
        "航班",
        "机票",
        "飞机",
        "机场",
        "飞往",
        "飞到",
    ),
    "convert": ("convert", "conversion", "converter", "换算", "转换", "折合"),
    "volume": ("volume", "loudness", "音量", "调大声", "调小声"),
    "train": ("train", "railway", "火车", "高铁", "动车", "车票"),
    "hotel": ("hotel", "booking", "酒店", "宾馆", "住宿", "订房"),
    "restaurant": ("restaurant", "food", "dinner", "lunch", "餐厅", "美食", "饭店", "吃饭"),
    "order": ("order", "purchase", "shipment", "订单", "下单", "购买", "物流", "快递"),
    "reminder": ("reminder", "remind", "alarm", "timer", "提醒", "闹钟", "定时"),
    "schedule": ("schedule", "meeting", "appointment", "日程", "会议", "安排", "预约"),
    "database": ("database", "sql", "table", "record", "数据库", "数据表", "记录"),
    "image": ("image", "picture", "photo", "drawing", "图片", "照片", "画图", "图像"),
    "code": ("code", "python", "program", "script", "代码", "程序", "脚本"),
    "light": ("light", "lamp", "灯光", "开灯", "关灯", "电灯"),
}

#: English words that say nothing about which tool is meant.
STOPWORDS = frozenset(
    _words(
        """a an the of in on at to for from by with and or is are was were be been it its this
    that these those what whats what's how which who whom whose when where why do does did
    can could would should will shall may might must please me my i you your we our us he
    she they them their there here like as about into than then so if not no yes any some
    all just also very much many today now tell show give let know want need get use using
    used via current currently information info tool function returns return value input
    output given specified query request find look up s t"""
    )
)

#: Chinese words that say nothing about which tool is meant.
GENERIC_TERMS = frozenset(
    _words(
        """查询 获取 指定 当前 今天 现在 目前 工具 功能 支持 参数 信息 可以 用于 返回 输入 输出 用户
    一个 这是 进行 以及 其他 相关 数据 结果 内容 名称 请问 帮我 一下 什么 怎么 怎样 如何 多少 哪个
    哪些 告诉 知道 需要 是否 的信 息的 """
    )
)

#: Phrases that frame a request rather than carry its subject, in Chinese and English.
FILLER_PHRASES: tuple[str, ...] = (
    "请问",
    "请帮我",
    "帮我",
    "帮忙",
    "麻烦",
    "告诉我",
    "给我",
    "我想知道",
    "我想",
    "想知道",
    "能不能",
    "可以",
    "一下",
    "怎么样",
    "怎样",
    "如何",
    "是什么",
    "什么",
    "是多少",
    "多少",
    "是哪天",
    "哪天",
    "是哪",
    "哪里",
    "在哪",
    "吗",
    "呢",
    "吧",
    "请",
    "查一查",
    "查查",
    "查一下",
    "今天",
    "明天",
    "现在",
    "目前",
    "当前",
    "最近",
    "看看",
    "看一下",
    "查看",
    "了解",
    "说说",
    "介绍",
    "知道",
    "一共",
    "总共",
)

#: Words that contain a concept's word without meaning it (计算机 is a computer, not a sum).
_NOT_CONCEPTS = ("计算机", "天气预报员")

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9']*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


_UNSTEMMED = frozenset({"news", "series", "species", "physics", "mathematics", "always", "does"})


def _stem(word: str) -> str:
    if word in _UNSTEMMED:
        return word
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def english_words(text: str) -> list[str]:
    """Return the lower-case, plural-stripped English words of ``text`` (identifiers split)."""
    spaced = _CAMEL.sub(" ", text.replace("_", " ").replace("-", " "))
    return [_stem(w.lower().removesuffix("'s")) for w in _WORD.findall(spaced)]


def _cjk_runs(text: str) -> list[str]:
    runs, current = [], []
    for char in text:
        if is_cjk(char):
            current.append(char)
        elif current:
            runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    return runs


@lru_cache(maxsize=1)
def _concept_lookup() -> tuple[dict[str, str], tuple[tuple[str, str], ...]]:
    english: dict[str, str] = {}
    chinese: list[tuple[str, str]] = []
    for concept, forms in CONCEPTS.items():
        for form in forms:
            if any(is_cjk(c) for c in form):
                chinese.append((form, concept))
            else:
                english.setdefault(_stem(form), concept)
    return english, tuple(chinese)


def concepts_in(text: str) -> set[str]:
    """Return the concepts (keys of :data:`CONCEPTS`) that ``text`` expresses."""
    english, chinese = _concept_lookup()
    found = {english[w] for w in english_words(text) if w in english}
    for word in _NOT_CONCEPTS:
        text = text.replace(word, " ")
    found.update(concept for form, concept in chinese if form in text)
    return found


def text_terms(text: str) -> frozenset[str]:
    """Return the matching terms of ``text``: words, CJK pairs and ``#concept`` terms.

    Args:
        text: A query, a tool name or a description.

    Returns:
        English words (without stopwords), CJK character pairs (a lone CJK character stands
        for itself), and ``"#" + concept`` for every concept the text expresses.
    """
    # Tool names and descriptions repeat on every request and are worth caching; long
    # one-off queries are not (they would only fill the memory).
    return _cached_terms(text)


@cache_short_keys(4096)
def _cached_terms(text: str) -> frozenset[str]:
    return _terms(text)


def _terms(text: str) -> frozenset[str]:
    terms = {w for w in english_words(text) if w not in STOPWORDS and len(w) > 1}
    for run in _cjk_runs(text):
        if len(run) == 1:
            terms.add(run)
        terms.update(run[i : i + 2] for i in range(len(run) - 1))
    terms.update(f"#{concept}" for concept in concepts_in(text))
    return frozenset(terms)
