"""What an endpoint answers: a finished HTTP response, and the error that becomes one.

Bodies are compact one-line JSON with non-ASCII kept and U+2028/U+2029 escaped.
"""

from __future__ import annotations

import itertools
import json
import os
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .._runs._json_template import json_text


def new_id() -> str:
    """Return a fresh random id (uuid4 text)."""
    return str(uuid.uuid4())


def encode_text(text: str) -> bytes:
    """Return JSON text as UTF-8, or ASCII escapes for a lone surrogate (the same value)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(json.loads(text), separators=(",", ":")).encode("ascii")


def encode_json(value: Any) -> bytes:
    """Return ``value`` as compact one-line JSON in UTF-8 (see :func:`json_text`)."""
    return encode_text(json_text(value))


_serial = itertools.count(1)
_serial_prefix = ""


def _choose_serial_prefix() -> None:
    global _serial_prefix
    _serial_prefix = new_id()[:24]


_choose_serial_prefix()
if hasattr(os, "register_at_fork"):
    # Forked workers (gunicorn --preload) share one store: each needs its own prefix, or
    # two workers would hand out the same message ids and run leases.
    os.register_at_fork(after_in_child=_choose_serial_prefix)


def serial_id() -> str:
    """Return a process-unique id in uuid form: distinct, not unguessable, cheaper than new_id.

    A random prefix per process and a counter (``next`` on it is atomic in CPython).
    """
    return f"{_serial_prefix}{next(_serial) & 0xFFFFFFFFFFFF:012x}"


@dataclass(frozen=True, slots=True)
class Response:
    """A finished response; ``chunks``: a stream's SSE messages (an iterator while live)."""

    status: int
    request_id: str
    body: bytes = b""
    chunks: tuple[bytes, ...] | Iterator[bytes] | None = None
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()


class HTTPProblem(Exception):  # noqa: N818 - a problem report (RFC 9457 wording), not a bug
    """A request that cannot be served: a ``code`` (``InvalidParameter``) and a ``message``.

    The message names the field and never holds a secret.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.headers = dict(headers or {})


def bad_parameter(field: str, problem: str) -> HTTPProblem:
    """Return the 400 ``InvalidParameter`` problem for one field."""
    return HTTPProblem(400, "InvalidParameter", f"{field}: {problem}")


def json_response(payload: dict[str, Any], *, request_id: str, status: int = 200) -> Response:
    """Return a one-line JSON response whose body carries ``request_id`` first."""
    body = encode_json({"request_id": request_id, **payload})
    return Response(status=status, request_id=request_id, body=body)


def text_response(text: str, *, request_id: str) -> Response:
    """Return a 200 response whose body is ``text``, JSON that already holds ``request_id``."""
    return Response(status=200, request_id=request_id, body=encode_text(text))


def error_response(problem: HTTPProblem, *, request_id: str) -> Response:
    """Return the JSON error response ``{"request_id", "code", "message"}`` for a problem."""
    body = encode_json({"request_id": request_id, "code": problem.code, "message": problem.message})
    return Response(
        status=problem.status,
        request_id=request_id,
        body=body,
        headers=tuple(problem.headers.items()),
    )


def sse_response(messages: Iterable[str], *, request_id: str) -> Response:
    r"""Return an SSE response, each message ``data: <json>\n\n`` (an iterator: as they come)."""
    framed = (b"data: " + encode_text(message) + b"\n\n" for message in messages)
    chunks = framed if isinstance(messages, Iterator) else tuple(framed)
    return Response(
        status=200, request_id=request_id, chunks=chunks, content_type="text/event-stream"
    )
