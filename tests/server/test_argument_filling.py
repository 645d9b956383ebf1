from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from appclient.server._agents._argument_filling import complete_arguments, plan_arguments
from tests.server.agent_tools import (
    OPENAI_WEATHER,
    PERSON_LOOKUP,
    SEED_DECORATOR,
    SEED_FROM_FUNCTION,
    SEED_JAVA,
    SEED_RAW,
    TODAY,
    parameters,
)
from tests.server.schema_strategies import QUERIES, parameters_schemas, validator

TWO_CITIES = "What's the weather like today in celsius in Tokyo and Paris."


def _object(**properties: Any) -> dict[str, Any]:
    """A parameters object where every property is required."""
    return {"type": "object", "properties": properties, "required": list(properties)}


def _tool_text(tool: dict[str, Any]) -> str:
    return f"{tool['function']['name']} {tool['function']['description']}"


# (parameters, query, tool text, expected argument sets)
CASES: list[tuple[dict[str, Any], str, str, list[dict[str, Any]]]] = [
    # The seed's three Python tool shapes and its Java/Go shape.
    (parameters(SEED_RAW), "今天北京天气怎么样？", "", [{"location": "北京", "unit": "celsius"}]),
    (
        parameters(SEED_FROM_FUNCTION),
        "今天北京的天气怎么样？",
        "",
        [{"location": "北京", "unit": "celsius"}],
    ),
    (
        parameters(SEED_DECORATOR),
        "今天北京的天气怎么样？",
        "",
        [{"location": "北京", "unit": "celsius"}],
    ),
    (parameters(SEED_JAVA), "今天北京的天气怎么样?", "", [{"location": "北京"}]),
    (parameters(SEED_JAVA), "北京现在多少华氏度", "", [{"location": "北京", "unit": "华氏度"}]),
    (
        parameters(SEED_DECORATOR),
        "上海明天的天气，用华氏度",
        "",
        [{"location": "上海", "unit": "fahrenheit"}],
    ),
    # Several places: parallel argument sets, named as the description's example asks.
    (
        parameters(OPENAI_WEATHER),
        TWO_CITIES,
        "",
        [{"location": "Tokyo", "unit": "celsius"}, {"location": "Paris", "unit": "celsius"}],
    ),
    (
        parameters(SEED_RAW),
        TWO_CITIES,
        "",
        [{"location": "东京", "unit": "celsius"}, {"location": "巴黎", "unit": "celsius"}],
    ),
    (
        parameters(SEED_RAW),
        "北京和上海的天气",
        "",
        [{"location": "北京", "unit": "celsius"}, {"location": "上海", "unit": "celsius"}],
    ),
    (parameters(OPENAI_WEATHER), "北京的天气", "", [{"location": "Beijing"}]),
    (_object(city={"type": "string"}), "weather in Tokyo", "", [{"city": "Tokyo"}]),
    (_object(city={"type": "string"}), "weather in Springfield?", "", [{"city": "Springfield"}]),
    (_object(city={"type": "string"}), "今天张家口天气怎么样", "天气", [{"city": "张家口"}]),
    # Enum synonyms.
    (_object(unit={"enum": ["C", "F"]}), "in °F please", "", [{"unit": "F"}]),
    (_object(unit={"enum": ["celsius", "fahrenheit"]}), "25℃", "", [{"unit": "celsius"}]),
    (_object(unit={"enum": ["metric", "imperial"]}), "用摄氏度", "", [{"unit": "metric"}]),
    (_object(lang={"enum": ["zh", "en"]}), "answer in English", "", [{"lang": "en"}]),
    (_object(order={"enum": ["asc", "desc"]}), "按价格从高到低", "", [{"order": "desc"}]),
    (_object(size={"enum": [1, 2, 3]}), "size 2", "", [{"size": 2}]),
    (_object(city={"enum": ["Beijing", "Shanghai"]}), "上海天气", "", [{"city": "Shanghai"}]),
    # Free-text units and languages without an enum.
    (_object(unit={"type": "string"}), "in fahrenheit", "", [{"unit": "fahrenheit"}]),
    # Numbers, tied to their parameter by a nearby word.
    (_object(days={"type": "integer"}), "北京未来三天的天气", "", [{"days": 3}]),
    (
        _object(limit={"type": "integer"}, query={"type": "string"}),
        "Search the web for quantum computing news, top 3 results",
        "web_search Search the web",
        [{"limit": 3, "query": "quantum computing news"}],
    ),
    (_object(price={"type": "number"}), "预算 99.5 元", "", [{"price": 99.5}]),
    (_object(count={"type": "integer", "maximum": 10}), "给我 50 个", "", [{"count": 10}]),
    # Dates.
    (
        _object(date={"type": "string", "format": "date"}),
        "明天的天气",
        "",
        [{"date": "2024-05-02"}],
    ),
    (_object(date={"type": "string"}), "weather tomorrow", "", [{"date": "2024-05-02"}]),
    (
        _object(day={"type": "string", "format": "date"}),
        "on 2024-06-15",
        "",
        [{"day": "2024-06-15"}],
    ),
    (
        _object(when={"type": "string", "format": "date-time"}),
        "后天",
        "",
        [{"when": "2024-05-03T00:00:00"}],
    ),
    # Arithmetic, quoted strings, the span of a lone free-text parameter.
    (
        _object(expression={"type": "string"}),
        "帮我算一下 (3+4)×2 等于多少",
        "",
        [{"expression": "(3+4)*2"}],
    ),
    (
        _object(text={"type": "string"}),
        "把“早上好”翻译成英文",
        "translate 翻译",
        [{"text": "早上好"}],
    ),
    (
        _object(text={"type": "string"}),
        'translate "good morning"',
        "translate",
        [{"text": "good morning"}],
    ),
    (parameters(PERSON_LOOKUP), "查找张三的信息", _tool_text(PERSON_LOOKUP), [{"name": "张三"}]),
    (
        _object(name={"type": "string"}),
        "请问张三同学的生日是哪天？",
        "get_birthday 查询同学的生日",
        [{"name": "张三"}],
    ),
    (
        _object(query={"type": "string"}),
        "搜索量子计算的最新进展",
        "web_search 搜索互联网",
        [{"query": "量子计算的最新进展"}],
    ),
    (
        _object(name={"type": "string"}),
        "Find information about John Smith",
        "lookup_person Look up a person's information",
        [{"name": "John Smith"}],
    ),
    # Booleans.
    (
        _object(include_forecast={"type": "boolean"}),
        "include the forecast",
        "",
        [{"include_forecast": True}],
    ),
    (
        _object(include_forecast={"type": "boolean"}),
        "no forecast please",
        "",
        [{"include_forecast": False}],
    ),
    # Arrays and nested objects.
    (
        _object(cities={"type": "array", "items": {"type": "string"}}),
        "北京、上海和广州",
        "",
        [{"cities": ["北京", "上海", "广州"]}],
    ),
    (
        _object(units={"type": "array", "items": {"enum": ["celsius", "fahrenheit"]}}),
        "both fahrenheit and celsius",
        "",
        [{"units": ["fahrenheit", "celsius"]}],
    ),
    (
        _object(numbers={"type": "array", "items": {"type": "integer"}}),
        "sum 1, 2 and 3",
        "",
        [{"numbers": [1, 2, 3]}],
    ),
    (
        _object(where=_object(city={"type": "string"})),
        "weather in Paris",
        "",
        [{"where": {"city": "Paris"}}],
    ),
]


@pytest.mark.parametrize(("schema", "query", "tool_text", "expected"), CASES)
def test_fills_arguments_from_the_query(schema, query, tool_text, expected):
    """Each query gives the expected complete argument sets for its schema."""
    plan = plan_arguments(schema, query, today=TODAY, tool_text=tool_text)
    assert list(plan.calls) == expected
    for arguments in plan.calls:
        assert validator(schema).is_valid(arguments)


# Required parameters the query says nothing about: (schema, query, expected arguments)
DEFAULT_CASES: list[tuple[dict[str, Any], str, dict[str, Any]]] = [
    (_object(unit={"enum": ["摄氏度", "华氏度"]}), "北京天气", {"unit": "摄氏度"}),
    (_object(unit={"enum": ["fahrenheit", "celsius"]}), "weather", {"unit": "fahrenheit"}),
    (_object(limit={"type": "integer", "minimum": 5}), "news", {"limit": 5}),
    (_object(count={"type": "integer"}), "news", {"count": 1}),
    (_object(date={"type": "string", "format": "date"}), "weather", {"date": "2024-05-01"}),
    (_object(flag={"type": "boolean"}), "x", {"flag": False}),
    (_object(mode={"type": "string", "default": "fast"}), "", {"mode": "fast"}),
    (
        _object(tags={"type": "array", "minItems": 1, "items": {"type": "string"}}),
        "",
        {"tags": [""]},
    ),
]


@pytest.mark.parametrize(("schema", "query", "expected"), DEFAULT_CASES)
def test_required_parameters_without_evidence_get_sensible_values(schema, query, expected):
    """The schema's default, else its first option, else a plain valid value fills a gap."""
    plan = plan_arguments(schema, query, today=TODAY)
    assert plan.arguments == expected
    assert plan.guessed == frozenset(expected)


def test_optional_parameters_without_evidence_are_left_out():
    """An optional parameter the query says nothing about is not sent."""
    schema = {
        "type": "object",
        "properties": {"unit": {"type": "string"}, "days": {"type": "integer"}},
    }
    assert plan_arguments(schema, "北京天气", today=TODAY).arguments == {}


def test_optional_defaults_are_left_to_the_tool():
    """An optional parameter with a default is left out; the tool applies its default."""
    schema = {"type": "object", "properties": {"unit": {"type": "string", "default": "celsius"}}}
    assert plan_arguments(schema, "北京天气", today=TODAY).arguments == {}


def test_plan_reports_which_values_came_from_the_query():
    """from_query names evidence, guessed names defaults."""
    plan = plan_arguments(parameters(SEED_RAW), "今天北京天气怎么样？", today=TODAY)
    assert plan.from_query == frozenset({"location"})
    assert plan.guessed == frozenset({"unit"})


def test_a_value_feeds_only_one_parameter():
    """Two place parameters take the two places in order (from/to), not both the first."""
    schema = _object(origin={"type": "string"}, destination={"type": "string"})
    assert plan_arguments(schema, "从北京到上海的机票", today=TODAY).arguments == {
        "origin": "北京",
        "destination": "上海",
    }


def test_parallel_sets_are_capped():
    """No more argument sets than max_calls."""
    plan = plan_arguments(parameters(SEED_RAW), "北京、上海、广州、深圳", today=TODAY, max_calls=2)
    assert [c["location"] for c in plan.calls] == ["北京", "上海"]


def test_arguments_keep_the_declared_order():
    """Arguments come out in the order the schema declares them."""
    assert list(plan_arguments(parameters(SEED_RAW), "用华氏度，北京", today=TODAY).arguments) == [
        "location",
        "unit",
    ]


def test_complete_arguments_fills_the_one_missing_required_input():
    """The ToolChoice rule: one missing required input is read from the query."""
    schema = parameters(SEED_RAW)
    given = {"unit": "celsius"}
    assert complete_arguments(schema, "北京今天的天气", given, today=TODAY) == {
        "unit": "celsius",
        "location": "北京",
    }


def test_complete_arguments_leaves_two_missing_inputs_alone():
    """With more than one required input missing the input is kept as given."""
    assert complete_arguments(parameters(SEED_RAW), "北京天气", {}, today=TODAY) == {}


def test_complete_arguments_keeps_given_values():
    """Given values win over the query."""
    given = {"location": "上海", "unit": "celsius"}
    assert complete_arguments(parameters(SEED_RAW), "北京天气", given, today=TODAY) == given


def test_parameters_that_are_not_an_object_give_empty_arguments():
    """A tool without a usable schema is called with no arguments."""
    assert plan_arguments("nonsense", "北京天气", today=TODAY).arguments == {}


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(parameters_schemas(), QUERIES)
def test_every_argument_set_is_valid_against_its_schema(schema, query):
    """For any reasonable schema and query, every argument set validates with jsonschema."""
    plan = plan_arguments(schema, query, today=TODAY)
    assert plan.calls
    check = validator(schema)
    for arguments in plan.calls:
        assert check.is_valid(arguments), (schema, query, arguments)
        assert set(schema["required"]) <= set(arguments)


def test_leftover_spans_are_weak_evidence():
    """An unknown place read from what is left of the query is marked weak; a known one is not."""
    schema = parameters(SEED_RAW)
    assert plan_arguments(schema, "今天张家口天气怎么样", today=TODAY, tool_text="天气").weak == {
        "location"
    }
    assert plan_arguments(schema, "今天北京天气怎么样", today=TODAY).weak == frozenset()


def test_an_email_address_in_the_query_fills_the_address_parameter():
    """The address the query names goes to the email parameter, and only there."""
    schema = {
        "type": "object",
        "properties": {
            "to": {"type": "string", "format": "email", "description": "recipient address"},
            "body": {"type": "string", "description": "the message body"},
        },
        "required": ["to", "body"],
    }
    plan = plan_arguments(schema, "send an email to alice@example.com: the report is ready")
    assert plan.arguments["to"] == "alice@example.com"
    assert "example.com" not in plan.arguments["body"]
    assert "to" in plan.from_query


def test_an_email_parameter_is_known_by_its_name():
    """A parameter named like ``recipient_email`` takes the query's address, format or not."""
    schema = _object(recipient_email={"type": "string"})
    assert plan_arguments(schema, "给 bob@example.com 发邮件").arguments == {
        "recipient_email": "bob@example.com"
    }


def test_referenced_parameter_schemas_are_filled_by_their_target():
    """A parameter given by ``$ref`` (pydantic's ``$defs``) gets a value valid for the target."""
    schema = {
        "type": "object",
        "$defs": {
            "Place": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "room": {"type": "integer"}},
                "required": ["city", "room"],
            }
        },
        "properties": {"where": {"$ref": "#/$defs/Place"}},
        "required": ["where"],
    }
    plan = plan_arguments(schema, "meet in Paris, room 5", today=TODAY)
    assert plan.arguments == {"where": {"city": "Paris", "room": 5}}
    assert validator(schema).is_valid(plan.arguments)


@pytest.mark.parametrize(
    "query",
    ["flights to Tokyo from Beijing tomorrow", "去东京，从北京出发", "from Beijing to Tokyo"],
)
def test_origin_and_destination_follow_from_and_to(query):
    """``from X``/``从X`` fills the origin and ``to Y``/``去Y`` the destination, in any order."""
    schema = _object(origin={"type": "string"}, destination={"type": "string"})
    arguments = plan_arguments(schema, query, today=TODAY).arguments
    assert arguments["origin"] in ("Beijing", "北京")
    assert arguments["destination"] in ("Tokyo", "东京")


def test_a_destination_alone_does_not_fill_the_origin():
    """``flights to Tokyo`` names the destination; the origin is a guess, not Tokyo."""
    schema = _object(origin={"type": "string"}, destination={"type": "string"})
    plan = plan_arguments(schema, "flights to Tokyo", today=TODAY)
    assert plan.arguments["destination"] == "Tokyo"
    assert plan.guessed == {"origin"}


def test_each_quoted_text_goes_to_its_own_text_parameter():
    """Two quoted pieces fill two free-text parameters in order; the second is not lost."""
    schema = _object(subject={"type": "string"}, body={"type": "string"})
    query = "发邮件，主题是“会议”，内容是“明天下午三点开会”"
    assert plan_arguments(schema, query, today=TODAY).arguments == {
        "subject": "会议",
        "body": "明天下午三点开会",
    }


def test_a_value_its_pattern_refuses_gives_way_to_the_descriptions_example():
    """An id the query writes without the pattern's prefix becomes the example: a valid call."""
    schema = _object(user_id={"type": "string", "pattern": r"^U\d+$", "description": "e.g. U1"})
    arguments = plan_arguments(schema, "find user 12345", today=TODAY).arguments
    assert validator(schema).is_valid(arguments)


def test_a_required_time_without_one_in_the_query_is_a_valid_time():
    """A ``format: time`` parameter the query says nothing about gets midnight, not junk."""
    schema = _object(start={"type": "string", "format": "time"})
    assert plan_arguments(schema, "hello", today=TODAY).arguments == {"start": "00:00:00"}


def test_people_counts_fill_passenger_parameters():
    """``for 2 people`` and ``三个人`` give the number of passengers."""
    schema = {"type": "object", "properties": {"passengers": {"type": "integer", "minimum": 1}}}
    assert plan_arguments(schema, "flights to Paris for 2 people", today=TODAY).arguments == {
        "passengers": 2
    }
    assert plan_arguments(schema, "后天去广州的机票，三个人", today=TODAY).arguments == {
        "passengers": 3
    }
