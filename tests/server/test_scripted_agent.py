from __future__ import annotations

import threading

import pytest

from appclient.server._agents._agent_api import Agent, Decision, PlannedCall, ToolResult
from appclient.server._agents._scripted_agent import ScriptedAgent, ScriptExhaustedError
from tests.server.agent_tools import agent_input

WEATHER_CALL = PlannedCall("get_current_weather", {"location": "北京", "unit": "celsius"})
DONE = (ToolResult("c1", "get_current_weather", dict(WEATHER_CALL.arguments), "北京今天25度"),)


def test_scripted_agent_is_an_agent():
    """ScriptedAgent satisfies the Agent protocol."""
    assert isinstance(ScriptedAgent(), Agent)


def test_a_string_step_is_the_answer():
    """A str step answers the turn."""
    assert ScriptedAgent(["hi"]).decide(agent_input("x")) == Decision.reply("hi")


def test_a_planned_call_step_makes_that_call():
    """A PlannedCall step calls that tool."""
    decision = ScriptedAgent([WEATHER_CALL]).decide(agent_input("x"))
    assert decision.calls == (WEATHER_CALL,)


def test_a_list_step_makes_parallel_calls():
    """A list of PlannedCall is one round of parallel calls."""
    paris = PlannedCall("get_current_weather", {"location": "Paris"})
    decision = ScriptedAgent([[WEATHER_CALL, paris]]).decide(agent_input("x"))
    assert decision.calls == (WEATHER_CALL, paris)


def test_a_decision_step_is_used_as_is():
    """A Decision step is returned unchanged, thought included."""
    step = Decision.call(WEATHER_CALL, thought="because")
    assert ScriptedAgent([step]).decide(agent_input("x")) is step


def test_steps_are_used_one_per_decision_in_order():
    """Each decide() takes the next step, whatever the query."""
    agent = ScriptedAgent([WEATHER_CALL, "done"])
    assert agent.decide(agent_input("a")).calls == (WEATHER_CALL,)
    assert agent.decide(agent_input("b")).answer == "done"
    assert agent.remaining == 0


def test_running_out_raises_a_named_error():
    """Asking past the end raises ScriptExhaustedError naming the count and the query."""
    agent = ScriptedAgent(["only"])
    agent.decide(agent_input("first"))
    with pytest.raises(ScriptExhaustedError, match=r"all 1 step\(s\) were used") as caught:
        agent.decide(agent_input("second"))
    assert (caught.value.steps, caught.value.query) == (1, "second")
    assert isinstance(caught.value, RuntimeError)


def test_an_empty_script_raises_at_once():
    """A script without steps cannot decide anything."""
    with pytest.raises(ScriptExhaustedError):
        ScriptedAgent().decide(agent_input("x"))


def test_a_callable_step_sees_the_input():
    """A callable step answers from the AgentInput it is given."""
    agent = ScriptedAgent([lambda given: f"you asked {given.query}"])
    assert agent.decide(agent_input("天气")).answer == "you asked 天气"


def test_a_callable_step_may_return_calls():
    """A callable step may return a PlannedCall too."""
    agent = ScriptedAgent([lambda given: PlannedCall("echo", {"q": given.query})])
    assert agent.decide(agent_input("hi")).calls == (PlannedCall("echo", {"q": "hi"}),)


def test_a_callable_step_returning_garbage_is_a_type_error():
    """A callable's result is checked like any step, and the error names the step."""
    agent = ScriptedAgent([lambda given: 42])
    with pytest.raises(TypeError, match=r"step 0 \(callable\) is a int"):
        agent.decide(agent_input("x"))


@pytest.mark.parametrize(
    ("step", "error", "message"),
    [
        (42, TypeError, "step 0 is a int"),
        ([], ValueError, "empty list of calls"),
        ([WEATHER_CALL, "x"], TypeError, "holds a str"),
        (PlannedCall("x", "not a dict"), TypeError, "must be a dict"),  # type: ignore[arg-type]
        (PlannedCall("", {}), TypeError, "needs a tool name"),
        (PlannedCall(None, {}), TypeError, "needs a tool name"),  # type: ignore[arg-type]
    ],
)
def test_bad_steps_are_refused_when_the_script_is_built(step, error, message):
    """Steps are checked up front, with the step's position in the message."""
    with pytest.raises(error, match=message):
        ScriptedAgent([step])


def test_add_appends_steps_and_chains():
    """add() appends steps and returns the agent."""
    agent = ScriptedAgent(["a"]).add("b", "c")
    assert agent.remaining == 3


@pytest.mark.parametrize("steps", ["It is sunny.", WEATHER_CALL, Decision.reply("x")])
def test_a_single_step_instead_of_a_list_is_refused(steps):
    """ScriptedAgent("Sunny.") is a TypeError, not one step per character."""
    with pytest.raises(TypeError, match=r"ScriptedAgent\(\[step\]\)"):
        ScriptedAgent(steps)


def test_reset_starts_a_fresh_script():
    """reset() drops unused steps and the record, then plays the new steps."""
    agent = ScriptedAgent([WEATHER_CALL, "left over"])
    agent.decide(agent_input("q"))
    assert agent.reset("fresh") is agent
    assert (agent.remaining, agent.inputs, agent.decisions) == (1, (), ())
    assert agent.decide(agent_input("q")) == Decision.reply("fresh")


def test_reset_refuses_bad_steps_and_keeps_the_script():
    """A bad step given to reset() raises and leaves the current script as it was."""
    agent = ScriptedAgent(["a"])
    with pytest.raises(TypeError, match="step 1"):
        agent.reset("b", 42)
    assert agent.decide(agent_input("q")) == Decision.reply("a")


def test_inputs_and_decisions_are_recorded():
    """The agent remembers what it was asked and what it answered."""
    agent = ScriptedAgent([WEATHER_CALL, "done"])
    first, second = agent_input("q"), agent_input("q", results=DONE)
    agent.decide(first)
    agent.decide(second)
    assert agent.inputs == (first, second)
    assert [d.answer for d in agent.decisions] == ["", "done"]


def test_calls_seen_lists_each_result_once():
    """Results shown in several inputs are listed once, in order."""
    agent = ScriptedAgent(["a", "b"])
    agent.decide(agent_input("q", results=DONE))
    agent.decide(agent_input("q", results=DONE))
    assert agent.calls_seen == DONE
    assert agent.outputs_seen == ("北京今天25度",)


def test_echo_outputs_answers_with_the_outputs():
    """echo_outputs() fills {outputs} and {query}."""
    step = ScriptedAgent.echo_outputs("{query}: {outputs}")
    agent = ScriptedAgent([step])
    assert agent.decide(agent_input("天气", results=DONE)).answer == "天气: 北京今天25度"


def test_echo_outputs_joins_several_outputs():
    """Several outputs are joined with the separator."""
    results = (*DONE, ToolResult("c2", "x", {}, "second"))
    answer = ScriptedAgent([ScriptedAgent.echo_outputs(separator=" | ")]).decide(
        agent_input("q", results=results)
    )
    assert answer.answer == "北京今天25度 | second"


def test_echo_outputs_leaves_placeholders_inside_outputs_alone():
    """An output that itself holds "{query}" is echoed as the tool wrote it."""
    results = (ToolResult("c1", "x", {}, "literal {query} and {outputs}"),)
    answer = ScriptedAgent([ScriptedAgent.echo_outputs("{query}: {outputs}")]).decide(
        agent_input("q", results=results)
    )
    assert answer.answer == "q: literal {query} and {outputs}"


def test_call_builds_a_planned_call():
    """ScriptedAgent.call is a short way to write a PlannedCall."""
    assert ScriptedAgent.call("WeatherQuery", {"city": "北京"}, cloud=True) == PlannedCall(
        "WeatherQuery", {"city": "北京"}, cloud=True
    )


def test_tool_round_calls_then_echoes():
    """tool_round() calls the tool, then answers with its output."""
    agent = ScriptedAgent.tool_round("get_current_weather", WEATHER_CALL.arguments)
    assert agent.decide(agent_input("q")).calls == (WEATHER_CALL,)
    assert agent.decide(agent_input("q", results=DONE)).answer == "北京今天25度"


def test_tool_round_with_a_fixed_answer():
    """tool_round(answer=...) answers with that text."""
    agent = ScriptedAgent.tool_round("t", {}, answer="fixed")
    agent.decide(agent_input("q"))
    assert agent.decide(agent_input("q", results=DONE)).answer == "fixed"


def test_parallel_round_calls_once_per_argument_set():
    """parallel_round() makes one round of parallel calls, then answers."""
    agent = ScriptedAgent.parallel_round("w", [{"city": "Tokyo"}, {"city": "Paris"}])
    assert [c.arguments["city"] for c in agent.decide(agent_input("q")).calls] == [
        "Tokyo",
        "Paris",
    ]
    assert agent.remaining == 1


def test_repr_shows_progress():
    """The repr says how many steps exist and how many were used."""
    agent = ScriptedAgent(["a", "b"])
    agent.decide(agent_input("q"))
    assert repr(agent) == "ScriptedAgent(steps=2, used=1)"


def test_each_step_is_used_exactly_once_across_threads():
    """Concurrent decisions never share or skip a step."""
    agent = ScriptedAgent([str(i) for i in range(200)])
    answers: list[str] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(50):
            answer = agent.decide(agent_input("q")).answer
            with lock:
                answers.append(answer)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers, key=int) == [str(i) for i in range(200)]
    assert len(agent.inputs) == 200
