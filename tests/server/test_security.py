"""Security over real sockets: 401 without a valid token, tenants isolated, limits, loopback."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import requests

from appclient.testing import ReferenceServer
from tests.server.helpers import WEATHER_TOOL, WeatherAgent

RUNS = "/v2/app/conversation/runs"


@pytest.fixture
def server() -> Iterator[ReferenceServer]:
    with ReferenceServer(
        WeatherAgent(), components=(), token="owner-token", extra_tokens=["intruder-token"]
    ) as running:
        yield running


def _post(server: ReferenceServer, path: str, token: str | None, **kwargs) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return requests.post(f"{server.url}{path}", headers=headers, timeout=10, **kwargs)


def _conversation(server: ReferenceServer) -> str:
    reply = _post(server, "/v2/app/conversation", "owner-token", json={"app_id": server.app_id})
    conversation_id: str = reply.json()["conversation_id"]
    return conversation_id


@pytest.mark.parametrize("token", [None, "wrong-token", ""])
@pytest.mark.parametrize(
    "path",
    [
        "/v2/app/conversation",
        RUNS,
        "/v2/app/conversation/file/upload",
        "/v2/app/conversation/feedback",
    ],
)
def test_missing_or_wrong_token_is_401(
    server: ReferenceServer, path: str, token: str | None
) -> None:
    """Every endpoint refuses a request without a valid token."""
    reply = _post(server, path, token, json={"app_id": server.app_id})
    assert reply.status_code == 401
    assert reply.headers["X-Appbuilder-Request-Id"] == reply.json()["request_id"]


def test_foreign_conversation_is_404_everywhere(server: ReferenceServer) -> None:
    """Another tenant can neither run, upload to, nor give feedback on a conversation."""
    cid = _conversation(server)
    body = {"app_id": server.app_id, "conversation_id": cid, "query": "hi", "tools": [WEATHER_TOOL]}
    assert _post(server, RUNS, "intruder-token", json=body).status_code == 404
    upload = _post(
        server,
        "/v2/app/conversation/file/upload",
        "intruder-token",
        files={
            "app_id": (None, server.app_id),
            "conversation_id": (None, cid),
            "file": ("a.txt", b"x"),
        },
    )
    assert upload.status_code == 404
    feedback = {
        "app_id": server.app_id,
        "conversation_id": cid,
        "message_id": "m",
        "type": "upvote",
    }
    reply = _post(server, "/v2/app/conversation/feedback", "intruder-token", json=feedback)
    assert reply.status_code == 404
    assert _post(server, RUNS, "owner-token", json=body).status_code == 200


def test_foreign_pending_calls_cannot_be_answered(server: ReferenceServer) -> None:
    """Tool outputs for another tenant's pending call are refused with 404."""
    cid = _conversation(server)
    body = {
        "app_id": server.app_id,
        "conversation_id": cid,
        "query": "北京",
        "tools": [WEATHER_TOOL],
    }
    call_id = _post(server, RUNS, "owner-token", json=body).json()["content"][-1]["tool_calls"][0][
        "id"
    ]
    outputs = {
        "app_id": server.app_id,
        "conversation_id": cid,
        "tool_outputs": [{"tool_call_id": call_id, "output": "x"}],
    }
    assert _post(server, RUNS, "intruder-token", json=outputs).status_code == 404
    assert _post(server, RUNS, "owner-token", json=outputs).status_code == 200


def test_oversize_body_is_413(server: ReferenceServer) -> None:
    """A body over the server's limit is refused with 413 over the socket."""
    reply = _post(server, RUNS, "owner-token", data=b"{" + b" " * (11 * 1024 * 1024) + b"}")
    assert reply.status_code == 413
    assert reply.json()["code"] == "PayloadTooLarge"


def test_default_bind_is_loopback() -> None:
    """Without a host, the listening socket is bound to 127.0.0.1."""
    with ReferenceServer(WeatherAgent(), components=()) as running:
        http = running._http
        assert http is not None
        assert http.socket.getsockname()[0] == "127.0.0.1"


def test_tokens_never_reach_logs_or_bodies(
    server: ReferenceServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A whole session at DEBUG logs no token, and no body echoes one."""
    with caplog.at_level(logging.DEBUG):
        cid = _conversation(server)
        bodies = [
            _post(
                server,
                RUNS,
                "owner-token",
                json={"app_id": server.app_id, "conversation_id": cid, "query": "hi"},
            ).text,
            _post(server, RUNS, "wrong-token", json={}).text,
            _post(server, RUNS, "owner-token", data=b"{").text,
        ]
    for secret in ("owner-token", "intruder-token"):
        assert secret not in caplog.text
        assert all(secret not in body for body in bodies)
