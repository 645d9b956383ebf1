"""The official SDK's event handlers, async handlers and run extras work against ReferenceServer.

Like ``test_official_sdk.py``, these run the SDK's own code unchanged; they skip when the SDK
is not installed, except in CI (``CI`` set).
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

from appclient.server._agents._agent_api import PlannedCall
from appclient.testing import ReferenceServer, ScriptedAgent

if os.environ.get("CI"):
    import appbuilder  # CI installs the compat extra: a missing SDK must fail, not skip
else:
    appbuilder = pytest.importorskip("appbuilder")

from appbuilder.core.console.appbuilder_client import data_class
from appbuilder.core.console.appbuilder_client.async_event_handler import (
    AsyncToolCallEventHandler,
)
from appbuilder.core.console.appbuilder_client.event_handler import (
    AppBuilderEventHandler,
    ToolCallEventHandler,
)

from tests.compat.test_official_sdk import MAX_HANDLER_STEPS, WEATHER_TOOL, get_current_weather

pytestmark = pytest.mark.compat


def test_run_accepts_action_parameters_custom_metadata_and_mcp_authorization(client: Any) -> None:
    """The workflow/agent extras of run() are accepted and the run still answers."""
    cid = client.create_conversation()
    message = client.run(
        cid,
        "你好",
        action=data_class.Action.create_resume_action(event_id="evt-1"),
        parameters={"custom_variable1": "abc", "custom_variable2": 1.23},
        custom_metadata=data_class.CustomMetadata(override_role_instruction="简短回答"),
        mcp_authorization=[{"type": "netdisk", "token": "x"}],
        end_user_id="user-1",
    )
    assert message.content.answer
    assert message.content.events[-1].status == "success"


class RecordingHandler(AppBuilderEventHandler):  # type: ignore[misc] # the SDK is untyped
    """An AppBuilderEventHandler subclass that records each callback and answers interrupts."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, str]] = []

    def interrupt(self, run_context: Any, run_response: Any) -> list[dict[str, str]]:
        """Record the thought and run every requested call."""
        self.calls.append(("interrupt", run_context.current_thought))
        return [
            {"tool_call_id": call.id, "output": get_current_weather(**call.function.arguments)}
            for call in run_context.current_tool_calls
        ]

    def running(self, run_context: Any, run_response: Any) -> None:
        """Record an answer delta."""
        self.calls.append(("running", run_response.answer))

    def success(self, run_context: Any, run_response: Any) -> None:
        """Record the final message's answer."""
        self.calls.append(("success", run_response.answer))


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_event_handler_subclass_until_done_gets_its_callbacks(client: Any, stream: bool) -> None:
    """A custom AppBuilderEventHandler answers the interrupt; until_done ends on success."""
    handler = RecordingHandler()
    cid = client.create_conversation()
    with client.run_with_handler(
        cid, "今天北京天气怎么样？", tools=[WEATHER_TOOL], stream=stream, event_handler=handler
    ) as run:
        run.until_done()
    kinds = [kind for kind, _ in handler.calls]
    assert kinds[0] == "interrupt"
    assert handler.calls[0][1]  # the thought is read from the interrupt event
    assert kinds[-1] == "success"
    answer = "".join(text for kind, text in handler.calls if kind in {"running", "success"})
    assert "北京今天25度" in answer
    if stream:
        assert kinds.count("running") >= 2


def add(a: int, b: int) -> str:
    return str(a + b)


ADD_TOOL = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two integers.",
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    },
}


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_tool_call_event_handler_runs_several_rounds(
    monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    """ToolCallEventHandler answers a call, then two parallel calls, then gets the answer."""
    agent = ScriptedAgent(
        [
            PlannedCall(
                name="get_current_weather", arguments={"location": "北京", "unit": "celsius"}
            ),
            [
                PlannedCall(name="add", arguments={"a": 1, "b": 2}),
                PlannedCall(name="add", arguments={"a": 3, "b": 4}),
            ],
            "done: 3 and 7",
        ]
    )
    with ReferenceServer(agent=agent) as running:
        monkeypatch.setenv("GATEWAY_URL_V2", running.url)
        monkeypatch.setenv("APPBUILDER_TOKEN", running.token)
        client = appbuilder.AppBuilderClient(running.app_id)
        handler = ToolCallEventHandler([get_current_weather, add])
        rounds: list[list[str]] = []
        for step, response in enumerate(
            client.run_with_handler(
                client.create_conversation(),
                "q",
                tools=[WEATHER_TOOL, ADD_TOOL],
                stream=stream,
                event_handler=handler,
            )
        ):
            assert step < MAX_HANDLER_STEPS, "the SDK handler loops: a run did not end properly"
            events = response.events if stream else response.content.events
            if events[-1].tool_calls:
                rounds.append([call.function.name for call in events[-1].tool_calls])
    assert rounds == [["get_current_weather"], ["add", "add"]]
    if stream:
        assert handler.result == "done: 3 and 7"


def test_run_multiple_dialog_with_handler_streams_each_dialog(client: Any) -> None:
    """run_multiple_dialog_with_handler (stream) runs each query's tool round to an answer."""
    handler = ToolCallEventHandler([get_current_weather])
    results = []
    for step, dialog in enumerate(
        client.run_multiple_dialog_with_handler(
            client.create_conversation(),
            queries=["今天北京天气怎么样？", "今天上海天气怎么样？"],
            tools=[[WEATHER_TOOL]],
            stream=True,
            event_handler=handler,
        )
    ):
        assert step < 4 * MAX_HANDLER_STEPS
        if dialog is handler:  # later dialogs yield the handler itself
            dialog.until_done()
            results.append(handler.result)
        elif dialog.events[-1].status == "success":
            results.append(handler.result)
    assert "北京今天25度" in results[0]
    assert "上海今天25度" in results[1]


def test_mcp_tool_round_trip(client: Any) -> None:
    """An MCPTool (name, description, inputSchema) is called and its output answered."""
    cid = client.create_conversation()
    tool = data_class.MCPTool(
        name="get_current_weather",
        description="获取指定中国城市的当前天气信息。",
        inputSchema=WEATHER_TOOL["function"]["parameters"],
    )
    event = client.run(cid, "今天北京天气怎么样？", tools=[tool]).content.events[-1]
    assert event.status == "interrupt"
    call = event.tool_calls[-1]
    assert call.function.arguments["location"] == "北京"
    output = data_class.ToolOutput(tool_call_id=call.id, output="北京今天晴")
    assert "北京今天晴" in client.run(cid, tool_outputs=[output]).content.answer


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_async_tool_call_event_handler_finishes(server: ReferenceServer, stream: bool) -> None:
    """AsyncToolCallEventHandler via the async run_with_handler runs the tool and ends."""

    async def scenario() -> int:
        client = appbuilder.AsyncAppBuilderClient(server.app_id)
        try:
            handler = AsyncToolCallEventHandler(functions=[get_current_weather])
            run = await client.run_with_handler(
                await client.create_conversation(),
                "今天北京天气怎么样？",
                tools=[WEATHER_TOOL],
                stream=stream,
                event_handler=handler,
            )
            steps = 0
            async for _ in run:
                steps += 1
                assert steps < 2 * MAX_HANDLER_STEPS
            if stream:
                assert "北京今天25度" in handler.result
            return steps
        finally:
            await client.http_client.session.close()

    assert asyncio.run(scenario()) >= 2


def test_async_run_multiple_dialog_with_handler(server: ReferenceServer) -> None:
    """The async run_multiple_dialog_with_handler (stream) answers each query in turn."""

    async def scenario() -> list[str]:
        client = appbuilder.AsyncAppBuilderClient(server.app_id)
        try:
            handler = AsyncToolCallEventHandler(functions=[get_current_weather])
            results = []
            async for dialog in client.run_multiple_dialog_with_handler(
                await client.create_conversation(),
                queries=["今天北京天气怎么样？", "今天上海天气怎么样？"],
                tools=[[WEATHER_TOOL]],
                stream=True,
                event_handler=handler,
            ):
                await dialog.until_done()
                results.append(handler.result)
            return results
        finally:
            await client.http_client.session.close()

    first, second = asyncio.run(scenario())
    assert "北京今天25度" in first
    assert "上海今天25度" in second


def test_agent_builder_batch_and_secret_key(server: ReferenceServer) -> None:
    """The deprecated AgentBuilder, Component.batch and a secret_key argument all work."""
    with pytest.warns(DeprecationWarning, match="AgentBuilder"):
        builder = appbuilder.AgentBuilder(server.app_id)
    client = appbuilder.AppBuilderClient(server.app_id, secret_key=server.token)
    first, second = builder.create_conversation(), client.create_conversation()
    answers = client.batch(first, second, query="你好")
    assert [m.content.events[-1].status for m in answers] == ["success", "success"]
