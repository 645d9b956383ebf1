"""Tables the argument filler reads: value synonyms and what common parameters mean (data).

Kept apart from the filling logic so the words can grow without touching the algorithm:

- :data:`VALUE_SYNONYMS`: a canonical value and the ways people write it (``摄氏度``, ``°C``
  and ``celsius`` are one value), used to match enum members and free-text units.
- :data:`REQUIRED_DEFAULTS`: a sensible value for a required parameter the query says
  nothing about, by parameter name (``unit`` -> ``celsius``, ``limit`` -> 1).
- The name and description cues that mark a parameter as a place, a date, an email address,
  an arithmetic expression, or a number of days/items/people.
"""

from __future__ import annotations

__all__ = [
    "DATE_DESCRIPTION_CUES",
    "DATE_NAME_WORDS",
    "DESTINATION_NAME_WORDS",
    "DESTINATION_TEXT",
    "EMAIL_DESCRIPTION_CUES",
    "EMAIL_NAME_WORDS",
    "EXPRESSION_DESCRIPTION_CUES",
    "EXPRESSION_NAME_WORDS",
    "IDENTIFIER_NAME_WORDS",
    "NUMBER_CUES",
    "ORIGIN_NAME_WORDS",
    "ORIGIN_TEXT",
    "PLACE_DESCRIPTION_CUES",
    "PLACE_NAME_WORDS",
    "REQUIRED_DEFAULTS",
    "TEXT_LABELS",
    "VALUE_SYNONYMS",
    "VOCABULARY_BY_NAME",
]


def _words(text: str) -> list[str]:
    return text.split()


#: Canonical value -> lower-case spellings meaning it. One-letter spellings identify an enum
#: member (``"C"`` is celsius) but are never searched for in a query.
VALUE_SYNONYMS: dict[str, tuple[str, ...]] = {
    "celsius": ("celsius", "centigrade", "°c", "℃", "摄氏", "摄氏度", "c", "metric", "公制"),
    "fahrenheit": ("fahrenheit", "°f", "℉", "华氏", "华氏度", "f", "imperial", "英制"),
    "kelvin": ("kelvin", "开尔文", "k"),
    "km": ("km", "kilometer", "kilometre", "kilometers", "kilometres", "公里", "千米"),
    "mile": ("mile", "miles", "英里"),
    "meter": ("meter", "meters", "metre", "metres", "公尺"),
    "foot": ("foot", "feet", "ft", "英尺"),
    "inch": ("inch", "inches", "英寸"),
    "kg": ("kg", "kgs", "kilogram", "kilograms", "公斤", "千克"),
    "lb": ("lb", "lbs", "pound", "pounds", "英磅"),
    "zh": ("zh", "zh-cn", "zh_cn", "chinese", "中文", "汉语", "普通话", "简体中文", "cn"),
    "en": ("en", "en-us", "en_us", "english", "英文", "英语"),
    "ja": ("ja", "japanese", "日文", "日语"),
    "ko": ("ko", "korean", "韩文", "韩语"),
    "fr": ("fr", "french", "法文", "法语"),
    "de": ("de", "german", "德文", "德语"),
    "es": ("es", "spanish", "西班牙语", "西班牙文"),
    "ru": ("ru", "russian", "俄语", "俄文"),
    "asc": ("asc", "ascending", "升序", "从小到大", "从低到高", "从少到多"),
    "desc": ("desc", "descending", "降序", "从大到小", "从高到低", "从多到少"),
    "walking": ("walking", "walk", "步行", "走路"),
    "driving": ("driving", "drive", "car", "驾车", "开车", "自驾"),
    "transit": ("transit", "bus", "subway", "公交", "地铁", "公共交通"),
    "cycling": ("cycling", "bike", "bicycle", "骑行", "骑车"),
    "male": ("male", "man", "男性", "男生"),
    "female": ("female", "woman", "女性", "女生"),
    "daily": ("daily", "每天", "每日"),
    "hourly": ("hourly", "每小时"),
    "weekly": ("weekly", "每周"),
    "monthly": ("monthly", "每月"),
}

_UNITS = ("celsius", "fahrenheit", "kelvin", "km", "mile", "meter", "foot", "inch", "kg", "lb")

#: Free-text parameters (no enum) whose values come from one vocabulary of VALUE_SYNONYMS.
VOCABULARY_BY_NAME: dict[str, tuple[str, ...]] = {
    "unit": _UNITS,
    "units": _UNITS,
    "scale": ("celsius", "fahrenheit", "kelvin"),
    "language": ("zh", "en", "ja", "ko", "fr", "de", "es", "ru"),
    "lang": ("zh", "en", "ja", "ko", "fr", "de", "es", "ru"),
    "locale": ("zh", "en", "ja", "ko", "fr", "de", "es", "ru"),
    "order": ("asc", "desc"),
    "sort": ("asc", "desc"),
    "mode": ("walking", "driving", "transit", "cycling"),
}

#: A value for a REQUIRED parameter the query gives no evidence for, by (last word of the)
#: parameter name. Values starting with "#" are computed: "#language" the query's language
#: code, "#today" today's date, "#place" a place, "#text" the query's subject, "#timezone"
#: and "#currency" by the query's language.
REQUIRED_DEFAULTS: dict[str, object] = {
    **dict.fromkeys(("unit", "units", "scale", "temperature_unit", "temp_unit"), "celsius"),
    **dict.fromkeys(
        (
            "count",
            "limit",
            "n",
            "num",
            "number",
            "top_k",
            "topk",
            "k",
            "size",
            "page_size",
            "max_results",
            "num_results",
            "quantity",
            "days",
            "num_days",
            "top_n",
            "max_items",
            "page",
            "page_number",
            "page_no",
            "per_page",
        ),
        1,
    ),
    **dict.fromkeys(("offset", "skip", "start_index"), 0),
    **dict.fromkeys(("language", "lang", "locale"), "#language"),
    **dict.fromkeys(("date", "day", "start_date", "end_date", "target_date", "when"), "#today"),
    **dict.fromkeys(
        ("city", "location", "place", "region", "address", "destination", "province"), "#place"
    ),
    **dict.fromkeys(
        (
            "query",
            "q",
            "question",
            "keyword",
            "keywords",
            "text",
            "prompt",
            "input",
            "content",
            "message",
            "search",
            "term",
            "name",
            "person",
            "topic",
            "subject",
        ),
        "#text",
    ),
    **dict.fromkeys(("timezone", "tz", "time_zone"), "#timezone"),
    "currency": "#currency",
}

#: Words of a parameter's name that make it a place.
PLACE_NAME_WORDS = frozenset(
    _words(
        """location city place region address country province state destination origin area
    town where district site departure arrival loc"""
    )
)
#: Words in a parameter's description that make it a place.
PLACE_DESCRIPTION_CUES: tuple[str, ...] = (
    "城市",
    "地点",
    "位置",
    "地区",
    "省",
    "市名",
    "国家",
    "目的地",
    "出发地",
    "地址",
    "地名",
    "location",
    "city",
    "place",
    "country",
    "region",
    "address",
)

#: English word of a free-text parameter's name -> the Chinese words that label its value in a
#: query (``主题是会议`` gives the subject ``会议``).
TEXT_LABELS: dict[str, tuple[str, ...]] = {
    "subject": ("主题", "标题"),
    "title": ("标题", "题目", "名称"),
    "body": ("内容", "正文"),
    "content": ("内容", "正文"),
    "message": ("内容", "消息", "留言"),
    "text": ("内容", "文本"),
    "note": ("备注", "说明"),
    "remark": ("备注",),
    "comment": ("评论", "备注"),
    "reason": ("原因", "理由"),
    "name": ("名字", "姓名", "名称"),
    "description": ("描述", "说明"),
    "phone": ("电话", "手机"),
    "keyword": ("关键词", "关键字"),
}

#: Words of a parameter's name that make it an email address.
EMAIL_NAME_WORDS = frozenset({"email", "mail"})
#: Words in a parameter's description that make it an email address.
EMAIL_DESCRIPTION_CUES: tuple[str, ...] = (
    "email address",
    "e-mail address",
    "mail address",
    "邮箱",
    "邮件地址",
)

#: Words of a place parameter's name that make it where a trip starts, or where it ends.
ORIGIN_NAME_WORDS = frozenset({"origin", "from", "departure", "source", "src", "depart", "start"})
DESTINATION_NAME_WORDS = frozenset({"destination", "to", "arrival", "dest", "arrive", "target"})
#: Regular expressions for the words right before (or after) a place that make it the origin
#: (``from Beijing``, ``从北京``, ``北京出发``) or the destination (``to Tokyo``, ``去东京``).
ORIGIN_TEXT = (r"(?:\bfrom|从|由|自)\s*$", r"^\s*(?:出发|起飞|始发)")
DESTINATION_TEXT = (r"(?:\bto|\binto|到|去|至|往|飞)\s*$", r"^\s*(?:到达|抵达)")

#: Words of a parameter's name that make it a date.
DATE_NAME_WORDS = frozenset({"date", "day", "when", "dt", "birthday"})
#: Words in a parameter's description that make it a date.
DATE_DESCRIPTION_CUES: tuple[str, ...] = ("日期", "yyyy-mm-dd", "date")

#: Words of a parameter's name that make it an arithmetic expression.
EXPRESSION_NAME_WORDS = frozenset({"expression", "expr", "formula", "equation", "calculation"})
#: Words in a parameter's description that make it an arithmetic expression.
EXPRESSION_DESCRIPTION_CUES: tuple[str, ...] = (
    "表达式",
    "算式",
    "公式",
    "expression",
    "formula",
    "arithmetic",
)

#: Name word of a numeric parameter -> words near a number in the query that tie it there.
NUMBER_CUES: dict[str, tuple[str, ...]] = {
    "day": ("天", "日", "day"),
    "hour": ("小时", "hour", "hr"),
    "minute": ("分钟", "minute", "min"),
    "count": ("个", "条", "项", "篇", "top", "前", "result", "item"),
    "limit": ("个", "条", "项", "篇", "top", "前", "result", "item"),
    "num": ("个", "条", "项", "篇", "top", "前", "result", "item"),
    "n": ("个", "条", "项", "篇", "top", "前", "result", "item"),
    "size": ("个", "条", "项", "top", "result", "item"),
    "age": ("岁", "year", "old"),
    "price": ("元", "块", "dollar", "usd", "¥", "$"),
    "amount": ("元", "块", "dollar", "usd", "¥", "$"),
    "temperature": ("度", "°", "degree"),
    "page": ("页", "page"),
    "year": ("年", "year"),
    "month": ("月", "month"),
    "people": ("人", "位", "people", "person", "guest"),
    "guest": ("人", "位", "people", "person", "guest"),
    "passenger": ("人", "位", "people", "person", "passenger", "adult"),
    "adult": ("人", "位", "people", "person", "adult"),
    "traveler": ("人", "位", "people", "person", "traveler", "traveller"),
}

#: Words of a parameter name whose value is an id, a path or a URL: copied whole from the
#: query, never a guess (``order_id``, ``file_path``, ``page_url``).
IDENTIFIER_NAME_WORDS = frozenset(
    {
        "id",
        "sku",
        "uuid",
        "path",
        "file",
        "filename",
        "filepath",
        "dir",
        "directory",
        "folder",
        "url",
        "uri",
        "link",
        "href",
        "isbn",
    }
)
