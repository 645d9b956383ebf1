"""AppClient against ReferenceServer: parallel calls, scripted rounds, cloud and local together."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from appclient import AppClient, ToolOutput
from appclient.server import PlannedCall
from appclient.testing import ReferenceServer, ScriptedAgent
from tests.server.helpers import WEATHER_TOOL

CALC = "Calculator"


@pytest.fixture
def rule_server() -> Iterator[ReferenceServer]:
    with ReferenceServer() as running:
        yield running


def _client(server: ReferenceServer) -> AppClient:
    return AppClient(server.app_id, token=server.token, base_url=server.url, max_retries=0)


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_two_cities_give_two_parallel_calls(rule_server: ReferenceServer, stream: bool) -> None:
    """A query naming Tokyo and Paris gives two calls in one interrupt; both outputs count."""
    with _client(rule_server) as client:
        cid = client.create_conversation()
        query = "What's the weather like today in celsius in Tokyo and Paris."
        first = client.run(cid, query, tools=[WEATHER_TOOL], stream=stream)
        answer = first.collect() if stream else first.content
        calls = answer.tool_calls
        assert len(calls) == 2
        assert {call.function.arguments["unit"] for call in calls} == {"celsius"}
        outputs = [
            ToolOutput(tool_call_id=call.id, output=f"{call.function.arguments['location']}: 21")
            for call in calls
        ]
        final = client.run(cid, tool_outputs=outputs, stream=stream)
        text = final.collect().answer if stream else final.content.answer
        for output in outputs:
            assert output.output in text


def test_three_rounds_with_a_scripted_agent() -> None:
    """A ScriptedAgent drives three tool rounds, then answers from every output."""
    agent = ScriptedAgent(
        [
            PlannedCall("get_current_weather", {"location": "北京", "unit": "celsius"}),
            PlannedCall("get_current_weather", {"location": "上海", "unit": "celsius"}),
            PlannedCall("get_current_weather", {"location": "广州", "unit": "fahrenheit"}),
            ScriptedAgent.echo_outputs("三地：{outputs}", separator="，"),
        ]
    )
    with ReferenceServer(agent) as server, _client(server) as client:
        cid = client.create_conversation()
        message = client.run(cid, "三个城市的天气", tools=[WEATHER_TOOL])
        for expected in ("北京", "上海", "广州"):
            (call,) = message.content.tool_calls
            assert call.function.arguments["location"] == expected
            output = ToolOutput(tool_call_id=call.id, output=f"{expected}晴")
            message = client.run(cid, tool_outputs=[output])
        assert message.content.answer == "三地：北京晴，上海晴，广州晴"
    assert agent.outputs_seen == ("北京晴", "上海晴", "广州晴")


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_cloud_component_and_local_tool_in_one_run(stream: bool) -> None:
    """One run calls the server's Calculator and then interrupts for a local tool."""
    agent = ScriptedAgent(
        [
            [
                PlannedCall(CALC, {"expression": "6*7"}, cloud=True),
                PlannedCall("get_current_weather", {"location": "北京", "unit": "celsius"}),
            ],
            ScriptedAgent.echo_outputs("结果：{outputs}", separator="；"),
        ]
    )
    with ReferenceServer(agent) as server, _client(server) as client:
        cid = client.create_conversation()
        first = client.run(cid, "算一下再查天气", tools=[WEATHER_TOOL], stream=stream)
        answer = first.collect() if stream else first.content
        types = [(event.event_type, event.event_status) for event in answer.events]
        assert types == [
            ("function_call", "done"),
            (CALC, "done"),
            ("function_call", "done"),
            ("Interrupt", "interrupt"),
        ]
        (call,) = answer.tool_calls
        final = client.run(
            cid, tool_outputs=[ToolOutput(tool_call_id=call.id, output="北京25度")], stream=stream
        )
        text = final.collect().answer if stream else final.content.answer
        assert "42" in text
        assert "北京25度" in text


def test_all_endpoints_through_appclient(rule_server: ReferenceServer, tmp_path) -> None:
    """Create, run (stream and not), upload by path and URL, and feedback all succeed."""
    path = tmp_path / "notes.txt"
    path.write_text("hello", encoding="utf-8")
    with _client(rule_server) as client:
        cid = client.create_conversation()
        file_id = client.upload_file(cid, file_path=path)
        url_id = client.upload_file(cid, file_url="https://example.com/a.pdf")
        plain = client.run(cid, "总结一下这个文件", file_ids=[file_id, url_id])
        assert plain.content.events[-1].event_status == "success"
        streamed = client.run(cid, "你好", stream=True).collect()
        assert streamed.answer
        assert client.feedback(
            conversation_id=cid, message_id=plain.content.message_id, type="upvote"
        )
    state = rule_server.store.get_conversation(cid)
    assert state is not None
    assert [turn.query for turn in state.history] == ["总结一下这个文件", "你好"]


def test_run_until_answer_with_the_rule_agent(rule_server: ReferenceServer) -> None:
    """The automatic loop runs a Python function the rule agent calls and returns its answer."""

    def get_current_weather(location: str, unit: str = "celsius") -> str:
        """Get the weather of a city.

        Args:
            location: The city, e.g. 北京.
            unit: celsius or fahrenheit.
        """
        return f"{location}: 23 {unit}"

    with _client(rule_server) as client:
        result = client.run_until_answer(query="北京天气怎么样？", tools=[get_current_weather])
    assert "北京: 23 celsius" in result.answer
    assert [call.arguments["location"] for call in result.tool_calls] == ["北京"]


def test_seed_tool_choice_call_with_empty_query(rule_server: ReferenceServer) -> None:
    """The docs' Go ToolChoice call (query "", WeatherQuery forced with a city) answers."""
    with _client(rule_server) as client:
        cid = client.create_conversation()
        choice = {
            "type": "function",
            "function": {"name": "WeatherQuery", "input": {"city": "北京"}},
        }
        message = client.run(cid, "", end_user_id="go_toolchoice_demo", tool_choice=choice)
        assert "北京" in message.content.answer
        assert message.content.events[-1].status == "success"
