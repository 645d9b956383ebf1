"""The automatic round trip: against a scripted fake client, then the reference server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from appclient import (
    AnswerDone,
    AppClient,
    AppClientError,
    InvalidRequestError,
    LoopEvent,
    MaxRoundsExceededError,
    Message,
    RoundFinished,
    RunAnswer,
    RunError,
    ServerEvent,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolRegistry,
)
from appclient._tools._loop import RoundTripMixin, as_registry
from appclient.errors import ServerError, StreamInterruptedError, ToolNotFoundError
from appclient.server import Agent, PlannedCall
from appclient.testing import ReferenceServer, ScriptedAgent
from appclient.types import RoundTripResult, RunStream, ToolGroup
from tests.gc_support import frames_left_in_cycles


def get_current_weather(location: str, unit: str = "celsius") -> str:
    """Weather of a city.

    Args:
        location: The city.
        unit: The unit.
    """
    return f"{location}今天25度"


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def interrupt(*calls: dict[str, Any], thought: str = "") -> RunAnswer:
    """A run that ends asking for local tool calls (docs/protocol.md section 6)."""
    return RunAnswer.model_validate(
        {
            "conversation_id": "conv-1",
            "message_id": "m-tool",
            "is_completion": True,
            "content": [
                {
                    "event_type": "function_call",
                    "event_status": "done",
                    "content_type": "function_call",
                },
                {
                    "event_type": "Interrupt",
                    "event_status": "interrupt",
                    "content_type": "contexts",
                    "outputs": {"text": {"function_call": {"thought": thought}}},
                    "tool_calls": list(calls),
                },
            ],
        }
    )


def final(text: str) -> RunAnswer:
    """A run that ends with the answer."""
    return RunAnswer.model_validate(
        {
            "conversation_id": "conv-1",
            "message_id": "m-final",
            "answer": text,
            "is_completion": True,
            "content": [
                {"event_status": "done", "content_type": "text", "outputs": {"text": text}},
                {"event_status": "success", "content_type": "status"},
            ],
        }
    )


def streamed(*pieces: str, complete: bool = True) -> list[RunAnswer]:
    """An answer streamed as several SSE messages, ending with success unless cut."""
    messages = [
        RunAnswer.model_validate(
            {
                "answer": piece,
                "message_id": "m-final",
                "content": [
                    {"event_status": "running", "content_type": "text", "outputs": {"text": piece}}
                ],
            }
        )
        for piece in pieces
    ]
    if complete:
        messages.append(
            RunAnswer.model_validate(
                {
                    "message_id": "m-final",
                    "is_completion": True,
                    "content": [{"event_status": "success", "content_type": "status"}],
                }
            )
        )
    return messages


def error_run() -> RunAnswer:
    """A run that fails with an error event."""
    return RunAnswer.model_validate(
        {
            "content": [
                {"event_status": "error", "event_code": 500, "event_message": "model overloaded"}
            ]
        }
    )


def fake_stream(messages: list[RunAnswer]) -> RunStream:
    """A real RunStream over scripted messages, sent as SSE (its ``closed`` tells if closed)."""
    return RunStream([f"data: {m.model_dump_json(by_alias=True)}\n\n".encode() for m in messages])


class FakeClient(RoundTripMixin):
    """Answers runs from a script and records every request."""

    def __init__(self, *script: RunAnswer | list[RunAnswer] | Exception) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.conversations = 0
        self.streams: list[RunStream] = []

    def create_conversation(self) -> str:
        """Count and return the one conversation."""
        self.conversations += 1
        return "conv-1"

    def run(self, conversation_id: str, query: str = "", **kwargs: Any) -> Any:
        """Record the request and answer with the next scripted run."""
        self.requests.append({"conversation_id": conversation_id, "query": query, **kwargs})
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        if kwargs.get("stream"):
            stream = fake_stream(step if isinstance(step, list) else [step])
            self.streams.append(stream)
            return stream
        assert isinstance(step, RunAnswer)
        return Message(content=step)


WEATHER_ROUND = interrupt(_call("c1", "get_current_weather", location="北京"), thought="查天气")


def _weather_client(*after: RunAnswer | list[RunAnswer]) -> FakeClient:
    return FakeClient(WEATHER_ROUND, *(after or (final("北京今天25度，晴。"),)))


def test_one_round_returns_the_answer() -> None:
    """One tool round ends with the agent's answer."""
    client = _weather_client()
    result = client.run_until_answer(query="北京天气？", tools=[get_current_weather])
    assert result.answer == "北京今天25度，晴。"
    assert str(result) == result.answer
    assert result.completed


def test_first_run_carries_query_and_tools() -> None:
    """The first request has the query and the registry's tools."""
    client = _weather_client()
    client.run_until_answer(query="北京天气？", tools=[get_current_weather])
    first = client.requests[0]
    assert first["query"] == "北京天气？"
    assert [t["function"]["name"] for t in first["tools"]] == ["get_current_weather"]


def test_later_runs_carry_outputs_only() -> None:
    """The second request has the outputs, and neither the query nor the tools."""
    client = _weather_client()
    client.run_until_answer("conv-1", "北京天气？", tools=[get_current_weather])
    second = client.requests[1]
    assert second["query"] == ""
    assert "tools" not in second
    assert "tool_choice" not in second
    assert second["tool_outputs"] == [{"tool_call_id": "c1", "output": "北京今天25度"}]


def test_conversation_is_created_when_none_is_given() -> None:
    """Without a conversation id one is created; with one, none is."""
    client = _weather_client()
    result = client.run_until_answer(query="q", tools=[get_current_weather])
    assert (client.conversations, result.conversation_id) == (1, "conv-1")
    given = _weather_client()
    given.run_until_answer("existing", "q", tools=[get_current_weather])
    assert given.conversations == 0
    assert {r["conversation_id"] for r in given.requests} == {"existing"}


def test_result_records_every_call() -> None:
    """The result holds each call's arguments, output, error flag and duration."""
    result = _weather_client().run_until_answer(query="q", tools=[get_current_weather])
    [record] = result.tool_calls
    assert (record.id, record.name, dict(record.arguments)) == (
        "c1",
        "get_current_weather",
        {"location": "北京"},
    )
    assert (record.output, record.is_error) == ("北京今天25度", False)
    assert record.duration >= 0
    assert [r.index for r in result.rounds] == [1]
    assert result.rounds[0].thought == "查天气"
    assert [run.message_id for run in result.runs] == ["m-tool", "m-final"]
    assert result.message_id == "m-final"


def test_parallel_calls_answered_in_one_request_in_call_order() -> None:
    """Two calls of one round are answered together, in call order."""
    client = FakeClient(
        interrupt(
            _call("a", "get_current_weather", location="北京"),
            _call("b", "get_current_weather", location="上海"),
        ),
        final("done"),
    )
    client.run_until_answer(query="q", tools=[get_current_weather])
    assert client.requests[1]["tool_outputs"] == [
        {"tool_call_id": "a", "output": "北京今天25度"},
        {"tool_call_id": "b", "output": "上海今天25度"},
    ]
    assert len(client.requests) == 2


def test_repeated_call_id_gets_one_output() -> None:
    """When the agent repeats a call id, the tool runs once and one output answers that id."""
    calls = [_call("a", "add", a=1, b=2), _call("b", "add", a=2, b=2), _call("a", "add", a=1, b=2)]
    client = FakeClient(interrupt(*calls), final("3"))
    result = client.run_until_answer(query="q", tools=[add])
    assert client.requests[1]["tool_outputs"] == [
        {"tool_call_id": "a", "output": "3"},
        {"tool_call_id": "b", "output": "4"},
    ]
    assert [call.is_error for call in result.tool_calls] == [False, False, True]


def test_three_rounds() -> None:
    """Three tool rounds, then the answer: four runs, three rounds recorded."""
    client = FakeClient(
        interrupt(_call("1", "add", a=1, b=2)),
        interrupt(_call("2", "add", a=3, b=4)),
        interrupt(_call("3", "add", a=5, b=6)),
        final("21"),
    )
    result = client.run_until_answer(query="sum", tools=[add])
    assert [r.tool_calls[0].output for r in result.rounds] == ["3", "7", "11"]
    assert len(client.requests) == 4
    assert result.answer == "21"


def test_tool_choice_goes_with_the_first_run_only() -> None:
    """A forced tool_choice is sent once, on the first run."""
    choice = {"type": "function", "function": {"name": "get_current_weather", "input": {}}}
    client = _weather_client()
    client.run_until_answer(query="q", tools=[get_current_weather], tool_choice=choice)
    assert client.requests[0]["tool_choice"] == choice
    assert "tool_choice" not in client.requests[1]


def test_first_run_options_and_end_user() -> None:
    """File ids go with the first run; the end user with every run."""
    client = _weather_client()
    client.run_until_answer(
        query="q", tools=[get_current_weather], file_ids=["f1"], end_user_id="u1"
    )
    assert client.requests[0]["file_ids"] == ["f1"]
    assert "file_ids" not in client.requests[1]
    assert [r["end_user_id"] for r in client.requests] == ["u1", "u1"]


def test_no_tool_calls_means_one_run() -> None:
    """An immediate answer takes one run and no rounds."""
    client = FakeClient(final("你好"))
    result = client.run_until_answer(query="hi", tools=[get_current_weather])
    assert (result.answer, result.rounds, len(client.requests)) == ("你好", (), 1)


def test_answer_without_events_is_accepted() -> None:
    """A minimal non-stream answer (no events) ends the loop."""
    client = FakeClient(RunAnswer.model_validate({"answer": "ok"}))
    assert client.run_until_answer(query="q", tools=[]).answer == "ok"


def test_max_rounds_raises_with_the_partial_result() -> None:
    """Past max_rounds the loop raises, holding what was done and what was pending."""
    client = FakeClient(
        interrupt(_call("1", "add", a=1, b=1)),
        interrupt(_call("2", "add", a=2, b=2)),
        interrupt(_call("3", "add", a=3, b=3)),
    )
    with pytest.raises(MaxRoundsExceededError) as caught:
        client.run_until_answer(query="q", tools=[add], max_rounds=2)
    partial = caught.value.result
    assert isinstance(partial, RoundTripResult)
    assert not partial.completed
    assert len(partial.rounds) == 2
    assert [c.id for c in partial.pending_tool_calls] == ["3"]
    assert caught.value.max_rounds == 2


def test_a_failed_submission_keeps_the_outputs_on_the_error() -> None:
    """When sending a round's outputs fails, the error holds them, so no tool runs twice."""
    client = FakeClient(WEATHER_ROUND, ServerError(status_code=502, message="gateway down"))
    with pytest.raises(ServerError) as caught:
        client.run_until_answer(query="q", tools=[get_current_weather])
    partial = caught.value.partial_result
    assert isinstance(partial, RoundTripResult)
    assert not partial.completed
    outputs = [call.to_output() for call in partial.rounds[-1].tool_calls]
    assert [output.tool_call_id for output in outputs] == ["c1"]
    assert "北京" in outputs[0].output


def test_max_rounds_error_offers_its_result_as_the_partial_result() -> None:
    """MaxRoundsExceededError's result is also its partial_result, like every loop error."""
    client = FakeClient(
        interrupt(_call("1", "add", a=1, b=1)), interrupt(_call("2", "add", a=2, b=2))
    )
    with pytest.raises(MaxRoundsExceededError) as caught:
        client.run_until_answer(query="q", tools=[add], max_rounds=1)
    assert caught.value.partial_result is caught.value.result


def test_max_rounds_must_be_positive() -> None:
    """max_rounds below 1 is refused before anything is sent."""
    client = FakeClient()
    with pytest.raises(InvalidRequestError, match="max_rounds"):
        client.run_until_answer(query="q", tools=[], max_rounds=0)
    assert client.requests == []


def test_error_event_raises_run_error() -> None:
    """An error event stops the loop with RunError carrying its message and code."""
    client = FakeClient(WEATHER_ROUND, error_run())
    with pytest.raises(RunError, match="model overloaded") as caught:
        client.run_until_answer(query="q", tools=[get_current_weather])
    assert caught.value.code == "500"


def test_interrupt_without_tool_calls_raises() -> None:
    """An interrupt that asks for nothing is an error, not an empty answer."""
    bare = RunAnswer.model_validate({"content": [{"event_status": "interrupt"}]})
    with pytest.raises(RunError, match="without asking for tool calls"):
        FakeClient(bare).run_until_answer(query="q", tools=[])


def test_stream_yields_text_deltas_in_order() -> None:
    """Streaming gives the answer piece by piece, then the joined answer."""
    client = _weather_client(streamed("北京", "今天", "25度"))
    events = list(client.iter_until_answer(query="q", tools=[get_current_weather]))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["北京", "今天", "25度"]
    done = events[-1]
    assert isinstance(done, AnswerDone)
    assert done.result.answer == "北京今天25度"
    assert all(r["stream"] for r in client.requests)


def test_stream_closes_every_stream() -> None:
    """Each streamed run is closed after it is read."""
    client = _weather_client(streamed("ok"))
    client.run_until_answer(query="q", tools=[get_current_weather], stream=True)
    assert [s.closed for s in client.streams] == [True, True]


def test_interrupted_stream_raises() -> None:
    """A stream that ends without its final event raises StreamInterruptedError."""
    client = _weather_client(streamed("北京", complete=False))
    with pytest.raises(StreamInterruptedError):
        client.run_until_answer(query="q", tools=[get_current_weather], stream=True)
    assert client.streams[-1].closed


def test_empty_stream_raises() -> None:
    """A stream with no message at all is interrupted too."""
    with pytest.raises(StreamInterruptedError):
        FakeClient([]).run_until_answer(query="q", tools=[], stream=True)


def test_event_order_of_a_round() -> None:
    """Events come as: started, finished (per call), round finished, ..., done."""
    client = FakeClient(
        interrupt(_call("a", "add", a=1, b=2), _call("b", "add", a=2, b=2)), final("ok")
    )
    kinds = [
        type(e).__name__
        for e in client.iter_until_answer(query="q", tools=[add], stream=False)
        if not isinstance(e, ServerEvent)
    ]
    assert kinds == [
        "ToolCallStarted",
        "ToolCallStarted",
        "ToolCallFinished",
        "ToolCallFinished",
        "RoundFinished",
        "TextDelta",
        "AnswerDone",
    ]


def test_on_event_sees_the_same_events_as_the_iterator() -> None:
    """run_until_answer(on_event=...) passes every event of iter_until_answer."""
    seen: list[LoopEvent] = []
    client = _weather_client(streamed("a", "b"))
    result = client.run_until_answer(
        query="q", tools=[get_current_weather], stream=True, on_event=seen.append
    )
    expected = list(
        _weather_client(streamed("a", "b")).iter_until_answer(
            query="q", tools=[get_current_weather]
        )
    )
    assert [type(e) for e in seen] == [type(e) for e in expected]
    assert isinstance(seen[-1], AnswerDone)
    assert seen[-1].result is result


def test_tool_events_carry_round_and_record() -> None:
    """Started events carry the arguments; finished events the record."""
    events = list(_weather_client().iter_until_answer(query="q", tools=[get_current_weather]))
    started = next(e for e in events if isinstance(e, ToolCallStarted))
    finished = next(e for e in events if isinstance(e, ToolCallFinished))
    rounds = [e for e in events if isinstance(e, RoundFinished)]
    assert (started.round, started.name, dict(started.arguments)) == (
        1,
        "get_current_weather",
        {"location": "北京"},
    )
    assert finished.record.output == "北京今天25度"
    assert rounds[0].round.index == 1


def test_closing_the_iterator_early_closes_the_stream() -> None:
    """Abandoning the iterator mid-stream closes the open stream."""
    client = FakeClient(streamed("a", "b", "c"))
    events = client.iter_until_answer(query="q", tools=[])
    next(e for e in events if isinstance(e, TextDelta))
    events.close()
    assert client.streams[0].closed


def test_on_event_raising_closes_the_open_stream() -> None:
    """A callback that raises mid-stream propagates, and the stream is closed right away."""
    client = FakeClient(streamed("a", "b", "c"))

    def on_event(event: LoopEvent) -> None:
        if isinstance(event, TextDelta):
            raise ValueError("the UI is gone")

    with pytest.raises(ValueError, match="the UI is gone") as caught:
        client.run_until_answer(query="q", tools=[], stream=True, on_event=on_event)
    assert client.streams[0].closed  # even while the traceback (holding the loop) is kept
    assert caught.traceback


def test_tool_failure_goes_back_to_the_agent_and_the_loop_continues() -> None:
    """An unknown tool becomes an error output; the agent then answers."""
    client = FakeClient(interrupt(_call("x", "get_wether", location="北京")), final("sorry"))
    result = client.run_until_answer(query="q", tools=[get_current_weather])
    output = client.requests[1]["tool_outputs"][0]["output"]
    assert "Did you mean 'get_current_weather'" in output
    assert result.tool_calls[0].is_error


def test_raise_errors_raises_out_of_the_loop() -> None:
    """With raise_errors=True a tool failure raises its ToolError."""
    client = FakeClient(interrupt(_call("x", "nope")))
    with pytest.raises(ToolNotFoundError):
        client.run_until_answer(query="q", tools=[add], raise_errors=True)


def test_approve_reaches_the_dispatcher() -> None:
    """approve= is used for tools that need approval."""

    def wipe(path: str) -> str:
        """Delete everything under a path."""
        return f"wiped {path}"

    registry = ToolRegistry()
    registry.add(wipe, requires_approval=True)
    client = FakeClient(interrupt(_call("x", "wipe", path="/")), final("ok"))
    client.run_until_answer(query="q", tools=registry, approve=lambda request: False)
    assert "the user declined" in client.requests[1]["tool_outputs"][0]["output"]


def test_as_registry_keeps_a_registry_and_wraps_callables() -> None:
    """A registry is used as is; callables are wrapped in a new one."""
    registry = ToolRegistry([add])
    assert as_registry(registry) is registry
    assert as_registry([add]).names() == ["add"]
    assert as_registry(None).names() == []


def test_a_single_function_or_group_is_accepted_as_tools() -> None:
    """tools=func or tools=group (not in a list) registers it, instead of failing to iterate."""
    group = ToolGroup("loop-test-single")
    group.tool(get_current_weather)
    assert as_registry(add).names() == ["add"]
    assert as_registry(group).names() == ["get_current_weather"]


def test_empty_registry_sends_no_tools() -> None:
    """With no tools the first run sends tools=None (the client sends [])."""
    client = FakeClient(final("hi"))
    client.run_until_answer(query="q", tools=[])
    assert client.requests[0]["tools"] is None


def test_result_events_and_tool_time() -> None:
    """The result lists every wire event and the time spent in tools."""
    result = _weather_client().run_until_answer(query="q", tools=[get_current_weather])
    assert [e.event_status for e in result.events][-1] == "success"
    assert result.tool_time == pytest.approx(result.rounds[0].duration)
    assert json.dumps([r.to_output().model_dump() for r in result.tool_calls])


# --- against the reference server ---------------------------------------------------------


@contextmanager
def _serve(agent: Agent | None) -> Iterator[tuple[ReferenceServer, AppClient]]:
    """Start a reference server with ``agent`` and a client bound to it."""
    with (
        ReferenceServer(agent) as server,
        AppClient(server.app_id, token=server.token, base_url=server.url) as client,
    ):
        yield server, client


@pytest.fixture
def served() -> Iterator[tuple[ReferenceServer, AppClient]]:
    """A client on a reference server with its default rule-based agent."""
    with _serve(None) as pair:
        yield pair


def test_server_one_round(served: tuple[ReferenceServer, AppClient]) -> None:
    """One local weather call, then an answer that uses its output."""
    _, client = served
    result = client.run_until_answer(query="今天北京天气怎么样？", tools=[get_current_weather])
    [call] = result.tool_calls
    assert (call.name, call.arguments["location"], call.output) == (
        "get_current_weather",
        "北京",
        "北京今天25度",
    )
    assert "北京今天25度" in result.answer
    assert len(result.runs) == 2


def test_a_failed_round_trip_is_freed_at_once(served: tuple[ReferenceServer, AppClient]) -> None:
    """A round trip ended by an error leaves no reference cycle keeping it until a GC."""
    server, client = served
    client.run_until_answer(query="今天北京天气怎么样？", tools=[get_current_weather])
    server.faults.fail_next(1, status=400)
    with frames_left_in_cycles() as frames:
        try:
            client.run_until_answer(query="今天北京天气怎么样？", tools=[get_current_weather])
        except AppClientError:
            pass
        else:
            pytest.fail("the round trip did not fail")
    assert frames == []


def test_server_parallel_calls(served: tuple[ReferenceServer, AppClient]) -> None:
    """Two cities give two parallel calls in one round, answered in one request."""
    _, client = served
    result = client.run_until_answer(
        query="今天北京和上海的天气怎么样？", tools=[get_current_weather]
    )
    [round_] = result.rounds
    assert [c.arguments["location"] for c in round_.tool_calls] == ["北京", "上海"]
    assert len(result.runs) == 2
    assert "北京今天25度" in result.answer
    assert "上海今天25度" in result.answer


def test_server_streaming(served: tuple[ReferenceServer, AppClient]) -> None:
    """Streaming delivers the answer in several deltas that join to the result's answer."""
    _, client = served
    events = list(
        client.iter_until_answer(query="今天北京天气怎么样？", tools=[get_current_weather])
    )
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    done = events[-1]
    assert isinstance(done, AnswerDone)
    assert len(deltas) > 1
    assert "".join(deltas) == done.result.answer
    assert done.result.tool_calls[0].output == "北京今天25度"


def test_server_forced_tool_choice(served: tuple[ReferenceServer, AppClient]) -> None:
    """A forced tool_choice calls the local tool with its input, once."""
    _, client = served
    result = client.run_until_answer(
        query="看看天气",
        tools=[get_current_weather],
        tool_choice={
            "type": "function",
            "function": {"name": "get_current_weather", "input": {"location": "上海"}},
        },
    )
    assert [dict(c.arguments) for c in result.tool_calls] == [{"location": "上海"}]


def test_server_three_rounds_with_a_scripted_agent() -> None:
    """Three scripted rounds run to the answer; the agent saw every output in order."""
    agent = ScriptedAgent(
        [
            PlannedCall("add", {"a": 1, "b": 2}),
            PlannedCall("add", {"a": 3, "b": 4}),
            [PlannedCall("add", {"a": 5, "b": 6}), PlannedCall("add", {"a": 7, "b": 8})],
            ScriptedAgent.echo_outputs("sums: {outputs}", separator=", "),
        ]
    )
    with _serve(agent) as (_, client):
        result = client.run_until_answer(query="add things", tools=[add], stream=True)
    assert [len(r.tool_calls) for r in result.rounds] == [1, 1, 2]
    assert agent.outputs_seen == ("3", "7", "11", "15")
    assert result.answer == "sums: 3, 7, 11, 15"


def test_server_max_rounds_raises() -> None:
    """An agent that keeps calling tools past max_rounds raises with the partial result."""
    agent = ScriptedAgent([PlannedCall("add", {"a": i, "b": i}) for i in range(3)] + ["done"])
    with _serve(agent) as (_, client), pytest.raises(MaxRoundsExceededError) as caught:
        client.run_until_answer(query="q", tools=[add], max_rounds=2)
    assert len(caught.value.result.rounds) == 2


def test_server_interrupted_stream_raises_without_retries() -> None:
    """With max_retries=0, a stream cut before its final event raises StreamInterruptedError."""
    agent = ScriptedAgent(["一段很长的回答，会被分成好几段发送。" * 4])
    with ReferenceServer(agent) as server:
        client = AppClient(server.app_id, token=server.token, base_url=server.url, max_retries=0)
        server.faults.cut_stream_after(1)
        with pytest.raises(StreamInterruptedError):
            client.run_until_answer(query="q", tools=[add], stream=True)


def test_server_interrupted_stream_is_recovered_from_its_replay() -> None:
    """A stream cut mid-way is sent again with its key; the server's replay completes it."""
    answer = "一段很长的回答，会被分成好几段发送。" * 4
    with _serve(ScriptedAgent([answer])) as (server, client):
        server.faults.cut_stream_after(1)
        result = client.run_until_answer(query="q", tools=[add], stream=True)
    assert result.answer == answer


def test_server_outputs_from_the_partial_result_finish_the_turn() -> None:
    """After a failed submission, re-sending the error's outputs completes the run."""
    calls: list[dict[str, Any]] = []

    def counted_weather(location: str) -> str:
        """Get the weather of a city, counting the calls.

        Args:
            location: The city.
        """
        calls.append({"location": location})
        return f"{location}今天25度"

    with (
        ReferenceServer() as server,
        AppClient(server.app_id, token=server.token, base_url=server.url, max_retries=0) as client,
    ):
        conversation_id = client.create_conversation()

        def fail_the_submission(event: LoopEvent) -> None:
            if isinstance(event, RoundFinished):
                server.faults.fail_next(1, status=503)

        with pytest.raises(ServerError) as caught:
            client.run_until_answer(
                query="今天北京天气怎么样？",
                tools=[counted_weather],
                conversation_id=conversation_id,
                on_event=fail_the_submission,
            )
        done = caught.value.partial_result
        outputs = [call.to_output() for call in done.rounds[-1].tool_calls]
        answer = client.run(conversation_id, tool_outputs=outputs)
    assert "北京今天25度" in answer.content.answer
    assert calls == [{"location": "北京"}]
