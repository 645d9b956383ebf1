"""Helpers for the server tests: call the WSGI app without sockets, and tiny agents."""

from __future__ import annotations

import io
import json
import os
import threading
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest

from appclient.server import Decision, PlannedCall, create_app
from appclient.server._agents._agent_api import AgentInput, ComponentInfo
from appclient.server._http._wsgi import ReferenceApp
from tests.seed import SEED_WEATHER_TOOL, official_run_body

_T = TypeVar("_T")


def forks(test: _T) -> _T:
    """Mark a test that forks on purpose, as a preforking server (gunicorn --preload) does.

    The suite's process has threads by then (other tests' servers winding down, idle tool
    workers), and Python 3.12+ warns about forking one; the child only checks its own state
    and exits, so the warning is expected there.
    """
    quiet = pytest.mark.filterwarnings("ignore:This process .* is multi-threaded")
    return pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")(quiet(test))


TOKEN = "test-token"
OTHER_TOKEN = "other-token"
APP_ID = "test-app"

WEATHER_TOOL = SEED_WEATHER_TOOL


@dataclass
class Reply:
    """What the WSGI app answered."""

    status: int
    headers: dict[str, str]
    body: bytes
    chunks: list[bytes] = field(default_factory=list)

    def json(self) -> Any:
        """The body, decoded."""
        return json.loads(self.body)

    def messages(self) -> list[dict[str, Any]]:
        """The SSE messages of a stream reply, decoded."""
        out = []
        for chunk in self.chunks:
            assert chunk.startswith(b"data: ")
            assert chunk.endswith(b"\n\n")
            out.append(json.loads(chunk[len(b"data: ") : -2]))
        return out


def call_app(
    app: ReferenceApp,
    path: str,
    body: bytes | dict[str, Any] | None = None,
    *,
    token: str | None = TOKEN,
    method: str = "POST",
    headers: dict[str, str] | None = None,
    content_type: str = "application/json",
    query: str = "",
) -> Reply:
    """Send one request to the WSGI app directly and collect the reply."""
    raw = json.dumps(body).encode() if isinstance(body, dict) else (body or b"")
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "CONTENT_TYPE": content_type,
        "CONTENT_LENGTH": str(len(raw)),
        "QUERY_STRING": query,
        "wsgi.input": io.BytesIO(raw),
    }
    if token is not None:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    for name, value in (headers or {}).items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    captured: dict[str, Any] = {}

    def start_response(status: str, response_headers: list[tuple[str, str]]) -> None:
        captured["status"] = int(status.split()[0])
        captured["headers"] = dict(response_headers)

    chunks = list(app(environ, start_response))
    return Reply(captured["status"], captured["headers"], b"".join(chunks), chunks)


def make_app(agent: Any = None, **options: Any) -> ReferenceApp:
    """Build an app with the test token(s), app id, and no cloud components unless given."""
    options.setdefault("tokens", [TOKEN, OTHER_TOKEN])
    options.setdefault("app_ids", APP_ID)
    options.setdefault("components", ())
    return create_app(agent=agent if agent is not None else WeatherAgent(), **options)


def new_conversation(app: ReferenceApp, *, token: str = TOKEN) -> str:
    reply = call_app(app, "/v2/app/conversation", {"app_id": APP_ID}, token=token)
    assert reply.status == 200, reply.body
    conversation_id: str = reply.json()["conversation_id"]
    return conversation_id


def run_body(conversation_id: str, **fields: Any) -> dict[str, Any]:
    """A run body with the 13 keys the official Python client sends, for the test app."""
    return official_run_body(conversation_id, app_id=APP_ID, **fields)


class WeatherAgent:
    """Calls the first local tool with Beijing arguments, then answers from the outputs."""

    def decide(self, agent_input: AgentInput) -> Decision:
        """Call the first tool, or answer from its output."""
        if agent_input.results:
            outputs = "；".join(result.output for result in agent_input.results)
            return Decision.reply(f"根据工具结果：{outputs}")
        if agent_input.tools:
            name = agent_input.tools[0].function.name  # type: ignore[union-attr]
            return Decision.call(PlannedCall(name, {"location": "北京", "unit": "celsius"}))
        return Decision.reply(f"你好：{agent_input.query}")


class ListAgent:
    """Returns the given decisions one by one (thread-safe), then fails."""

    def __init__(self, steps: list[Decision]) -> None:
        self._steps = list(steps)
        self._lock = threading.Lock()
        self.inputs: list[AgentInput] = []

    def decide(self, agent_input: AgentInput) -> Decision:
        """Return the next scripted decision."""
        with self._lock:
            self.inputs.append(agent_input)
            if not self._steps:
                raise RuntimeError("ListAgent has no more steps")
            return self._steps.pop(0)


class EchoComponent:
    """A cloud component that answers with its arguments (or raises when asked to)."""

    def __init__(self, name: str = "Echo", *, fail: bool = False) -> None:
        self.info = ComponentInfo(
            name=name,
            description="Echo the text back",
            parameters={
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
        )
        self._fail = fail
        self.calls: list[dict[str, Any]] = []

    def run(self, arguments: dict[str, Any]) -> str:
        """Echo the text argument."""
        self.calls.append(arguments)
        if self._fail:
            raise RuntimeError("echo is broken")
        return f"echo:{arguments.get('text', '')}"


def upload_form(cid: str) -> tuple[bytes, str]:
    """A multipart upload of one small file to conversation ``cid``: (body, content type)."""
    boundary = "b0undary"
    body = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in (("app_id", APP_ID), ("conversation_id", cid))
    )
    body += (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n'
        f"x\r\n--{boundary}--\r\n"
    ).encode()
    return body, f"multipart/form-data; boundary={boundary}"
