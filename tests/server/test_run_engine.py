"""The run engine: decisions become interrupts, answers, in-run component calls or errors."""

from __future__ import annotations

from dataclasses import replace

import pytest

from appclient._core._models import ToolChoice, ToolOutput
from appclient.server import Decision, PlannedCall
from appclient.server._http._responses import HTTPProblem
from appclient.server._runs._run_engine import (
    EVENT_CODE_AGENT_FAILED,
    EVENT_CODE_COMPONENT_FAILED,
    EVENT_CODE_STEP_LIMIT,
    RunEngine,
)
from appclient.server._settings import DEFAULT_MAX_HISTORY_CHARS
from appclient.server._state._state import ConversationState
from tests.server.helpers import WEATHER_TOOL, EchoComponent, ListAgent, WeatherAgent


def _state(*tools: dict) -> ConversationState:
    return ConversationState("c1", "owner", "app", 0.0, tools=tools)


def _engine(agent, *components, **options) -> RunEngine:
    return RunEngine(agent=agent, components=components, **options)


def test_local_call_ends_the_run_with_pending_calls() -> None:
    """A local call interrupts the run and waits in the conversation."""
    outcome = _engine(WeatherAgent()).start_turn(_state(WEATHER_TOOL), query="北京天气")
    assert outcome.run.ending == "interrupt"
    assert outcome.run.calls[0].name == "get_current_weather"
    assert outcome.run.calls[0].arguments == {"location": "北京", "unit": "celsius"}
    assert outcome.state.open_turn is not None
    assert outcome.state.open_turn.pending == outcome.run.calls


def test_outputs_complete_the_turn_and_enter_history() -> None:
    """Submitting every output lets the agent answer; the turn goes into the history."""
    engine = _engine(WeatherAgent())
    first = engine.start_turn(_state(WEATHER_TOOL), query="北京天气")
    call_id = first.run.calls[0].call_id
    second = engine.continue_turn(
        first.state, outputs=[ToolOutput(tool_call_id=call_id, output="25度")]
    )
    assert second.run.ending == "answer"
    assert second.run.answer == "根据工具结果：25度"
    assert second.state.open_turn is None
    assert second.state.history[-1].answer == "根据工具结果：25度"
    assert second.state.history[-1].results[0].call_id == call_id


def test_agent_sees_the_turn_query_when_outputs_arrive() -> None:
    """The agent's input keeps the turn's query while outputs are submitted."""
    agent = ListAgent([Decision.call(PlannedCall("get_current_weather", {})), Decision.reply("ok")])
    engine = _engine(agent)
    first = engine.start_turn(_state(WEATHER_TOOL), query="北京天气")
    engine.continue_turn(
        first.state, outputs=[ToolOutput(tool_call_id=first.run.calls[0].call_id, output="x")]
    )
    assert [i.query for i in agent.inputs] == ["北京天气", "北京天气"]
    assert agent.inputs[1].results[0].output == "x"


def test_partial_outputs_repeat_the_remaining_calls() -> None:
    """Outputs for part of a round are applied; the run re-asks the rest with the same ids."""
    agent = ListAgent(
        [
            Decision.call(
                PlannedCall("get_current_weather", {"location": "东京"}),
                PlannedCall("get_current_weather", {"location": "巴黎"}),
            ),
            Decision.reply("done"),
        ]
    )
    engine = _engine(agent)
    first = engine.start_turn(_state(WEATHER_TOOL), query="两个城市")
    tokyo, paris = first.run.calls
    partial = engine.continue_turn(
        first.state, outputs=[ToolOutput(tool_call_id=tokyo.call_id, output="晴")]
    )
    assert partial.run.ending == "interrupt"
    assert partial.run.calls == (paris,)
    final = engine.continue_turn(
        partial.state, outputs=[ToolOutput(tool_call_id=paris.call_id, output="雨")]
    )
    assert final.run.ending == "answer"
    assert [r.output for r in agent.inputs[-1].results] == ["晴", "雨"]


def test_unknown_tool_call_id_is_a_400_naming_it() -> None:
    """An output for a call that is not pending is rejected, naming the field and the id."""
    engine = _engine(WeatherAgent())
    first = engine.start_turn(_state(WEATHER_TOOL), query="北京天气")
    with pytest.raises(HTTPProblem) as caught:
        engine.continue_turn(first.state, outputs=[ToolOutput(tool_call_id="nope", output="x")])
    assert caught.value.status == 400
    assert caught.value.code == "InvalidParameter"
    assert "tool_outputs[0].tool_call_id" in caught.value.message
    assert "'nope'" in caught.value.message


def test_repeated_tool_call_id_is_a_400() -> None:
    """The same call answered twice in one request is rejected."""
    engine = _engine(WeatherAgent())
    first = engine.start_turn(_state(WEATHER_TOOL), query="北京天气")
    call_id = first.run.calls[0].call_id
    outputs = [ToolOutput(tool_call_id=call_id, output="a")] * 2
    with pytest.raises(HTTPProblem, match=r"tool_outputs\[1\]"):
        engine.continue_turn(first.state, outputs=outputs)


def test_outputs_without_a_pending_round_are_a_400() -> None:
    """Outputs sent when nothing is pending name the unknown id."""
    with pytest.raises(HTTPProblem, match="pending: none"):
        _engine(WeatherAgent()).continue_turn(
            _state(), outputs=[ToolOutput(tool_call_id="x", output="y")]
        )


def test_cloud_component_runs_inside_the_run() -> None:
    """A cloud call is executed by the engine and the agent answers from its result."""
    echo = EchoComponent()
    agent = ListAgent(
        [Decision.call(PlannedCall("Echo", {"text": "hi"}, cloud=True)), Decision.reply("fine")]
    )
    outcome = _engine(agent, echo).start_turn(_state(), query="q")
    assert outcome.run.ending == "answer"
    assert echo.calls == [{"text": "hi"}]
    assert outcome.run.cloud_steps[0].output == "echo:hi"
    assert agent.inputs[1].results[0].cloud is True


def test_cloud_and_local_calls_in_one_run() -> None:
    """Cloud calls run first; the local ones then end the run as an interrupt."""
    agent = ListAgent(
        [
            Decision.call(
                PlannedCall("Echo", {"text": "a"}, cloud=True),
                PlannedCall("get_current_weather", {"location": "北京"}),
            ),
            Decision.reply("both"),
        ]
    )
    engine = _engine(agent, EchoComponent())
    first = engine.start_turn(_state(WEATHER_TOOL), query="q")
    assert first.run.ending == "interrupt"
    assert [s.name for s in first.run.cloud_steps] == ["Echo"]
    final = engine.continue_turn(
        first.state, outputs=[ToolOutput(tool_call_id=first.run.calls[0].call_id, output="o")]
    )
    assert [r.cloud for r in agent.inputs[-1].results] == [True, False]
    assert final.run.answer == "both"


def test_failing_component_ends_the_run_with_an_error() -> None:
    """A component that raises gives an error ending and drops the turn."""
    agent = ListAgent([Decision.call(PlannedCall("Echo", {"text": "a"}, cloud=True))])
    outcome = _engine(agent, EchoComponent(fail=True)).start_turn(_state(), query="q")
    assert outcome.run.ending == "error"
    assert outcome.run.failure is not None
    assert outcome.run.failure.code == EVENT_CODE_COMPONENT_FAILED
    assert "echo is broken" in outcome.run.failure.message
    assert outcome.state.open_turn is None


def test_endless_component_calls_hit_the_step_limit() -> None:
    """An agent that never stops calling components ends with a step-limit error."""
    agent = ListAgent([Decision.call(PlannedCall("Echo", {"text": "a"}, cloud=True))] * 3)
    outcome = _engine(agent, EchoComponent(), max_steps=3).start_turn(_state(), query="q")
    assert outcome.run.failure is not None
    assert outcome.run.failure.code == EVENT_CODE_STEP_LIMIT


def test_agent_exception_ends_the_run_with_an_error_naming_the_agent() -> None:
    """An agent that raises ends the run with an agent-failure error event, naming it."""
    outcome = _engine(ListAgent([])).start_turn(_state(), query="q")
    assert outcome.run.failure is not None
    assert outcome.run.failure.code == EVENT_CODE_AGENT_FAILED
    assert "ListAgent" in outcome.run.failure.message


def test_call_to_an_unknown_tool_ends_the_run_with_an_error_naming_it() -> None:
    """An agent (a ScriptedAgent's PlannedCall) calling an undeclared tool fails the run."""
    agent = ListAgent([Decision.call(PlannedCall("ghost", {})), Decision.reply("never")])
    outcome = _engine(agent).start_turn(_state(), query="q")
    assert outcome.run.failure is not None
    assert "'ghost'" in outcome.run.failure.message
    assert outcome.run.answer == ""


def test_forced_local_tool_interrupts_with_its_input() -> None:
    """tool_choice function naming a client tool interrupts calling it with its input."""
    choice = ToolChoice.model_validate(
        {
            "type": "function",
            "function": {
                "name": "get_current_weather",
                "input": {"location": "上海", "unit": "celsius"},
            },
        }
    )
    agent = ListAgent([])
    outcome = _engine(agent).start_turn(_state(WEATHER_TOOL), query="q", tool_choice=choice)
    assert outcome.run.calls[0].arguments == {"location": "上海", "unit": "celsius"}
    assert agent.inputs == []


def test_forced_tool_fills_one_missing_required_input_from_the_query() -> None:
    """Exactly one missing required input takes the query text."""
    choice = ToolChoice.model_validate(
        {
            "type": "function",
            "function": {"name": "get_current_weather", "input": {"unit": "celsius"}},
        }
    )
    outcome = _engine(ListAgent([])).start_turn(
        _state(WEATHER_TOOL), query="上海", tool_choice=choice
    )
    assert outcome.run.calls[0].arguments == {"unit": "celsius", "location": "上海"}


def test_forced_cloud_component_result_is_the_answer() -> None:
    """tool_choice naming a cloud component runs it in the run; its result is the reply."""
    echo = EchoComponent("WeatherQuery")
    choice = ToolChoice.model_validate(
        {"type": "function", "function": {"name": "WeatherQuery", "input": None}}
    )
    agent = ListAgent([])
    outcome = _engine(agent, echo).start_turn(
        _state(WEATHER_TOOL), query="北京", tool_choice=choice
    )
    assert echo.calls == [{"text": "北京"}]
    assert outcome.run.answer == "echo:北京"
    assert [step.name for step in outcome.run.cloud_steps] == ["WeatherQuery"]
    assert agent.inputs == []


def test_forced_unknown_name_is_a_400() -> None:
    """tool_choice naming nothing known is rejected, naming the field."""
    choice = ToolChoice.model_validate({"type": "function", "function": {"name": "nope"}})
    with pytest.raises(HTTPProblem, match=r"tool_choice\.function\.name"):
        _engine(WeatherAgent()).start_turn(_state(), query="q", tool_choice=choice)


def test_auto_tool_choice_is_passed_to_the_agent() -> None:
    """An auto tool_choice reaches the agent's first decision."""
    agent = ListAgent([Decision.reply("hi")])
    choice = ToolChoice.model_validate({"type": "auto", "function": None})
    _engine(agent).start_turn(_state(), query="q", tool_choice=choice)
    assert agent.inputs[0].tool_choice == choice


def test_new_query_drops_the_pending_round() -> None:
    """A query while calls are pending starts a new turn; the old calls are gone."""
    engine = _engine(WeatherAgent())
    first = engine.start_turn(_state(WEATHER_TOOL), query="北京天气")
    second = engine.start_turn(replace(first.state), query="你好")
    old = first.run.calls[0].call_id
    with pytest.raises(HTTPProblem):
        engine.continue_turn(second.state, outputs=[ToolOutput(tool_call_id=old, output="x")])


def test_history_is_capped() -> None:
    """Only the newest turns are kept."""
    engine = _engine(ListAgent([Decision.reply(str(i)) for i in range(5)]), max_history=3)
    state = _state()
    for i in range(5):
        state = engine.start_turn(state, query=f"q{i}").state
    assert [t.query for t in state.history] == ["q2", "q3", "q4"]


def test_history_drops_old_turns_past_its_text_budget() -> None:
    """Huge turns push older ones out, so the stored history stays small; the latest stays."""
    engine = _engine(ListAgent([Decision.reply(str(i)) for i in range(4)]))
    state = _state()
    big = "q" * (DEFAULT_MAX_HISTORY_CHARS // 2 + 1)
    for query in ("small", big, big, "x" * (DEFAULT_MAX_HISTORY_CHARS + 1)):
        state = engine.start_turn(state, query=query).state
    assert [len(t.query) for t in state.history] == [DEFAULT_MAX_HISTORY_CHARS + 1]
