"""ModelAgent: the reference server plans with a model, end to end through the protocol."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from appclient import AppClient, RunError
from appclient.formats import get_format
from appclient.server import ModelAgent
from appclient.testing import ModelError, ModelReply, ReferenceServer, ScriptedModel
from tests.conftest import REPO_ROOT, child_environment

pytest.importorskip("openai")


def city_code(city: str) -> str:
    """Find the weather station code of a city.

    Args:
        city: The city, e.g. 北京.
    """
    return {"北京": "BJ-01", "上海": "SH-02"}.get(city, "XX-00")


def station_weather(code: str) -> str:
    """Read the weather at a station.

    Args:
        code: The station code, e.g. BJ-01.
    """
    return f"{code}: 晴, 25度"


TOOLS = [city_code, station_weather]


@contextmanager
def serving(
    steps: list[Any], **options: Any
) -> Iterator[tuple[AppClient, ScriptedModel, ReferenceServer]]:
    """A scripted model, a server planning with it, and a client."""
    model = ScriptedModel(steps, chunk_chars=512)
    with model:
        agent = ModelAgent(base_url=model.url, model="scripted", max_retries=0, **options)
        with (
            ReferenceServer(agent=agent) as server,
            AppClient(
                server.app_id, token=server.token, base_url=server.url, max_retries=0
            ) as client,
        ):
            yield client, model, server


def _last_content(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


def test_fc_chains_two_tools_and_answers_from_both() -> None:
    """fc: the model calls one tool, then a second with the first's result, then answers."""
    steps = [
        ModelReply(tool_calls=(("city_code", {"city": "北京"}),)),
        lambda r: ModelReply(tool_calls=(("station_weather", {"code": _last_content(r)}),)),
        lambda r: f"北京：{_last_content(r)}",
    ]
    with serving(steps) as (client, model, _):
        result = client.run_until_answer(query="北京天气怎么样？", tools=TOOLS)
    assert [c.name for c in result.tool_calls] == ["city_code", "station_weather"]
    assert result.tool_calls[1].arguments == {"code": "BJ-01"}
    assert result.answer == "北京：BJ-01: 晴, 25度"
    assert model.requests[0]["tools"][0]["function"]["name"] == "city_code"


def test_react_runs_the_loop_over_the_text_format() -> None:
    """react: tools go in the prompt, calls come out of the model's ReAct text."""
    react = get_format("react_en")
    steps = [
        "Thought: find the code\n" + react.write_calls([("city_code", {"city": "上海"})]),
        lambda r: react.write_calls([("station_weather", {"code": "SH-02"})]),
        lambda r: f"Thought: done\nFinal Answer: 上海 {_last_content(r)}",
    ]
    with serving(steps, strategy="react") as (client, model, _):
        result = client.run_until_answer(query="上海天气？", tools=TOOLS, stream=True)
    assert result.answer == "上海 Observation: SH-02: 晴, 25度"
    assert "Action Input" in model.requests[0]["messages"][0]["content"]
    assert model.requests[0]["stop"] == ["Observation:", "Observation:\n"]


def test_plan_and_solve_plans_once_then_carries_out_the_plan() -> None:
    """plan_and_solve: the plan is written first and given back at every later step."""
    steps = [
        "1. Find the station code.\n2. Read its weather.",
        ModelReply(tool_calls=(("city_code", {"city": "北京"}),)),
        ModelReply(tool_calls=(("station_weather", {"code": "BJ-01"}),)),
        "北京晴，25度",
    ]
    with serving(steps, strategy="plan_and_solve") as (client, model, _):
        result = client.run_until_answer(query="北京天气怎么样？", tools=TOOLS)
    assert [c.name for c in result.tool_calls] == ["city_code", "station_weather"]
    assert result.answer == "北京晴，25度"
    later = model.requests[2]["messages"][0]["content"]
    assert "1. Find the station code." in later  # the memo survived the interrupt


def test_rewoo_plans_evidence_steps_that_use_earlier_evidence() -> None:
    """rewoo: #E2 uses #E1's evidence; two model calls in all (planner and solver)."""
    plan = (
        "Plan: find the code\n#E1 = city_code[北京]\n"
        "Plan: read the weather\n#E2 = station_weather[#E1]"
    )
    steps = [
        plan,
        lambda r: "北京：" + _last_content(r).split("#E2 (station_weather): ")[1].split("\n")[0],
    ]
    with serving(steps, strategy="rewoo") as (client, model, _):
        result = client.run_until_answer(query="北京天气怎么样？", tools=TOOLS)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [
        ("city_code", {"city": "北京"}),
        ("station_weather", {"code": "BJ-01"}),
    ]
    assert result.answer.startswith("北京：BJ-01: 晴")
    assert len(model.requests) == 2


def test_a_cloud_component_the_model_calls_is_run_by_the_server() -> None:
    """The model may call the server's cloud components; their results go back to it."""
    steps = [
        ModelReply(tool_calls=(("Calculator", {"expression": "20+(2*4)"}),)),
        lambda r: f"结果是 {_last_content(r)}",
    ]
    with serving(steps) as (client, _, _):
        result = client.run_until_answer(query="20+(2*4) 等于多少？", tools=TOOLS)
    assert result.answer == "结果是 20+(2*4) = 28"
    assert result.tool_calls == ()


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([ModelError(500, "model crashed")], "HTTP 500"),
        ([ModelReply(tool_calls=(("city_code", "{not json"),))] * 3, "not a JSON object"),
        ([ModelReply(tool_calls=(("no_such_tool", {}),))] * 3, "not an available tool"),
        (["x" * 1_000_001], "passed 200,000 characters"),
    ],
    ids=["model-error", "malformed-arguments", "unknown-tool", "one-megabyte"],
)
def test_a_bad_model_ends_the_run_with_a_clear_error_and_the_server_serves_on(
    steps: list[Any], message: str
) -> None:
    """Model failures become the run's error event; the next conversation is served."""
    with serving([*steps, "你好"], repair_attempts=2) as (client, _, _):
        with pytest.raises(RunError, match=message):
            client.run_until_answer(query="北京天气？", tools=TOOLS)
        assert client.run_until_answer(query="你好", tools=TOOLS).answer == "你好"


def test_a_model_that_never_ends_its_stream_is_cut_and_reported() -> None:
    """A reply that never ends is cut at the reply bound, and the server serves on."""
    with serving([ModelReply(endless=True), "你好"], max_reply_chars=5_000) as (client, _, _):
        with pytest.raises(RunError, match="passed 5,000 characters"):
            client.run_until_answer(query="北京天气？", tools=TOOLS)
        assert client.run_until_answer(query="你好", tools=TOOLS).answer == "你好"


def test_a_model_that_keeps_calling_tools_is_stopped() -> None:
    """After max_tool_results results in one turn, the run ends with an error."""
    steps = [ModelReply(tool_calls=(("city_code", {"city": "北京"}),))] * 5
    with (
        serving(steps, max_tool_results=3) as (client, _, _),
        pytest.raises(RunError, match="kept calling tools"),
    ):
        client.run_until_answer(query="北京天气？", tools=TOOLS, max_rounds=10)


def test_the_conversation_goes_on_with_the_model_after_a_restart(tmp_path: Path) -> None:
    """With a database, a restarted server gives the model the earlier turns."""
    db = tmp_path / "state.sqlite3"
    with ScriptedModel(["第一次回答", "第二次回答"]) as model:
        for query in ("第一个问题", "第二个问题"):
            agent = ModelAgent(base_url=model.url, model="scripted")
            with ReferenceServer(agent=agent, db_path=db, token="tok-restart") as server:
                client = AppClient(server.app_id, token=server.token, base_url=server.url)
                cid = "" if query == "第一个问题" else cid  # noqa: F821 - set on the first pass
                cid = cid or client.create_conversation()
                client.run(cid, query)
        second = model.requests[1]["messages"]
    assert [m["content"] for m in second[1:]] == ["第一个问题", "第一次回答", "第二个问题"]


def test_the_model_key_is_never_shown() -> None:
    """The key goes to the model only: not in the agent's repr."""
    agent = ModelAgent(base_url="http://127.0.0.1:9/v1", model="m", api_key="sk-model-secret-1")
    assert "sk-model-secret-1" not in repr(agent)


def test_without_the_openai_package_the_error_names_the_extra() -> None:
    """No openai installed: ModelAgent says which extra to install."""
    code = (
        "import sys; sys.modules['openai'] = None\n"
        "from appclient.server import ModelAgent\n"
        "try:\n    ModelAgent(base_url='http://127.0.0.1:9/v1', model='m')\n"
        "except Exception as e:\n    print(type(e).__name__, e)\n"
    )
    result = subprocess.run(  # noqa: S603 - this interpreter, a fixed script
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=REPO_ROOT,
        env=child_environment(),
    )
    assert "InvalidRequestError" in result.stdout
    assert "pip install 'appclient[model]'" in result.stdout


def test_the_scripted_model_speaks_the_openai_wire_format() -> None:
    """The openai package itself reads the scripted model's plain and streamed answers."""
    import openai

    call = ModelReply(tool_calls=(("city_code", {"city": "北京"}),))
    with ScriptedModel([call, call, "北京晴"], chunk_chars=3) as model:
        client = openai.OpenAI(base_url=model.url, api_key="unused")
        plain = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "q"}]
        )
        [tool_call] = plain.choices[0].message.tool_calls or []
        assert json.loads(tool_call.function.arguments) == {"city": "北京"}
        deltas = list(
            client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "q"}], stream=True
            )
        )
        pieces = [
            d.choices[0].delta.tool_calls
            for d in deltas
            if d.choices and d.choices[0].delta.tool_calls
        ]
        assert "".join(p[0].function.arguments or "" for p in pieces) == '{"city": "北京"}'
        text = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "q"}], stream=True
        )
        assert "".join(c.choices[0].delta.content or "" for c in text if c.choices) == "北京晴"


def test_the_model_usage_is_reported_in_the_events() -> None:
    """The token usage the model reports reaches the run's events (not character counts)."""
    usage = {"prompt_tokens": 111, "completion_tokens": 22, "total_tokens": 133}
    with serving([ModelReply(text="北京晴", usage=usage)]) as (client, _, _):
        message = client.run(client.create_conversation(), "北京天气？")
    reported = [event.usage for event in message.events if event.usage is not None]
    assert reported
    assert (reported[-1].prompt_tokens, reported[-1].total_tokens) == (111, 133)


def test_a_streamed_answer_goes_out_while_the_model_still_writes_it() -> None:
    """The first delta reaches the client before the model has finished its reply."""
    import threading

    gate = threading.Event()
    reply = ModelReply(text="北京今天晴，最高二十五度。", gate=gate)
    with serving([reply]) as (client, _, _):
        stream = client.run(client.create_conversation(), "北京天气？", stream=True)
        try:
            first = next(iter(stream))
            assert first.answer  # the model is held after its first chunk: this came live
            assert first.events[0].event_status == "preparing"
        finally:
            gate.set()
        answer = stream.collect()
    assert answer.answer == "北京今天晴，最高二十五度。"
    assert answer.events[-1].event_status == "success"


@pytest.mark.parametrize("tool_format", ["native", "hermes", "react_en"])
def test_a_streamed_tool_round_stays_one_message(tool_format: str) -> None:
    """A reply that calls a tool sends nothing live: the interrupt is the round's one message."""
    fmt = None if tool_format == "native" else get_format(tool_format)
    call = (
        ModelReply(tool_calls=(("city_code", {"city": "北京"}),))
        if fmt is None
        else "I will look it up.\n" + fmt.write_calls([("city_code", {"city": "北京"})])
    )
    with serving([call], tool_format=tool_format) as (client, _, _):
        messages = list(
            client.run(client.create_conversation(), "北京？", tools=TOOLS, stream=True)
        )
    assert len(messages) == 1
    assert messages[0].events[-1].tool_calls[0].function.name == "city_code"


def test_a_react_answer_streams_from_its_final_answer_on() -> None:
    """With ReAct, what precedes 'Final Answer:' (the thought) is not streamed as the answer."""
    text = "Thought: I know this.\nFinal Answer: 北京今天晴，二十五度。"
    with serving([text], tool_format="react_en") as (client, _, _):
        answer = client.run(client.create_conversation(), "北京？", stream=True).collect()
    assert answer.answer == "北京今天晴，二十五度。"


def test_a_live_stream_cut_after_delivery_began_is_recovered_by_its_key() -> None:
    """Tool outputs whose live answer is cut mid-way are applied once; the resend reads it on."""
    call = ModelReply(tool_calls=(("city_code", {"city": "北京"}),))
    with ScriptedModel([call, "北京的站点是 BJ-01，今天晴。"], chunk_chars=2) as model:
        agent = ModelAgent(base_url=model.url, model="scripted", max_retries=0)
        with (
            ReferenceServer(agent=agent) as server,
            AppClient(
                server.app_id, token=server.token, base_url=server.url, sleep=lambda _: None
            ) as client,
        ):
            conversation_id = client.create_conversation()
            first = client.run(conversation_id, "北京站点？", tools=TOOLS)
            (tool_call,) = first.content.tool_calls
            server.faults.cut_stream_after(3)
            answer = client.run(
                conversation_id,
                tool_outputs=[{"tool_call_id": tool_call.id, "output": "BJ-01"}],
                stream=True,
            ).collect()
    assert answer.answer == "北京的站点是 BJ-01，今天晴。"
    assert answer.events[-1].event_status == "success"
