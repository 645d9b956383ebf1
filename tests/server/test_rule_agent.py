from __future__ import annotations

import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from appclient._core._models import ToolChoice
from appclient.server._agents import _rule_agent as rule_agent_module
from appclient.server._agents._agent_api import Agent, Decision, PlannedCall, ToolResult, Turn
from appclient.server._agents._components import Calculator, default_components
from appclient.server._agents._rule_agent import RuleAgent
from appclient.server._runs._tool_choice import UnknownToolChoiceError
from appclient.server._settings import RULE_AGENT_MAX_CLAUSES, RULE_AGENT_MAX_QUERY_CHARS
from tests.server.agent_tools import (
    OPENAI_WEATHER,
    PERSON_LOOKUP,
    SEED_DECORATOR,
    SEED_FROM_FUNCTION,
    SEED_JAVA,
    SEED_RAW,
    TODAY,
    agent_input,
)
from tests.server.schema_strategies import QUERIES, parameters_schemas, validator

TWO_CITIES = "What's the weather like today in celsius in Tokyo and Paris."
#: A weather tool with a city and an optional date, for follow-ups that change only the date.
DATED_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "查询天气",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "城市，例如北京"},
                "date": {"type": "string", "format": "date"},
            },
            "required": ["city"],
        },
    },
}


@pytest.fixture
def agent() -> RuleAgent:
    return RuleAgent(today=lambda: TODAY)


def _result(name: str, output: str, call_id: str = "c1", **arguments: Any) -> ToolResult:
    return ToolResult(call_id, name, arguments, output)


def test_rule_agent_is_an_agent(agent):
    """RuleAgent satisfies the Agent protocol."""
    assert isinstance(agent, Agent)


def test_default_components_are_the_built_in_ones():
    """Without components the agent knows WeatherQuery and Calculator."""
    assert [c.info.name for c in RuleAgent().components] == ["WeatherQuery", "Calculator"]
    assert repr(RuleAgent()) == "RuleAgent(components=[WeatherQuery, Calculator])"


@pytest.mark.parametrize(
    ("tool", "query"),
    [
        (SEED_RAW, "今天北京天气怎么样？"),
        (SEED_FROM_FUNCTION, "今天北京的天气怎么样？"),
        (SEED_DECORATOR, "今天北京的天气怎么样？"),
    ],
)
def test_seed_tools_get_beijing_and_a_unit(agent, tool, query):
    """Each of the seed's three Python shapes gives {"location": "北京", "unit": "celsius"}."""
    decision = agent.decide(agent_input(query, tool))
    assert decision.calls == (
        PlannedCall("get_current_weather", {"location": "北京", "unit": "celsius"}),
    )


def test_seed_java_tool_leaves_the_optional_unit_out(agent):
    """The Java/Go tool's unit is optional and the query names none."""
    decision = agent.decide(agent_input("今天北京的天气怎么样?", SEED_JAVA))
    assert decision.calls == (PlannedCall("get_cur_whether", {"location": "北京"}),)


def test_local_calls_come_with_a_thought(agent):
    """The thought says a local tool is called, in the query's language."""
    decision = agent.decide(agent_input("今天北京天气怎么样？", SEED_RAW))
    assert decision.thought == "需要调用本地工具 get_current_weather"


def test_two_cities_give_two_parallel_calls(agent):
    """The English two-city query calls the tool once per city."""
    decision = agent.decide(agent_input(TWO_CITIES, OPENAI_WEATHER))
    assert decision.calls == (
        PlannedCall("get_current_weather", {"location": "Tokyo", "unit": "celsius"}),
        PlannedCall("get_current_weather", {"location": "Paris", "unit": "celsius"}),
    )


def test_two_cities_with_the_seed_tool_use_its_chinese_names(agent):
    """The seed tool's example is Chinese (举例：北京), so the cities are sent in Chinese."""
    decision = agent.decide(agent_input(TWO_CITIES, SEED_RAW))
    assert [c.arguments["location"] for c in decision.calls] == ["东京", "巴黎"]


def test_two_chinese_cities_give_two_calls(agent):
    """北京和上海的天气 calls the tool twice."""
    decision = agent.decide(agent_input("北京和上海的天气", SEED_RAW))
    assert [c.arguments["location"] for c in decision.calls] == ["北京", "上海"]


def test_a_client_tool_is_preferred_over_the_weather_component(agent):
    """The conversation's own weather tool is called, not WeatherQuery."""
    decision = agent.decide(agent_input("上海天气", SEED_RAW))
    assert [(c.name, c.cloud) for c in decision.calls] == [("get_current_weather", False)]


def test_without_client_tools_the_weather_component_runs_in_the_cloud(agent):
    """WeatherQuery is called as a cloud component."""
    decision = agent.decide(agent_input("上海明天的天气"))
    assert decision.calls == (
        PlannedCall("WeatherQuery", {"city": "上海", "date": "2024-05-02"}, cloud=True),
    )
    assert decision.thought == "需要调用云端组件 WeatherQuery"


def test_answers_from_the_output(agent):
    """After the output comes back the answer quotes it."""
    done = (_result("get_current_weather", "北京今天25度", location="北京", unit="celsius"),)
    decision = agent.decide(agent_input("今天北京天气怎么样？", SEED_RAW, results=done))
    assert decision.calls == ()
    assert "北京今天25度" in decision.answer
    assert decision.answer.startswith("根据工具 get_current_weather")


def test_answers_in_english_for_an_english_query(agent):
    """An English query gets an English answer listing every output."""
    done = (
        _result("get_current_weather", "Tokyo: 20C", "c1", location="Tokyo"),
        _result("get_current_weather", "Paris: 15C", "c2", location="Paris"),
    )
    answer = agent.decide(agent_input(TWO_CITIES, OPENAI_WEATHER, results=done)).answer
    assert answer.startswith("Here is what the tools returned:")
    assert "Tokyo: 20C" in answer
    assert "Paris: 15C" in answer


def test_chains_to_a_second_tool_the_query_asks_for(agent):
    """Weather AND a calculation: after the weather output, the calculator is called."""
    query = "北京天气怎么样？再算一下 (3+4)*2"
    first = agent.decide(agent_input(query, SEED_RAW))
    assert [c.name for c in first.calls] == ["get_current_weather"]
    done = (_result("get_current_weather", "北京今天25度", location="北京", unit="celsius"),)
    second = agent.decide(agent_input(query, SEED_RAW, results=done))
    assert second.calls == (PlannedCall("Calculator", {"expression": "(3+4)*2"}, cloud=True),)


def test_answers_once_every_tool_was_called(agent):
    """With the weather and the calculator done, the answer quotes both."""
    query = "北京天气怎么样？再算一下 (3+4)*2"
    done = (
        _result("get_current_weather", "北京今天25度", "c1", location="北京"),
        ToolResult("c2", "Calculator", {"expression": "(3+4)*2"}, "(3+4)*2 = 14", cloud=True),
    )
    answer = agent.decide(agent_input(query, SEED_RAW, results=done)).answer
    assert "北京今天25度" in answer
    assert "(3+4)*2 = 14" in answer


def test_never_repeats_a_tool_already_called_in_the_turn(agent):
    """A tool that already ran in this turn is not called again, even with other arguments."""
    done = (_result("get_current_weather", "上海今天20度", location="上海", unit="celsius"),)
    decision = agent.decide(agent_input("今天北京天气怎么样？", SEED_RAW, results=done))
    assert decision.calls == ()


def test_plain_answer_without_a_matching_tool_echoes_the_query(agent):
    """No tool fits: a short reply that quotes the query and lists the tools."""
    answer = agent.decide(agent_input("查询订单状态", SEED_RAW)).answer
    assert "“查询订单状态”" in answer
    assert "get_current_weather" in answer


def test_plain_answer_is_deterministic(agent):
    """The same input always gives the same plain answer."""
    first = agent.decide(agent_input("tell me a joke", SEED_RAW))
    assert first == agent.decide(agent_input("tell me a joke", SEED_RAW))
    assert first.answer.startswith("You said: “tell me a joke”.")


def test_greetings_get_a_greeting(agent):
    """你好 is answered with a greeting that lists what the agent can do."""
    answer = agent.decide(agent_input("你好")).answer
    assert answer.startswith("你好！")
    assert "WeatherQuery" in answer


def test_an_empty_query_asks_how_to_help(agent):
    """Nothing asked, nothing called."""
    assert agent.decide(agent_input("")).answer == "How can I help you?"


def test_long_queries_are_shortened_in_the_echo(agent):
    """The echo is cut to a few hundred characters."""
    answer = agent.decide(agent_input("blah " * 500)).answer
    assert len(answer) < 400
    assert "…" in answer


def test_attached_files_are_acknowledged(agent):
    """File names of the turn are mentioned in a plain answer."""
    answer = agent.decide(agent_input("总结一下", file_names=("report.pdf",))).answer
    assert "report.pdf" in answer


def test_asks_for_the_city_a_component_needs(agent):
    """今天天气怎么样 without a city: the agent asks for it instead of guessing."""
    answer = agent.decide(agent_input("今天天气怎么样")).answer
    assert answer.startswith("要用 WeatherQuery 回答，还需要知道：city")


def test_follow_up_reuses_the_previous_tool(agent):
    """那上海呢？ after a Beijing weather question asks the same tool about Shanghai."""
    history = (Turn("今天北京天气怎么样？", "北京今天25度"),)
    decision = agent.decide(agent_input("那上海呢？", SEED_RAW, history=history))
    assert decision.calls == (
        PlannedCall("get_current_weather", {"location": "上海", "unit": "celsius"}),
    )


def test_follow_up_with_a_new_date_keeps_the_previous_place(agent):
    """那明天呢？ after a Beijing weather question asks about Beijing tomorrow, not about 那."""
    history = (Turn("北京今天天气怎么样", "晴"),)
    decision = agent.decide(agent_input("那明天呢", DATED_WEATHER, history=history))
    assert decision.calls == (PlannedCall("get_weather", {"city": "北京", "date": "2024-05-02"}),)


def test_follow_ups_chain_over_several_turns(agent):
    """北京 → 那上海呢 → 广州呢: the third query still asks the weather tool, about Guangzhou."""
    history = (Turn("今天北京天气怎么样？", "北京今天25度"), Turn("那上海呢？", "上海今天25度"))
    decision = agent.decide(agent_input("广州呢？", SEED_RAW, history=history))
    assert decision.calls == (
        PlannedCall("get_current_weather", {"location": "广州", "unit": "celsius"}),
    )


def test_a_later_follow_up_keeps_the_values_of_earlier_ones(agent):
    """北京今天 → 那上海呢 → 那明天呢 asks about Shanghai tomorrow, not Beijing."""
    history = (Turn("北京今天天气怎么样", "晴"), Turn("那上海呢", "多云"))
    decision = agent.decide(agent_input("那明天呢", DATED_WEATHER, history=history))
    assert decision.calls == (PlannedCall("get_weather", {"city": "上海", "date": "2024-05-02"}),)


def test_follow_up_without_a_value_answers_plainly(agent):
    """A follow-up that gives no value for the previous tool is not a tool call."""
    history = (Turn("今天北京天气怎么样？", "北京今天25度"),)
    assert agent.decide(agent_input("谢谢", SEED_RAW, history=history)).calls == ()


def test_person_lookup_reads_the_name(agent):
    """The seed's 查找张三的信息 gives name=张三."""
    decision = agent.decide(agent_input("查找张三的信息", PERSON_LOOKUP))
    assert decision.calls == (PlannedCall("lookup_person", {"name": "张三"}),)


def test_tool_choice_forces_a_client_tool_with_its_input(agent):
    """A forced client tool is called with the given input, whatever the query says."""
    choice = ToolChoice.model_validate(
        {
            "type": "function",
            "function": {
                "name": "get_current_weather",
                "input": {"location": "上海", "unit": "celsius"},
            },
        }
    )
    decision = agent.decide(agent_input("今天北京天气怎么样？", SEED_RAW, tool_choice=choice))
    assert decision.calls == (
        PlannedCall("get_current_weather", {"location": "上海", "unit": "celsius"}),
    )
    assert decision.thought == "按 tool_choice 调用 get_current_weather"


def test_tool_choice_forces_a_component_and_fills_the_missing_city(agent):
    """Forcing WeatherQuery without a city takes the city from the query."""
    choice = ToolChoice.model_validate(
        {"type": "function", "function": {"name": "WeatherQuery", "input": {}}}
    )
    decision = agent.decide(agent_input("北京今天的天气", tool_choice=choice))
    assert decision.calls == (PlannedCall("WeatherQuery", {"city": "北京"}, cloud=True),)


def test_tool_choice_is_ignored_once_results_exist(agent):
    """tool_choice only shapes the first decision of a turn."""
    choice = ToolChoice.model_validate(
        {"type": "function", "function": {"name": "WeatherQuery", "input": {"city": "北京"}}}
    )
    done = (ToolResult("c1", "WeatherQuery", {"city": "北京"}, "北京今天晴", cloud=True),)
    decision = agent.decide(agent_input("北京天气", tool_choice=choice, results=done))
    assert decision == Decision.reply("根据云端组件 WeatherQuery 的结果：北京今天晴")


def test_tool_choice_auto_decides_normally(agent):
    """Auto is the normal behaviour."""
    choice = ToolChoice(type="auto")
    decision = agent.decide(agent_input("今天北京天气怎么样？", SEED_RAW, tool_choice=choice))
    assert [c.name for c in decision.calls] == ["get_current_weather"]


def test_tool_choice_with_an_unknown_name_raises(agent):
    """An unknown forced name is an error the server turns into a 400."""
    choice = ToolChoice.model_validate(
        {"type": "function", "function": {"name": "Nope", "input": {}}}
    )
    with pytest.raises(UnknownToolChoiceError, match="'Nope'"):
        agent.decide(agent_input("x", tool_choice=choice))


def test_uses_its_own_components_when_the_input_lists_none():
    """An AgentInput without components falls back to the agent's own."""
    agent = RuleAgent(components=[Calculator()], today=lambda: TODAY)
    decision = agent.decide(agent_input("1+1", components=()))
    assert decision.calls == (PlannedCall("Calculator", {"expression": "1+1"}, cloud=True),)


def test_accepts_any_component_like_object():
    """Components are read through their info only."""
    infos = [c.info for c in default_components()]

    class Described:
        def __init__(self, info):
            self.info = info

    agent = RuleAgent(components=[Described(i) for i in infos])
    assert [c.info.name for c in agent.components] == ["WeatherQuery", "Calculator"]


def test_is_safe_to_share_between_threads(agent):
    """Concurrent decisions give the same results as sequential ones."""
    query = agent_input(TWO_CITIES, OPENAI_WEATHER)
    expected = agent.decide(query)
    seen: list[Decision] = []

    def work() -> None:
        for _ in range(20):
            seen.append(agent.decide(query))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [expected] * 80


def _tool(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": "get_weather", "description": "天气 weather", "parameters": schema},
    }


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(parameters_schemas(), QUERIES.map(lambda q: f"weather 天气 {q}"))
def test_every_call_validates_against_its_tool_schema(schema, query):
    """For any reasonable schema, every call the agent makes is valid for that tool."""
    agent = RuleAgent(today=lambda: TODAY)
    decision = agent.decide(agent_input(query, _tool(schema)))
    assert decision.calls
    for call in decision.calls:
        assert call.name == "get_weather"
        assert validator(schema).is_valid(call.arguments), (schema, query, call.arguments)


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(parameters_schemas(), QUERIES, st.sampled_from(["get_weather", "WeatherQuery"]))
def test_forced_calls_with_one_missing_input_validate(schema, query, name):
    """A forced call missing one required input is completed into a valid call."""
    required = schema["required"]
    given_input: dict[str, Any] = {}
    if name == "get_weather" and len(required) != 1:
        return
    choice = ToolChoice.model_validate(
        {"type": "function", "function": {"name": name, "input": given_input}}
    )
    agent = RuleAgent(today=lambda: TODAY)
    (call,) = agent.decide(agent_input(query, _tool(schema), tool_choice=choice)).calls
    target = schema if name == "get_weather" else default_components()[0].info.parameters
    assert validator(target).is_valid(call.arguments), (target, query, call.arguments)


@settings(max_examples=100)
@given(st.text(max_size=60))
def test_any_query_gives_a_decision(query):
    """Arbitrary text never breaks the agent: it calls tools or answers with text."""
    agent = RuleAgent(today=lambda: TODAY)
    decision = agent.decide(agent_input(query, SEED_RAW))
    assert decision.calls or decision.answer


def test_only_the_start_of_a_huge_query_is_read(agent):
    """Planning reads a bounded prefix: a request after it is not seen."""
    query = "x" * (RULE_AGENT_MAX_QUERY_CHARS + 10) + " 北京天气"
    assert agent.decide(agent_input(query, SEED_RAW)).calls == ()


def test_only_the_start_of_a_huge_earlier_query_is_read(agent):
    """Follow-ups read a bounded prefix of earlier queries too, so a huge one stays cheap."""
    history = (Turn("x" * (RULE_AGENT_MAX_QUERY_CHARS + 10) + " 北京天气怎么样", "晴"),)
    assert agent.decide(agent_input("那上海呢？", SEED_RAW, history=history)).calls == ()


def test_requests_after_many_clauses_still_count(agent):
    """Clauses past the limit are read together as one last clause."""
    query = "你好。" * (RULE_AGENT_MAX_CLAUSES + 5) + "北京天气怎么样"
    decision = agent.decide(agent_input(query, SEED_RAW))
    assert [c.arguments["location"] for c in decision.calls] == ["北京"]


def test_changing_a_calls_arguments_does_not_change_later_decisions(agent):
    """Each decision hands out its own arguments: nested values are not shared with the memo."""
    tool = {
        "type": "function",
        "function": {
            "name": "batch_weather",
            "description": "Get weather for several cities",
            "parameters": {
                "type": "object",
                "properties": {"cities": {"type": "array", "items": {"type": "string"}}},
                "required": ["cities"],
            },
        },
    }
    asked = agent_input("北京和上海的天气", tool)
    first = agent.decide(asked)
    first.calls[0].arguments["cities"].append("changed by the caller")
    assert agent.decide(asked).calls[0].arguments == {"cities": ["北京", "上海"]}


def _one_string_tool(name: str, description: str, parameter: str, hint: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {parameter: {"type": "string", "description": hint}},
                "required": [parameter],
            },
        },
    }


LOOKUP_PRODUCT = _one_string_tool(
    "lookup_product", "Look up a product by its SKU.", "sku", "The product's SKU, e.g. A-1."
)
READ_FILE = _one_string_tool("read_file", "Read a file.", "path", "The file path.")
FETCH_PAGE = _one_string_tool("fetch", "Fetch a web page.", "url", "The URL of the page.")
GET_ORDER = _one_string_tool(
    "get_order", "Get an order.", "order", "The order number, e.g. ORD-2024-0001."
)


@pytest.mark.parametrize(
    ("query", "tool", "expected"),
    [
        ("What does product A-1 weigh in pounds?", LOOKUP_PRODUCT, {"sku": "A-1"}),
        ("read reports/2024/q3.pdf", READ_FILE, {"path": "reports/2024/q3.pdf"}),
        ("please read /var/log/app.log.", READ_FILE, {"path": "/var/log/app.log"}),
        ("fetch https://example.com/docs?x=1", FETCH_PAGE, {"url": "https://example.com/docs?x=1"}),
    ],
)
def test_ids_paths_and_urls_are_kept_whole(agent, query, tool, expected):
    """An id, a path or a URL in the query reaches the tool whole, not cut or replaced."""
    decision = agent.decide(agent_input(query, tool))
    assert [(c.name, c.arguments) for c in decision.calls] == [(tool["function"]["name"], expected)]


def test_an_example_hint_finds_values_of_its_shape(agent):
    """A parameter described 'e.g. ORD-2024-0001' takes the query's token of that shape."""
    decision = agent.decide(agent_input("look up order ORD-2024-0042 from shop v2", GET_ORDER))
    assert decision.calls[0].arguments == {"order": "ORD-2024-0042"}


@pytest.mark.parametrize("query", ["look up a product", "get my order"])
def test_a_required_id_the_query_lacks_is_asked_for(agent, query):
    """With no value for a required id, the agent asks for it instead of calling on a guess."""
    decision = agent.decide(agent_input(query, LOOKUP_PRODUCT, GET_ORDER))
    assert not decision.calls
    assert "I need" in decision.answer
    assert ("sku" in decision.answer) or ("order" in decision.answer)


def test_a_turns_answer_step_reuses_its_plan(agent, monkeypatch):
    """After a tool's output the turn's query is not planned again (the plan is remembered)."""
    planned: list[str] = []
    original = rule_agent_module._intents

    def counting(query: str, *args: Any) -> Any:
        planned.append(query)
        return original(query, *args)

    monkeypatch.setattr(rule_agent_module, "_intents", counting)
    agent.decide(agent_input("今天北京天气怎么样？", SEED_RAW))
    done = (_result("get_current_weather", "25度", location="北京", unit="celsius"),)
    agent.decide(agent_input("今天北京天气怎么样？", SEED_RAW, results=done))
    assert planned == ["今天北京天气怎么样？"]


def test_the_plan_memo_is_bounded(agent, monkeypatch):
    """The agent remembers at most its memo size of plans, the oldest forgotten first."""
    monkeypatch.setattr(rule_agent_module, "RULE_AGENT_PLAN_MEMO_SIZE", 3)
    for n in range(10):
        agent.decide(agent_input(f"北京天气 {n}", SEED_RAW))
    assert len(agent._plans) == 3
