"""``ScriptedModel``: an OpenAI-compatible chat model on a local port that answers from a script.

It serves ``POST /v1/chat/completions`` plain and streamed, with native tool calls streamed as
deltas the way OpenAI and vLLM send them.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from .._http._http_server import WSGIHTTPServer

_MAX_RECORDED = 1000
_MAX_REQUEST_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class ModelReply:
    """One answer of the scripted model.

    Attributes:
        text: The assistant's text (streamed ``chunk_chars`` characters per chunk).
        tool_calls: Native tool calls: ``(name, arguments)`` pairs; arguments are sent as a
            JSON string (or as given when a string: malformed JSON on purpose).
        usage: Token usage to report; made up from the lengths when ``None``.
        endless: Never end: stream text deltas (or, not streamed, a body) until the client
            hangs up.
        gate: When streaming, wait for this event after the first text chunk (a test holds
            the model mid-reply to see what already went out).
    """

    text: str = ""
    tool_calls: tuple[tuple[str, dict[str, Any] | str], ...] = ()
    usage: dict[str, int] | None = None
    endless: bool = False
    gate: threading.Event | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ModelError:
    """An HTTP error answer (``{"error": {"message", "type", "code"}}``)."""

    status: int = 500
    message: str = "scripted failure"


ModelStep: TypeAlias = "str | ModelReply | ModelError | Callable[[dict[str, Any]], Any]"


class ScriptedModel:
    """An OpenAI-compatible chat-completions server on 127.0.0.1 answering from a script.

    Args:
        steps: The replies, in order: text, a :class:`ModelReply`, a :class:`ModelError`, or a
            callable that gets the request body and returns one of those.
        model: The model name it reports.
        chunk_chars: Characters of text per streamed chunk.
        latency: Seconds it "thinks" before answering (its first token), for benchmarks.
        chunk_seconds: Seconds between two streamed chunks (a model generating tokens).
        port: The port; 0 picks a free one.
    """

    def __init__(
        self,
        steps: Iterable[ModelStep] = (),
        *,
        model: str = "scripted-model",
        chunk_chars: int = 4,
        latency: float = 0.0,
        chunk_seconds: float = 0.0,
        port: int = 0,
    ) -> None:
        self.model = model
        self.latency = latency
        self.chunk_seconds = chunk_seconds
        self.chunk_chars = max(1, chunk_chars)
        self._steps: deque[Any] = deque(steps)
        self._requests: deque[dict[str, Any]] = deque(maxlen=_MAX_RECORDED)
        self._lock = threading.Lock()
        self._port = port
        self._http: WSGIHTTPServer | None = None

    @property
    def url(self) -> str:
        """The base URL an OpenAI client takes (``http://127.0.0.1:<port>/v1``)."""
        return f"http://127.0.0.1:{self._port}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The request bodies received, oldest first (the last 1,000)."""
        with self._lock:
            return list(self._requests)

    def add(self, *steps: ModelStep) -> ScriptedModel:
        """Append steps to the script."""
        with self._lock:
            self._steps.extend(steps)
        return self

    def start(self) -> ScriptedModel:
        """Serve in a background thread; returns ``self``."""
        if self._http is None:
            self._http = WSGIHTTPServer(("127.0.0.1", self._port), self._app)
            self._port = self._http.server_port
            self._http.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the connections."""
        http, self._http = self._http, None
        if http is not None:
            http.stop()

    def __enter__(self) -> ScriptedModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _app(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if environ.get("REQUEST_METHOD") == "GET" and path.endswith("/models"):
            body = {"object": "list", "data": [{"id": self.model, "object": "model"}]}
            return _json(start_response, 200, body)
        if not path.endswith("/chat/completions"):
            return _fail(start_response, 404, f"no endpoint at {path}")
        length = int(environ.get("CONTENT_LENGTH") or 0)
        if length > _MAX_REQUEST_BYTES:
            return _fail(start_response, 413, "request too large")
        try:
            request = json.loads(environ["wsgi.input"].read(length) or b"{}")
        except ValueError:
            return _fail(start_response, 400, "body is not JSON")
        with self._lock:
            self._requests.append(request)
            step = self._steps.popleft() if self._steps else None
        if callable(step):
            step = step(request)
        if self.latency > 0:
            time.sleep(self.latency)  # a stand-in for a real model's thinking time
        if step is None:
            return _fail(start_response, 500, "the model's script is exhausted")
        if isinstance(step, ModelError):
            return _fail(start_response, step.status, step.message)
        reply = step if isinstance(step, ModelReply) else ModelReply(text=str(step))
        if request.get("stream"):
            start_response("200 OK", [("Content-Type", "text/event-stream")])
            return self._stream(reply, request)
        if reply.endless:  # a body that never ends
            start_response("200 OK", [("Content-Type", "application/json")])
            return _endless_body()
        return _json(start_response, 200, self._completion(reply))

    def _completion(self, reply: ModelReply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": f"call_{i}", "type": "function", "function": _function(name, args)}
                for i, (name, args) in enumerate(reply.tool_calls)
            ]
        finish = "tool_calls" if reply.tool_calls else "stop"
        choice = {"index": 0, "message": message, "finish_reason": finish}
        return {
            **self._envelope("chat.completion"),
            "choices": [choice],
            "usage": self._usage(reply),
        }

    def _envelope(self, kind: str) -> dict[str, Any]:
        return {
            "id": "chatcmpl-scripted",
            "object": kind,
            "created": int(time.time()),
            "model": self.model,
        }

    def _usage(self, reply: ModelReply) -> dict[str, int]:
        if reply.usage is not None:
            return reply.usage
        completion = max(1, len(reply.text) // 4)
        return {
            "prompt_tokens": 10,
            "completion_tokens": completion,
            "total_tokens": 10 + completion,
        }

    def _stream(self, reply: ModelReply, request: dict[str, Any]) -> Iterator[bytes]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            body = {**self._envelope("chat.completion.chunk"), "choices": [choice]}
            return f"data: {json.dumps(body, ensure_ascii=False)}\n\n".encode()

        yield chunk({"role": "assistant", "content": ""})
        if reply.endless:
            while True:
                yield chunk({"content": "more "})
        size = self.chunk_chars
        for start in range(0, len(reply.text), size):
            if start and self.chunk_seconds > 0:
                time.sleep(self.chunk_seconds)  # a stand-in for a model generating tokens
            if start and reply.gate is not None:
                reply.gate.wait(30)
            yield chunk({"content": reply.text[start : start + size]})
        for index, (name, args) in enumerate(reply.tool_calls):
            arguments = _function(name, args)["arguments"]
            head = {"index": index, "id": f"call_{index}", "type": "function"}
            yield chunk({"tool_calls": [{**head, "function": {"name": name, "arguments": ""}}]})
            for start in range(0, len(arguments), size):
                piece = {"index": index, "function": {"arguments": arguments[start : start + size]}}
                yield chunk({"tool_calls": [piece]})
        yield chunk({}, "tool_calls" if reply.tool_calls else "stop")
        if (request.get("stream_options") or {}).get("include_usage"):
            usage = self._usage(reply)
            body = {**self._envelope("chat.completion.chunk"), "choices": [], "usage": usage}
            yield f"data: {json.dumps(body)}\n\n".encode()
        yield b"data: [DONE]\n\n"


def _endless_body() -> Iterator[bytes]:
    yield b'{"id": "chatcmpl-scripted", "choices": [{"message": {"content": "'
    while True:
        yield b"more " * 1024


def _function(name: str, args: dict[str, Any] | str) -> dict[str, str]:
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return {"name": name, "arguments": text}


def _fail(start_response: Callable[..., Any], status: int, message: str) -> list[bytes]:
    error = {"message": message, "type": "scripted_error", "code": status}
    return _json(start_response, status, {"error": error})


def _json(start_response: Callable[..., Any], status: int, body: dict[str, Any]) -> list[bytes]:
    data = json.dumps(body, ensure_ascii=False).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 413: "Payload Too Large"}
    start_response(
        f"{status} {reason.get(status, 'Error')}",
        [("Content-Type", "application/json"), ("Content-Length", str(len(data)))],
    )
    return [data]
