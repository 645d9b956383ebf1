"""appclient sends what the official client sent in the recorded scenarios (fixtures/requests).

For each scenario that maps onto an appclient call, the same call is made against a mock of
the recorded server; the request must have the recorded path and decode to the recorded JSON
(or multipart parts), with the recorded answer played back. Request ids and uuids in headers
are not compared; ids inside bodies are reused from the recording so bodies compare exactly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import responses

from appclient import AppClient, ToolChoice, ToolChoiceFunction, ToolOutput
from tests.conftest import load_request_fixture
from tests.seed import SEED_WEATHER_TOOL, OfficialFunction, OfficialMCPTool, OfficialTool

BASE = "http://127.0.0.1:8934"
APP_ID = "oracle-app-id"
CID = "480a53a4-74a3-4c77-bb5a-a4ba2e490abf"
QUERY = "今天北京天气怎么样？"
#: The seed's JSON Schema weather tool (AppBuilder ToolCall docs, way 1).
WEATHER_TOOL = SEED_WEATHER_TOOL


def _tool_call_id(scenario: dict[str, Any]) -> str:
    outputs = scenario["requests"][0]["json"]["tool_outputs"]
    tool_call_id: str = outputs[0]["tool_call_id"]
    return tool_call_id


def _upload_file(client: AppClient, tmp_path: Path) -> Any:
    path = tmp_path / "hello 测试.txt"
    path.write_bytes(b"hello oracle\n")
    return client.upload_file(CID, file_path=path)


#: scenario -> the appclient call that matches the official client's call.
CALLS: dict[str, Callable[[AppClient, dict[str, Any], Path], Any]] = {
    "01_create_conversation": lambda c, s, p: c.create_conversation(),
    "02_run_tools_raw_nonstream": lambda c, s, p: c.run(CID, QUERY, tools=[WEATHER_TOOL]),
    "03_run_tool_outputs_nonstream": lambda c, s, p: c.run(
        CID, tool_outputs=[{"tool_call_id": _tool_call_id(s), "output": "北京今天25度"}]
    ),
    "06_run_tools_stream": lambda c, s, p: c.run(
        CID, QUERY, tools=[WEATHER_TOOL], stream=True
    ).collect(),
    "07_run_tool_outputs_stream": lambda c, s, p: c.run(
        CID,
        tool_outputs=[ToolOutput(tool_call_id=_tool_call_id(s), output="北京今天25度")],
        stream=True,
    ).collect(),
    "08_run_tool_choice_end_user_id": lambda c, s, p: c.run(
        CID,
        QUERY,
        tools=[WEATHER_TOOL],
        tool_choice=ToolChoice(
            type="function",
            function=ToolChoiceFunction(
                name="get_current_weather", input={"location": "上海", "unit": "celsius"}
            ),
        ),
        end_user_id="oracle_user_001",
    ),
    "09_run_tool_choice_dict_no_tools": lambda c, s, p: c.run(
        CID,
        "北京今天的天气",
        end_user_id="user_id_toolchoice",
        tool_choice={
            "type": "function",
            "function": {"name": "WeatherQuery", "input": {"city": "北京"}},
        },
    ),
    "10_run_tool_choice_auto": lambda c, s, p: c.run(
        CID, "你好", tool_choice=ToolChoice(type="auto", function=None)
    ),
    "11_run_plain_query": lambda c, s, p: c.run(CID, "你好"),
    "12_upload_local_file": lambda c, s, p: _upload_file(c, p),
    "13_upload_file_url": lambda c, s, p: c.upload_file(CID, file_url="https://example.com/a.pdf"),
    "14_run_file_ids": lambda c, s, p: c.run(
        CID, "总结一下这个文件", file_ids=["f119940f-e882-4107-b0b6-3aa1949f0dc5"]
    ),
    # As the official client was called: ids and type by position.
    "15_feedback": lambda c, s, p: c.feedback(
        CID, "msg-1", "downvote", flag=["答非所问"], reason="测试"
    ),
    "16_run_tools_dataclass_Tool": lambda c, s, p: c.run(
        CID, QUERY, tools=[OfficialTool(function=OfficialFunction(**WEATHER_TOOL["function"]))]
    ),
    "17_run_tools_MCPTool": lambda c, s, p: c.run(
        CID,
        QUERY,
        tools=[
            OfficialMCPTool(
                name="get_current_weather",
                description="天气",
                inputSchema=WEATHER_TOOL["function"]["parameters"],
            )
        ],
    ),
}


@pytest.fixture
def mock() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        yield rsps


def _play_recorded_answers(mock: responses.RequestsMock, scenario: dict[str, Any]) -> None:
    answers = scenario["responses"] or [{"status": 200, "json": {"request_id": "fb"}}]
    for request, answer in zip(scenario["requests"], answers, strict=False):
        url = BASE + request["path"]
        if "sse" in answer:
            body = answer["sse"].encode()
            mock.post(url, body=body, status=answer["status"], content_type="text/event-stream")
        else:
            mock.post(url, json=answer["json"], status=answer["status"])


def _multipart(content_type: str, body: bytes) -> list[dict[str, Any]]:
    boundary = content_type.split("boundary=", 1)[1].encode()
    parts = []
    for raw in body.split(b"--" + boundary)[1:-1]:
        head, _, value = raw.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        disposition = head.decode("utf-8")
        name = re.search(r' name="([^"]*)"', disposition)
        filename = re.search(r' filename="([^"]*)"', disposition)
        parts.append(
            {
                "name": name.group(1) if name else None,
                "filename": filename.group(1) if filename else None,
                "value": value.removesuffix(b"\r\n").decode("utf-8"),
            }
        )
    return parts


def test_every_mapped_scenario_exists() -> None:
    """Each scenario named here is a recorded fixture (a rename would skip tests silently)."""
    for name in CALLS:
        assert load_request_fixture(name)["requests"]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_appclient_sends_what_the_official_client_sent(
    name: str, mock: responses.RequestsMock, tmp_path: Path
) -> None:
    """Same path, and the same decoded JSON body or multipart parts, as the recording."""
    scenario = load_request_fixture(name)
    _play_recorded_answers(mock, scenario)
    client = AppClient(APP_ID, token="oracle-test-token", base_url=BASE, max_retries=0)
    CALLS[name](client, scenario, tmp_path)
    assert len(mock.calls) == len(scenario["requests"])
    for call, recorded in zip(mock.calls, scenario["requests"], strict=True):
        sent = call.request
        assert sent.path_url == recorded["path"]
        assert sent.method == recorded["method"]
        assert sent.headers["Authorization"] == dict(recorded["headers"])["Authorization"]
        if "multipart" in recorded:
            expected = [
                {key: part[key] for key in ("name", "filename", "value")}
                for part in recorded["multipart"]
            ]
            assert _multipart(sent.headers["Content-Type"], sent.body) == expected
        else:
            assert json.loads(sent.body) == recorded["json"]


@pytest.mark.parametrize("token", ["Bearer already-prefixed", "bce-v3/ALTAK-xxxx/yyyy"])
def test_token_variants_send_the_recorded_authorization(
    token: str, mock: responses.RequestsMock
) -> None:
    """Scenario 18: both token forms give the Authorization header the official client sent."""
    scenario = load_request_fixture("18_token_variants")
    recorded = {dict(r["headers"])["Authorization"] for r in scenario["requests"]}
    mock.post(f"{BASE}/v2/app/conversation", json={"conversation_id": "c"})
    AppClient(APP_ID, token=token, base_url=BASE).create_conversation()
    assert mock.calls[0].request.headers["Authorization"] in recorded


def test_recorded_results_match(mock: responses.RequestsMock, tmp_path: Path) -> None:
    """Played back, the recorded answers give the results the official client got."""
    results = {}
    for name in ("01_create_conversation", "12_upload_local_file", "13_upload_file_url"):
        scenario = load_request_fixture(name)
        _play_recorded_answers(mock, scenario)
        client = AppClient(APP_ID, token="oracle-test-token", base_url=BASE)
        results[name] = CALLS[name](client, scenario, tmp_path)
        mock.reset()
    assert (
        results["01_create_conversation"]
        == load_request_fixture("01_create_conversation")["sdk_result"]["conversation_id"]
    )
    assert (
        results["12_upload_local_file"]
        == load_request_fixture("12_upload_local_file")["sdk_result"]["file_id"]
    )
    assert (
        results["13_upload_file_url"]
        == load_request_fixture("13_upload_file_url")["sdk_result"]["file_id"]
    )


def test_recorded_interrupt_gives_the_seed_access_path(mock: responses.RequestsMock) -> None:
    """Scenario 02's answer gives msg.content.events[-1].tool_calls[-1] like the official SDK."""
    scenario = load_request_fixture("02_run_tools_raw_nonstream")
    _play_recorded_answers(mock, scenario)
    client = AppClient(APP_ID, token="oracle-test-token", base_url=BASE)
    message = CALLS["02_run_tools_raw_nonstream"](client, scenario, Path())
    official = scenario["sdk_result"]["message"]["content"]["events"][-1]["tool_calls"][-1]
    tool_call = message.content.events[-1].tool_calls[-1]
    assert tool_call.model_dump(exclude={"function": {"arguments_error"}}) == official
