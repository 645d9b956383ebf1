"""The protocol as a WSGI application: routing, auth, body limits, errors, response headers.

It keeps no state between requests (all goes through the store), so worker processes over
one SQLite store behave as one server::

    gunicorn -w 4 'appclient.server:create_app(tokens=["my-token"], db_path="state.db")'
"""

from __future__ import annotations

import itertools
import logging
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from http import HTTPStatus
from pathlib import Path
from typing import Any

from ..._core._constants import (
    HEADER_REQUEST_ID,
    PATH_APP,
    PATH_APPS,
    PATH_CONVERSATION,
    PATH_FEEDBACK,
    PATH_FILE_UPLOAD,
    PATH_RUNS,
)
from .._agents._agent_api import Agent
from .._agents._components import default_components
from .._agents._rule_agent import RuleAgent
from .._runs._run_engine import Component, RunEngine
from .._settings import (
    DEFAULT_ANSWER_DELTA_CHARS,
    DEFAULT_MAX_AGENT_STEPS,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_UPLOAD_BYTES,
    DEFAULT_RUN_LEASE_SECONDS,
)
from .._state._idempotency import check_key
from .._state._sqlite_store import SQLiteStore
from .._state._store import MemoryStore, QuotaExceededError, Store, StoreBusyError
from ._auth import TokenAuthority, generate_token
from ._endpoints import Endpoints, RequestContext
from ._faults import FaultInjector
from ._inspector import Inspector
from ._inspector import serves as serves_inspector
from ._responses import HTTPProblem, Response, error_response, serial_id
from ._uploads import UploadStorage

_log = logging.getLogger("appclient.server")

StartResponse = Callable[..., Any]


# A base URL ending in "/" makes the official SDKs send "//v2/..."; routes ignore repeats.
_REPEATED_SLASHES = re.compile(r"//+")

# Room an upload's form takes besides the file (boundaries, part headers, the other fields).
_FORM_OVERHEAD_BYTES = 64 * 1024

_STATUS_LINES = {status.value: f"{status.value} {status.phrase}" for status in HTTPStatus}


def _status_line(status: int) -> str:
    return _STATUS_LINES.get(status) or f"{status} Error"


def _too_large(limit: int) -> HTTPProblem:
    return HTTPProblem(413, "PayloadTooLarge", f"body: over the limit of {limit} bytes")


def _problem(exc: Exception, request_id: str) -> HTTPProblem:
    """The HTTP answer to an exception raised while serving a request."""
    if isinstance(exc, HTTPProblem):
        return exc
    if isinstance(exc, QuotaExceededError):
        retry = {"Retry-After": str(exc.retry_after)}
        return HTTPProblem(429, "QuotaExceeded", str(exc), headers=retry)
    if isinstance(exc, StoreBusyError):
        _log.warning("request %s: %s", request_id, exc)
        return HTTPProblem(503, "ServiceUnavailable", str(exc), headers={"Retry-After": "1"})
    _log.error("request %s: unexpected error", request_id, exc_info=exc)
    message = f"unexpected server error; see the server log (request_id={request_id})"
    return HTTPProblem(500, "InternalError", message)


class ReferenceApp:
    """The WSGI application of the reference server (build it with :func:`create_app`).

    Attributes:
        tokens: The accepted tokens (handle with care: they are secrets).
        store: The server's state.
        faults: Fault injection shared with tests.
        endpoints: The protocol's endpoint handlers.
    """

    def __init__(
        self,
        *,
        tokens: Sequence[str],
        endpoints: Endpoints,
        faults: FaultInjector,
        max_body_bytes: int,
        on_close: Sequence[Callable[[], None]],
    ) -> None:
        self.tokens = tuple(tokens)
        self._authority = TokenAuthority(self.tokens)
        self.endpoints = endpoints
        self.store = endpoints.store
        self.faults = faults
        self.max_body_bytes = max_body_bytes
        self._on_close = tuple(on_close)
        self._inspector = Inspector(endpoints=endpoints, owner=self._owner)
        self._routes: dict[str, Callable[[RequestContext], Response]] = {
            PATH_CONVERSATION: endpoints.create_conversation,
            PATH_RUNS: endpoints.run,
            PATH_FILE_UPLOAD: endpoints.upload,
            PATH_FEEDBACK: endpoints.feedback,
            PATH_APPS: endpoints.apps,
            PATH_APP: endpoints.app_action,
        }

    def __repr__(self) -> str:
        return f"ReferenceApp(store={self.store!r}, tokens=<{len(self.tokens)} hidden>)"

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        response = self.handle(environ, request_id=serial_id())
        headers = [
            ("Content-Type", f"{response.content_type}; charset=utf-8"),
            (HEADER_REQUEST_ID, response.request_id),
            *response.headers,
        ]
        if response.chunks is not None:
            headers.append(("Cache-Control", "no-cache"))
            chunks: Iterable[bytes] = response.chunks
            limit = self.faults.stream_limit()
            if limit is not None:
                chunks = itertools.islice(chunks, limit)
            start_response(_status_line(response.status), headers)
            # A live run's iterator is handed on, so each message is written as it comes.
            return chunks if isinstance(chunks, Iterator) else list(chunks)
        headers.append(("Content-Length", str(len(response.body))))
        start_response(_status_line(response.status), headers)
        return [response.body]

    def handle(self, environ: dict[str, Any], *, request_id: str) -> Response:
        """Serve one request and return the finished response (never raises)."""
        try:
            return self._serve(environ, request_id)
        except Exception as exc:
            # Answered inside the except: an exception kept past it would hold this frame, and
            # with it the request's body, in a reference cycle until the next garbage collection.
            return error_response(_problem(exc, request_id), request_id=request_id)

    def _serve(self, environ: dict[str, Any], request_id: str) -> Response:
        injected = self.faults.before_request()
        if injected is not None:
            return error_response(injected, request_id=request_id)
        path = environ.get("PATH_INFO") or "/"
        route = self._routes.get(path)
        if route is None and "//" in path:
            path = _REPEATED_SLASHES.sub("/", path)
            route = self._routes.get(path)
        if route is None:
            if serves_inspector(path):  # the run inspector's page and JSON, off the hot path
                return self._inspector.handle(environ, request_id=request_id)
            raise HTTPProblem(404, "NotFound", f"no endpoint at {path[:200]}")
        method = environ.get("REQUEST_METHOD", "")
        allowed = "GET" if path == PATH_APPS else "POST"
        if method != allowed:
            raise HTTPProblem(
                405,
                "MethodNotAllowed",
                f"{method[:20]} {path}: use {allowed}",
                headers={"Allow": allowed},
            )
        owner = self._owner(environ)
        key = check_key(environ.get("HTTP_IDEMPOTENCY_KEY"))
        # An upload is bounded by the upload limit instead, so a huge file is refused unread.
        limit = self.max_body_bytes
        if path == PATH_FILE_UPLOAD:
            limit = self.endpoints.uploads.max_bytes + _FORM_OVERHEAD_BYTES
        try:
            body = self._read_body(environ, limit)
        except OSError:  # a timeout or a reset: the client stopped sending its body
            raise HTTPProblem(
                408, "RequestTimeout", "body: the client stopped sending before it all arrived"
            ) from None
        context = RequestContext(
            request_id=request_id,
            owner=owner,
            path=path,
            body=body,
            content_type=environ.get("CONTENT_TYPE") or "",
            idempotency_key=key,
            query=environ.get("QUERY_STRING") or "",
        )
        return route(context)

    def _owner(self, environ: dict[str, Any]) -> str:
        owner = self._authority.authenticate(environ.get("HTTP_AUTHORIZATION"))
        if owner is None:
            raise HTTPProblem(
                401, "Unauthorized", "Authorization: a valid 'Bearer <token>' header is required"
            )
        return owner

    def _read_body(self, environ: dict[str, Any], limit: int) -> bytes:
        stream = environ.get("wsgi.input")
        length_text = (environ.get("CONTENT_LENGTH") or "").strip()
        if length_text:
            if not (length_text.isascii() and length_text.isdigit()):  # not "٣١" either
                raise HTTPProblem(400, "InvalidParameter", "Content-Length: not a number")
            length = int(length_text)
            if length > limit:
                raise _too_large(limit)
            body: bytes = stream.read(length) if stream is not None and length else b""
            if len(body) < length:
                raise HTTPProblem(400, "InvalidParameter", "body: shorter than Content-Length")
            return body
        if stream is not None and environ.get("wsgi.input_terminated"):
            body = stream.read(limit + 1)
            if len(body) > limit:
                raise _too_large(limit)
            return body
        return b""

    def close(self) -> None:
        """Wake held requests and release what the app created (store, upload directory)."""
        self.faults.release()
        for close in self._on_close:
            close()


def create_app(
    *,
    tokens: str | Iterable[str] | None = None,
    app_ids: str | Iterable[str] | None = None,
    any_app_id: bool = False,
    agent: Agent | None = None,
    components: Sequence[Component] | None = None,
    store: Store | None = None,
    db_path: str | Path | None = None,
    data_dir: str | Path | None = None,
    faults: FaultInjector | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES,
    max_agent_steps: int = DEFAULT_MAX_AGENT_STEPS,
    lease_seconds: float = DEFAULT_RUN_LEASE_SECONDS,
    max_delta_chars: int = DEFAULT_ANSWER_DELTA_CHARS,
    clock: Callable[[], float] = time.time,
) -> ReferenceApp:
    """Build the reference server's WSGI application.

    Args:
        tokens: Accepted bearer tokens; one is generated (see ``app.tokens``) when ``None``.
        app_ids: The app ids served, and listed by the app API; any app id when ``None``.
        any_app_id: Serve every app id while listing ``app_ids`` (an account with those apps).
        agent: Plans the runs; the rule-based agent when ``None``.
        components: Cloud components run inside runs; the built-in ones when ``None``.
        store: Where state lives; otherwise a SQLite store at ``db_path``, or memory.
        db_path: A SQLite file for the state (ignored when ``store`` is given).
        data_dir: Where uploads go; ``<db_path>.files`` or a temporary directory when ``None``.
        faults: Fault injection to share with tests; a fresh one when ``None``.
        max_body_bytes: Largest request body but an upload's (HTTP 413 above it).
        max_upload_bytes: Largest uploaded file (HTTP 413 above it).
        max_agent_steps: Agent decisions allowed in one run.
        lease_seconds: How long a run may hold its conversation.
        max_delta_chars: The largest streamed answer delta.
        clock: Returns the current time in seconds.

    Returns:
        The WSGI application; call ``close()`` on it when done.

    Raises:
        TypeError: ``agent`` has no ``decide`` method.
    """
    if agent is not None and not isinstance(agent, Agent):  # not a 500 on the first run
        raise TypeError(
            f"agent must have a decide(agent_input) method returning a Decision, not a "
            f"{type(agent).__name__}; for a list of steps use ScriptedAgent([...])"
        )
    token_list = [tokens] if isinstance(tokens, str) else list(tokens or ())
    if isinstance(app_ids, str):
        app_ids = [app_ids]
    on_close: list[Callable[[], None]] = []
    if store is None:
        # Opened before the upload folder is made, so a db_path in a missing folder fails
        # (the folder is not made for it); `uploads` exists by the time a file is forgotten.
        store = (
            SQLiteStore(db_path)
            if db_path is not None
            else MemoryStore(on_file_forgotten=lambda record: uploads.remove(record.stored_as))
        )
        on_close.append(store.close)
    if data_dir is None and db_path is not None:
        data_dir = Path(f"{db_path}.files")
    uploads = UploadStorage(data_dir, max_bytes=max_upload_bytes)
    on_close.append(uploads.close)
    component_list = tuple(default_components() if components is None else components)
    engine = RunEngine(
        agent=agent if agent is not None else RuleAgent(components=component_list),
        components=component_list,
        max_steps=max_agent_steps,
    )
    endpoints = Endpoints(
        store=store,
        engine=engine,
        uploads=uploads,
        app_ids=None if app_ids is None else frozenset(app_ids),
        any_app_id=any_app_id,
        lease_seconds=lease_seconds,
        max_delta_chars=max_delta_chars,
        clock=clock,
    )
    return ReferenceApp(
        tokens=token_list or [generate_token()],
        endpoints=endpoints,
        faults=faults if faults is not None else FaultInjector(),
        max_body_bytes=max_body_bytes,
        on_close=on_close,
    )
