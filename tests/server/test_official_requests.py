"""Table test: every request the official client was recorded sending is accepted.

Each scenario in ``fixtures/official-sdk/requests`` is replayed over a real socket with its
recorded method, path, headers and body bytes (multipart bodies are rebuilt byte for byte
from the recorded parts, and checked against the recorded length). Ids that only exist on
the recording server (conversation, tool call, file and message ids) are mapped to live
ones: from the live answers to earlier requests of the same scenario, or from a short setup
made before the replay. The live status must equal the recorded one.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from appclient.testing import ReferenceServer
from tests.conftest import REQUEST_FIXTURES
from tests.server.helpers import WEATHER_TOOL

SCENARIOS = sorted(path.stem for path in REQUEST_FIXTURES.glob("*.json"))
TOKENS = ["oracle-test-token", "already-prefixed", "bce-v3/ALTAK-xxxx/yyyy", "kw-token"]
APP = "oracle-app-id"
SKIPPED_HEADERS = {"host", "content-length"}


@pytest.fixture(scope="module")
def server() -> Iterator[ReferenceServer]:
    with ReferenceServer(token=TOKENS[0], extra_tokens=TOKENS[1:], app_id=APP) as running:
        yield running


def _send(server: ReferenceServer, method: str, path: str, headers: list, body: bytes) -> tuple:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", f"127.0.0.1:{server.port}")
        for name, value in headers:
            if name.lower() not in SKIPPED_HEADERS:
                conn.putheader(name, value.encode("utf-8"))
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def _multipart_body(request: dict[str, Any]) -> bytes:
    content_type = dict(request["headers"])["Content-Type"]
    boundary = content_type.split("boundary=", 1)[1]
    body = b""
    for part in request["multipart"]:
        body += f"--{boundary}\r\n".encode()
        for name, value in part["headers"].items():
            body += f"{name}: {value}\r\n".encode()
        body += b"\r\n" + part["value"].encode() + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    assert len(body) == request["body_len"], "the rebuilt multipart body differs from the record"
    return body


def _pair_ids(recorded: Any, live: Any, ids: dict[str, str]) -> None:
    """Map every id in a recorded answer to the id at the same place in the live answer."""
    if isinstance(recorded, dict) and isinstance(live, dict):
        for key, value in recorded.items():
            if key in ("conversation_id", "message_id", "id") and isinstance(value, str):
                if isinstance(live.get(key), str):
                    ids.setdefault(value, live[key])
            elif key in live:
                _pair_ids(value, live[key], ids)
    elif isinstance(recorded, list) and isinstance(live, list):
        if recorded and live and isinstance(recorded[-1], dict) and "tool_calls" in recorded[-1]:
            _pair_ids(recorded[-1], live[-1], ids)
        for old, new in zip(recorded, live, strict=False):
            _pair_ids(old, new, ids)


def _decode(headers: dict[str, str], body: bytes) -> Any:
    if headers.get("Content-Type", "").startswith("text/event-stream"):
        frames = [f for f in body.split(b"\n\n") if f]
        return [json.loads(frame.removeprefix(b"data: ")) for frame in frames]
    return json.loads(body)


def _recorded_answer(response: dict[str, Any]) -> Any:
    if "json" in response:
        return response["json"]
    frames = [f for f in response["sse"].split("\n\n") if f]
    return [json.loads(frame.removeprefix("data: ")) for frame in frames]


def _post_json(server: ReferenceServer, path: str, body: dict) -> Any:
    headers = [["Authorization", f"Bearer {TOKENS[0]}"], ["Content-Type", "application/json"]]
    status, response_headers, raw = _send(server, "POST", path, headers, json.dumps(body).encode())
    assert status == 200, raw
    return _decode(response_headers, raw)


def _setup(server: ReferenceServer, scenario: dict[str, Any], ids: dict[str, str]) -> None:
    """Create on the live server what the scenario's bodies refer to but do not create."""
    first = scenario["requests"][0]
    if first["path"].endswith("/conversation") and "json" in first:
        return  # the scenario creates its own conversation
    cid = _post_json(server, "/v2/app/conversation", {"app_id": APP})["conversation_id"]
    body = first.get("json") or {}
    ids["480a53a4-74a3-4c77-bb5a-a4ba2e490abf"] = cid
    for output in body.get("tool_outputs") or []:
        run = {
            "app_id": APP,
            "conversation_id": cid,
            "query": "今天北京天气怎么样？",
            "tools": [WEATHER_TOOL],
        }
        call = _post_json(server, "/v2/app/conversation/runs", run)["content"][-1]["tool_calls"][0]
        ids[output["tool_call_id"]] = call["id"]
    for file_id in body.get("file_ids") or []:
        fields = {"app_id": APP, "conversation_id": cid}
        parts = [
            f'--x\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
            for name, value in fields.items()
        ]
        parts.append('--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n')
        upload = ("".join(parts) + "\r\nhi\r\n--x--\r\n").encode()
        status, _, raw = _send(
            server,
            "POST",
            "/v2/app/conversation/file/upload",
            [
                ["Authorization", f"Bearer {TOKENS[0]}"],
                ["Content-Type", "multipart/form-data; boundary=x"],
            ],
            upload,
        )
        assert status == 200, raw
        ids[file_id] = json.loads(raw)["id"]
    if "message_id" in body:
        run = {"app_id": APP, "conversation_id": cid, "query": "你好"}
        ids[body["message_id"]] = _post_json(server, "/v2/app/conversation/runs", run)["message_id"]


def _substitute(text: str, ids: dict[str, str]) -> str:
    for old, new in ids.items():
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize("name", SCENARIOS)
def test_recorded_request_is_accepted(server: ReferenceServer, name: str) -> None:
    """The scenario's requests, replayed as recorded, get the recorded statuses."""
    scenario = json.loads((REQUEST_FIXTURES / f"{name}.json").read_text("utf-8"))
    ids: dict[str, str] = {}
    _setup(server, scenario, ids)
    responses = {response["seq"]: response for response in scenario["responses"]}
    for request in scenario["requests"]:
        if "multipart" in request:
            body = _substitute(_multipart_body(request).decode("utf-8"), ids).encode("utf-8")
        else:
            body = _substitute(request["body_raw"], ids).encode("utf-8")
        status, headers, raw = _send(
            server, request["method"], request["raw_path"], request["headers"], body
        )
        # A request recorded without its answer (the feedback call) must succeed.
        recorded = responses.get(request["seq"], {"status": 200, "json": {"request_id": ""}})
        assert status == recorded["status"], raw
        live = _decode(headers, raw)
        first = live[0] if isinstance(live, list) else live
        assert headers["X-Appbuilder-Request-Id"] == first["request_id"]
        if status == 200:
            answer = _recorded_answer(recorded)
            expected_keys = set(answer[0] if isinstance(answer, list) else answer)
            assert expected_keys <= set(first)
            _pair_ids(answer, live, ids)


def test_every_scenario_is_covered() -> None:
    """The table has every recorded scenario (none silently skipped)."""
    assert len(SCENARIOS) == len(list(Path(REQUEST_FIXTURES).glob("*.json"))) >= 21
