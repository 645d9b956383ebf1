"""The OFFICIAL AppBuilder Python SDK (appbuilder-sdk 1.1.5) works against ReferenceServer.

These tests run the seed's user code unchanged (only ``GATEWAY_URL_V2`` and
``APPBUILDER_TOKEN`` point at the local server). They skip when the SDK is not installed,
except in CI (``CI`` set), where a missing SDK is a failure.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from appclient.testing import ReferenceServer

if os.environ.get("CI"):
    import appbuilder  # CI installs the compat extra: a missing SDK must fail, not skip
else:
    appbuilder = pytest.importorskip("appbuilder")

from appbuilder.core.console.appbuilder_client import data_class
from appbuilder.core.console.appbuilder_client.event_handler import (
    ToolCallEventHandler,
)

from tests.seed import SEED_WEATHER_TOOL

pytestmark = pytest.mark.compat

#: The seed's raw JSON Schema tool (AppBuilder ToolCall docs, 方式1).
WEATHER_TOOL = SEED_WEATHER_TOOL
UNITS = ("celsius", "fahrenheit")
#: A guard for the SDK's event-handler loops, which never end on a broken protocol.
MAX_HANDLER_STEPS = 10


def get_current_weather(location: str, unit: str) -> str:
    return f"{location}今天25度（{unit}）"


# The seed's docstring, verbatim (Chinese punctuation included): the SDK sends it as is.
get_current_weather.__doc__ = """获取指定中国城市的当前天气信息。

    仅支持中国城市的天气查询。参数 `location` 为中国城市名称，其他国家城市不支持天气查询。

    Args:
        location (str): 城市名，例如："北京"。
        unit (int): 温度单位，支持 "celsius" 或 "fahrenheit"。

    Returns:
        str: 天气情况描述
    """


@appbuilder.manifest(
    description=(
        "获取指定中国城市的当前天气信息。仅支持中国城市的天气查询。"
        "参数 `location` 为中国城市名称，其他国家城市不支持天气查询。"
    )
)
@appbuilder.manifest_parameter(name="location", description="城市名，例如：北京。")
@appbuilder.manifest_parameter(name="unit", description="温度单位，支持 'celsius' 或 'fahrenheit'")
def decorated_weather(location: str, unit: str) -> str:
    return f"{location}今天25度（{unit}）"


def _tool_call(message: Any) -> Any:
    event = message.content.events[-1]
    assert event.status == "interrupt"
    return event.tool_calls[-1]


def test_create_conversation(client: Any) -> None:
    """create_conversation returns a conversation id."""
    assert client.create_conversation()


def test_raw_json_tool_gives_the_weather_call_and_outputs_give_an_answer(client: Any) -> None:
    """The seed's raw tool: a call with location 北京 and a unit; the output is used."""
    cid = client.create_conversation()
    message = client.run(conversation_id=cid, query="今天北京天气怎么样？", tools=[WEATHER_TOOL])
    call = _tool_call(message)
    assert call.function.name == "get_current_weather"
    assert call.function.arguments["location"] == "北京"
    assert call.function.arguments["unit"] in UNITS
    assert set(call.function.arguments) == {"location", "unit"}
    answer = client.run(
        conversation_id=cid, tool_outputs=[{"tool_call_id": call.id, "output": "北京今天35度"}]
    )
    assert answer.content.answer
    assert "北京今天35度" in answer.content.answer
    assert answer.content.events[-1].status == "success"


@pytest.mark.parametrize(
    "function", [get_current_weather, decorated_weather], ids=["from_function", "decorator"]
)
def test_manifest_tools_round_trip(client: Any, function: Any) -> None:
    """Manifest.from_function tools (docstring or @manifest) get a complete call and an answer."""
    cid = client.create_conversation()
    tools = [appbuilder.Manifest.from_function(function)]
    message = client.run(conversation_id=cid, query="今天北京的天气怎么样？", tools=tools)
    call = _tool_call(message)
    assert call.function.name == function.__name__
    assert call.function.arguments["location"] == "北京"
    assert call.function.arguments["unit"] in UNITS
    raw_result = function(**call.function.arguments)
    answer = client.run(
        conversation_id=cid, tool_outputs=[{"tool_call_id": call.id, "output": str(raw_result)}]
    )
    assert raw_result in answer.content.answer


def test_dataclass_tool_and_tool_output(client: Any) -> None:
    """The SDK's data_class.Tool and data_class.ToolOutput work the same way."""
    cid = client.create_conversation()
    tool = data_class.Tool(function=data_class.Function(**WEATHER_TOOL["function"]))
    call = _tool_call(client.run(cid, "今天北京天气怎么样？", tools=[tool]))
    output = data_class.ToolOutput(tool_call_id=call.id, output="北京今天25度")
    assert "北京今天25度" in client.run(cid, tool_outputs=[output]).content.answer


def test_stream_accumulates_the_answer(client: Any) -> None:
    """stream=True: the tool round is one chunk with the call; the answer comes in deltas."""
    cid = client.create_conversation()
    chunks = list(
        client.run(cid, "今天北京天气怎么样？", tools=[WEATHER_TOOL], stream=True).content
    )
    assert all(chunk.events[-1].tool_calls for chunk in chunks)
    call = chunks[-1].events[-1].tool_calls[-1]
    assert call.function.arguments["location"] == "北京"
    stream = client.run(
        cid, tool_outputs=[{"tool_call_id": call.id, "output": "北京今天35度"}], stream=True
    )
    answers = [chunk.answer for chunk in stream.content]
    deltas = [a for a in answers if a]
    assert len(deltas) >= 2
    assert "北京今天35度" in "".join(answers)


def test_tool_choice_forces_the_tool_with_its_input(client: Any) -> None:
    """A ToolChoice forcing get_current_weather calls it with exactly its input."""
    cid = client.create_conversation()
    choice = data_class.ToolChoice(
        type="function",
        function=data_class.ToolChoiceFunction(
            name="get_current_weather", input={"location": "上海", "unit": "celsius"}
        ),
    )
    message = client.run(
        cid, "今天北京天气怎么样？", tools=[WEATHER_TOOL], tool_choice=choice, end_user_id="u1"
    )
    call = _tool_call(message)
    assert call.function.name == "get_current_weather"
    assert call.function.arguments == {"location": "上海", "unit": "celsius"}


def test_tool_choice_forces_a_cloud_component(client: Any) -> None:
    """The documented dict form forcing the WeatherQuery component answers with its result."""
    cid = client.create_conversation()
    message = client.run(
        cid,
        "北京今天的天气",
        end_user_id="user_id_toolchoice",
        tool_choice={
            "type": "function",
            "function": {"name": "WeatherQuery", "input": {"city": "北京"}},
        },
    )
    assert message.content.events[-1].status == "success"
    assert "北京" in message.content.answer


@pytest.mark.parametrize("stream", [False, True], ids=["non-stream", "stream"])
def test_run_with_tool_call_event_handler_finishes(client: Any, stream: bool) -> None:
    """The SDK's own ToolCallEventHandler loop runs the tool and finishes with an answer."""
    cid = client.create_conversation()
    handler = client.run_with_handler(
        conversation_id=cid,
        query="今天北京天气怎么样？",
        tools=[WEATHER_TOOL],
        stream=stream,
        event_handler=ToolCallEventHandler([get_current_weather]),
    )
    answers: list[str] = []
    for step, response in enumerate(handler):
        assert step < MAX_HANDLER_STEPS, "the SDK handler loops: a run did not end properly"
        # Non-stream steps are Messages; stream steps are the answer chunks themselves.
        answers.append(response.answer if stream else response.content.answer)
    # The non-stream handler clears its own result at the end; the yielded answers remain.
    assert "北京今天25度" in "".join(answers)
    if stream:
        assert "北京今天25度" in handler.result


def test_upload_file_ids_and_feedback(client: Any, tmp_path: Path) -> None:
    """upload_local_file, file_url upload, a run with file_ids, and feedback all succeed."""
    cid = client.create_conversation()
    path = tmp_path / "hello 测试.txt"
    path.write_text("hello oracle\n", encoding="utf-8")
    file_id = client.upload_local_file(cid, str(path))
    url_id = client.upload_file(cid, file_url="https://example.com/a.pdf")
    message = client.run(cid, "总结一下这个文件", file_ids=[file_id, url_id])
    assert message.content.events[-1].status == "success"
    request_id = client.feedback(
        cid, message.content.message_id, "downvote", flag=["答非所问"], reason="测试"
    )
    assert request_id


def test_two_cities_give_parallel_calls(client: Any) -> None:
    """A query naming two cities gives two calls in one interrupt; both outputs are used."""
    cid = client.create_conversation()
    event = client.run(
        cid, "What's the weather like today in celsius in Tokyo and Paris.", tools=[WEATHER_TOOL]
    ).content.events[-1]
    assert len(event.tool_calls) == 2
    outputs = [
        {"tool_call_id": c.id, "output": f"{c.function.arguments['location']}: 20"}
        for c in event.tool_calls
    ]
    answer = client.run(cid, tool_outputs=outputs).content.answer
    for output in outputs:
        assert output["output"] in answer


def test_async_client_round_trip(server: ReferenceServer) -> None:
    """AsyncAppBuilderClient creates, runs with tools, and streams the outputs' answer."""

    async def scenario() -> str:
        client = appbuilder.AsyncAppBuilderClient(server.app_id)
        try:
            cid = await client.create_conversation()
            message = await client.run(cid, "今天北京天气怎么样？", tools=[WEATHER_TOOL])
            call = message.content.events[-1].tool_calls[-1]
            stream = await client.run(
                cid, tool_outputs=[{"tool_call_id": call.id, "output": "北京今天25度"}], stream=True
            )
            return "".join([chunk.answer async for chunk in stream.content])
        finally:
            await client.http_client.session.close()

    assert "北京今天25度" in asyncio.run(scenario())


def test_async_client_uploads_a_file_and_a_url(server: ReferenceServer, tmp_path: Path) -> None:
    """AsyncAppBuilderClient.upload_file works for a local path and for a file_url (urlencoded)."""
    path = tmp_path / "notes 测试.txt"
    path.write_text("hello\n", encoding="utf-8")

    async def scenario() -> str:
        client = appbuilder.AsyncAppBuilderClient(server.app_id)
        try:
            cid = await client.create_conversation()
            # upload_local_file itself recurses forever in SDK 1.1.5; upload_file is the way.
            file_id = await client.upload_file(cid, local_file_path=str(path))
            url_id = await client.upload_file(cid, file_url="https://example.com/a.pdf")
            message = await client.run(cid, "总结一下这个文件", file_ids=[file_id, url_id])
            return str(message.content.events[-1].status)
        finally:
            await client.http_client.session.close()

    assert asyncio.run(scenario()) == "success"


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_uploaded_file_keeps_its_chinese_name_and_quotes(
    server: ReferenceServer, tmp_path: Path, asynchronous: bool
) -> None:
    """Both official clients' uploads store the file's real name (aiohttp percent-encodes it)."""
    name = '报告 final;x"y.txt'
    path = tmp_path / name
    path.write_text("hello\n", encoding="utf-8")
    if asynchronous:

        async def scenario() -> str:
            client = appbuilder.AsyncAppBuilderClient(server.app_id)
            try:
                cid = await client.create_conversation()
                return str(await client.upload_file(cid, local_file_path=str(path)))
            finally:
                await client.http_client.session.close()

        file_id = asyncio.run(scenario())
    else:
        client = appbuilder.AppBuilderClient(server.app_id)
        file_id = client.upload_local_file(client.create_conversation(), str(path))
    record = server.store.get_file(file_id)
    assert record is not None
    assert record.name == name


def test_unknown_tool_call_id_is_a_bad_request(client: Any) -> None:
    """An unknown tool_call_id raises the SDK's BadRequestException (HTTP 400)."""
    cid = client.create_conversation()
    client.run(cid, "今天北京天气怎么样？", tools=[WEATHER_TOOL])
    with pytest.raises(appbuilder.BadRequestException):
        client.run(cid, tool_outputs=[{"tool_call_id": "nope", "output": "x"}])
