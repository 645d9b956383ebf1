from __future__ import annotations

import pytest

from appclient._models import Tool
from appclient.server._agent_api import ComponentInfo
from appclient.server._text_terms import text_terms
from appclient.server._tool_matching import candidates_from, match_intents, score
from tests.server.agent_tools import (
    COMPONENT_INFOS,
    OPENAI_WEATHER,
    PERSON_LOOKUP,
    SEED_DECORATOR,
    SEED_FROM_FUNCTION,
    SEED_JAVA,
    SEED_RAW,
    TODAY,
)

MCP_SHAPE = {
    "type": "function",
    "function": {**SEED_RAW["function"], "description": "天气"},
}


def _names(query: str, *tools: dict) -> list[str]:
    candidates = candidates_from([Tool.model_validate(t) for t in tools], COMPONENT_INFOS)
    return [intent.candidate.name for intent in match_intents(query, candidates, today=TODAY)]


@pytest.mark.parametrize(
    "tool", [SEED_RAW, SEED_FROM_FUNCTION, SEED_DECORATOR, SEED_JAVA, OPENAI_WEATHER, MCP_SHAPE]
)
def test_weather_query_picks_the_client_weather_tool(tool):
    """Every seed shape of the weather tool wins 今天北京天气怎么样？ over WeatherQuery."""
    assert _names("今天北京天气怎么样？", tool) == [tool["function"]["name"]]


def test_a_tool_limited_to_chinese_cities_still_matches_an_english_query():
    """The description's restriction does not stop matching: weather is weather."""
    query = "What's the weather like today in celsius in Tokyo and Paris."
    assert _names(query, SEED_RAW) == ["get_current_weather"]


def test_without_client_tools_the_weather_component_is_used():
    """With no client tool, a weather query goes to the WeatherQuery component."""
    assert _names("北京和上海的天气") == ["WeatherQuery"]


def test_arithmetic_goes_to_the_calculator():
    """An expression alone is enough to pick the Calculator."""
    assert _names("(3+4)*2", SEED_RAW) == ["Calculator"]


def test_two_requests_give_two_intents_in_order():
    """A query asking for the weather and then a sum gives both tools, in that order."""
    assert _names("北京天气怎么样？再算一下 3*7", SEED_RAW) == ["get_current_weather", "Calculator"]


def test_each_intent_reads_only_its_part_of_the_query():
    """The weather tool does not see the calculation's clause, and vice versa."""
    candidates = candidates_from([Tool.model_validate(SEED_RAW)], COMPONENT_INFOS)
    weather, calculator = match_intents("上海天气怎么样？再算一下 3*7", candidates, today=TODAY)
    assert "3*7" not in weather.text
    assert "上海" not in calculator.text
    assert calculator.arguments.arguments == {"expression": "3*7"}


def test_clauses_for_the_same_tool_merge_into_one_intent():
    """Two weather clauses make one intent with both places."""
    candidates = candidates_from([], COMPONENT_INFOS)
    (intent,) = match_intents("北京天气？上海天气？", candidates, today=TODAY)
    assert [c["city"] for c in intent.arguments.calls] == ["北京", "上海"]


@pytest.mark.parametrize("query", ["你好", "查询订单状态", "计算机是什么", ""])
def test_unrelated_queries_match_nothing(query):
    """Greetings, generic words, and 计算机 (computer) pick no tool."""
    assert _names(query, SEED_RAW) == []


def test_a_component_without_its_required_value_is_reported_unmet():
    """今天天气怎么样 names no city: WeatherQuery comes back with city guessed."""
    candidates = candidates_from([], COMPONENT_INFOS)
    (intent,) = match_intents("今天天气怎么样", candidates, today=TODAY)
    assert intent.candidate.name == "WeatherQuery"
    assert intent.arguments.guessed == frozenset({"city"})


def test_client_tools_are_called_even_without_evidence():
    """A client tool that matches is chosen with sensible values for what is missing."""
    candidates = candidates_from([Tool.model_validate(SEED_RAW)], COMPONENT_INFOS)
    (intent,) = match_intents("今天天气怎么样", candidates, today=TODAY)
    assert intent.candidate.name == "get_current_weather"
    assert intent.arguments.arguments == {"location": "北京", "unit": "celsius"}


def test_a_much_better_component_beats_a_weak_client_match():
    """A client tool matching only on generic words loses to a component that fits."""
    weak = {
        "type": "function",
        "function": {"name": "query_orders", "description": "查询订单", "parameters": {}},
    }
    assert _names("查询北京的天气", weak) == ["WeatherQuery"]


def test_person_lookup_matches_its_seed_query():
    """The seed's 查找张三的信息 picks the person lookup tool."""
    assert _names("查找张三的信息", PERSON_LOOKUP) == ["lookup_person"]


def test_components_named_like_a_client_tool_are_hidden():
    """A client tool shadows a component of the same name."""
    tool = Tool.model_validate(
        {"type": "function", "function": {"name": "WeatherQuery", "description": "mine"}}
    )
    candidates = candidates_from([tool], COMPONENT_INFOS)
    assert [(c.name, c.cloud) for c in candidates] == [
        ("WeatherQuery", False),
        ("Calculator", True),
    ]


def test_name_matches_weigh_more_than_description_matches():
    """The same word scores higher in the name than in the description."""
    terms = text_terms("weather")
    in_name = candidates_from([], [ComponentInfo("weather", "x", {})])[0]
    in_description = candidates_from([], [ComponentInfo("x", "weather", {})])[0]
    assert score(terms, in_name) > score(terms, in_description) > 0


@pytest.mark.parametrize(
    ("query", "tool"),
    [
        (
            "把5公里换算成英里",
            {
                "name": "convert_units",
                "description": "Convert a value from one unit to another",
                "parameters": {"type": "object", "properties": {"value": {"type": "number"}}},
            },
        ),
        (
            "把音量调到7",
            {
                "name": "set_volume",
                "description": "Set the speaker volume",
                "parameters": {"type": "object", "properties": {"level": {"type": "integer"}}},
            },
        ),
        (
            "fly to Tokyo from Beijing tomorrow",
            {
                "name": "search_flights",
                "description": "Search flights between two cities",
                "parameters": {"type": "object", "properties": {"origin": {"type": "string"}}},
            },
        ),
        (
            "明天上海飞往广州",
            {
                "name": "search_flights",
                "description": "Search flights between two cities",
                "parameters": {"type": "object", "properties": {"origin": {"type": "string"}}},
            },
        ),
        ("Is it raining in Berlin?", OPENAI_WEATHER["function"]),
    ],
)
def test_everyday_words_find_the_tool_across_languages(query, tool):
    """换算, 音量, fly/飞往 and raining find tools about converting, volume, flights, weather."""
    assert _names(query, {"type": "function", "function": tool}) == [tool["name"]]


def test_clauses_giving_one_parameter_two_values_become_parallel_calls():
    """查询订单1，查询订单2 looks up both orders, not only the first one."""
    tool = {
        "type": "function",
        "function": {
            "name": "get_order",
            "description": "Look up an order by its id",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "integer"}, "verbose": {"type": "boolean"}},
                "required": ["order_id"],
            },
        },
    }
    candidates = candidates_from([Tool.model_validate(tool)], COMPONENT_INFOS)
    (intent,) = match_intents("查询订单1，查询订单2", candidates, today=TODAY)
    assert [c["order_id"] for c in intent.arguments.calls] == [1, 2]


def test_clauses_adding_different_parameters_stay_one_call():
    """北京天气怎么样，用华氏度 is one call with the place and the unit."""
    candidates = candidates_from([Tool.model_validate(SEED_RAW)], COMPONENT_INFOS)
    (intent,) = match_intents("北京天气怎么样，用华氏度", candidates, today=TODAY)
    assert intent.arguments.calls == ({"location": "北京", "unit": "fahrenheit"},)


def test_per_clause_calls_keep_each_clauses_places():
    """北京和上海的天气，广州天气 asks about all three cities."""
    candidates = candidates_from([], COMPONENT_INFOS)
    (intent,) = match_intents("北京和上海的天气，广州天气", candidates, today=TODAY)
    assert [c["city"] for c in intent.arguments.calls] == ["北京", "上海", "广州"]
