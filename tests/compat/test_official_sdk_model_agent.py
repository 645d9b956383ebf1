"""The official appbuilder-sdk 1.1.5 client against a server that plans with a (scripted) model.

For every tool format the model speaks (native OpenAI tool calls, and each text format), plain
and streamed: the model's call reaches the official client intact, the client's tool output
goes back to the model, and the model's answer (which quotes it) comes back.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from appclient.formats import FORMAT_NAMES, get_format
from appclient.testing import ModelReply, ReferenceServer, ScriptedModel
from tests.seed import SEED_WEATHER_TOOL

appbuilder = pytest.importorskip("appbuilder")
pytestmark = pytest.mark.compat

WEATHER_TOOL = SEED_WEATHER_TOOL
ARGUMENTS = {"location": "北京", "unit": "celsius"}


def _answer(tool_format: str, text: str) -> str | ModelReply:
    """The model's final answer, written as the format asks."""
    if tool_format in ("react_en", "react_zh"):
        return f"Thought: I have what I need.\nFinal Answer: {text}"
    if tool_format == "toolbench":
        finish = {"return_type": "give_answer", "final_answer": text}
        return (
            f"Thought: done\nAction: Finish\nAction Input: {json.dumps(finish, ensure_ascii=False)}"
        )
    if tool_format == "agentscope":
        return json.dumps({"thought": "done", "speak": text, "function": []}, ensure_ascii=False)
    return text


def weather_model(tool_format: str) -> Any:
    """A model that calls the weather tool, then answers quoting the tool's output."""

    def reply(request: dict[str, Any]) -> str | ModelReply:
        last = request["messages"][-1]
        if last["role"] == "tool" or (last["role"] == "user" and "天气" not in last["content"]):
            return _answer(tool_format, f"根据查询：{last['content']}")
        if tool_format == "native":
            assert request["tools"][0]["function"]["name"] == "get_current_weather"
            return ModelReply(tool_calls=(("get_current_weather", ARGUMENTS),))
        assert "get_current_weather" in request["messages"][0]["content"]  # the rendered tools
        return get_format(tool_format).write_calls([("get_current_weather", ARGUMENTS)])

    return reply


@pytest.fixture
def official_client(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    tool_format = request.param
    model = ScriptedModel([weather_model(tool_format)] * 2)
    with (
        model,
        ReferenceServer(model_url=model.url, model="scripted", tool_format=tool_format) as server,
    ):
        monkeypatch.setenv("GATEWAY_URL_V2", server.url)
        monkeypatch.setenv("APPBUILDER_TOKEN", server.token)
        yield appbuilder.AppBuilderClient(server.app_id), model


FORMATS = ["native", *FORMAT_NAMES]


@pytest.mark.parametrize("official_client", FORMATS, indirect=True)
def test_plain_round_trip_with_a_model(official_client: Any) -> None:
    """A plain run: the model's call arrives intact, its answer quotes the tool output."""
    client, model = official_client
    cid = client.create_conversation()
    message = client.run(conversation_id=cid, query="今天北京天气怎么样？", tools=[WEATHER_TOOL])
    call = message.content.events[-1].tool_calls[-1]
    assert (call.function.name, call.function.arguments) == ("get_current_weather", ARGUMENTS)
    answer = client.run(
        conversation_id=cid, tool_outputs=[{"tool_call_id": call.id, "output": "北京今天35度"}]
    )
    assert "北京今天35度" in answer.content.answer
    assert answer.content.events[-1].status == "success"
    assert len(model.requests) == 2


@pytest.mark.parametrize("official_client", FORMATS, indirect=True)
def test_streamed_round_trip_with_a_model(official_client: Any) -> None:
    """A streamed run: the call comes in the interrupt, the answer in deltas."""
    client, _ = official_client
    cid = client.create_conversation()
    chunks = list(
        client.run(cid, "今天北京天气怎么样？", tools=[WEATHER_TOOL], stream=True).content
    )
    call = chunks[-1].events[-1].tool_calls[-1]
    assert call.function.arguments == ARGUMENTS
    stream = client.run(
        cid, tool_outputs=[{"tool_call_id": call.id, "output": "北京今天35度"}], stream=True
    )
    assert "北京今天35度" in "".join(chunk.answer for chunk in stream.content)
