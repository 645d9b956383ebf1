"""``ReferenceServer``: the reference agent server on a local port, as a context manager.

The embedded server of tests, examples and the README::

    with ReferenceServer() as server:
        client = AppClient(server.app_id, token=server.token, base_url=server.url)
"""

from __future__ import annotations

import atexit
import functools
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType

from ..._core._constants import DEFAULT_SERVER_HOST
from ..._core._errors import InvalidRequestError
from .._agents._agent_api import Agent
from .._agents._model_agent import ModelAgent
from .._runs._run_engine import Component
from .._settings import (
    DEFAULT_APP_ID,
    DEFAULT_KEEPALIVE_TIMEOUT,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_UPLOAD_BYTES,
    DEFAULT_RUN_LEASE_SECONDS,
    DEFAULT_SHUTDOWN_GRACE_SECONDS,
)
from .._state._store import Store
from ._auth import generate_token
from ._faults import FaultInjector
from ._http_server import WSGIHTTPServer
from ._wsgi import ReferenceApp, create_app


class ReferenceServer:
    """Runs the reference agent server in a background thread.

    Args:
        agent: Plans the runs; the rule-based agent when ``None``.
        store: Where state lives; a SQLite store at ``db_path``, or memory, when ``None``.
        db_path: A SQLite file, so state survives a restart.
        host: The interface to bind; 127.0.0.1 by default (never exposed by accident).
        port: The port; 0 picks a free one (read it back from ``port``/``url``).
        token: The accepted bearer token; a random one when ``None``.
        app_id: The app id served, or a list (the attribute: the first); ``None``: any.
        any_app_id: Serve every app id, listing the ``app_id`` ones in the app API.
        extra_tokens: More accepted tokens (other tenants).
        components: Cloud components; the built-in ones when ``None``.
        data_dir: Where uploads go; ``<db_path>.files`` or a temporary directory when ``None``.
        faults: Fault injection; a fresh :class:`FaultInjector` when ``None``.
        max_body_bytes: Largest request body (413 above it); uploads: max_upload_bytes.
        max_upload_bytes: Largest uploaded file (413 above it).
        keepalive_timeout: Seconds an idle connection stays open.
        shutdown_grace: Seconds :meth:`stop` waits for requests in flight to finish.
        lease_seconds: How long a run may hold its conversation: a run cut off by a crash
            keeps it (and its ``Idempotency-Key``) busy this long (HTTP 409).
        clock: Returns the current time in seconds (leases, reservations, timestamps).
        model_url: Plan with the model behind this OpenAI-compatible base URL instead
            (needs the ``model`` extra, and no ``agent``).
        model: The model name to ask for (with ``model_url``).
        tool_format: ``"native"`` or a text format (see :mod:`appclient.formats`).
        strategy: ``"fc"``, ``"react"``, ``"plan_and_solve"`` or ``"rewoo"``.
        model_api_key_env: The environment variable holding the model's key (optional).
    """

    def __init__(
        self,
        agent: Agent | None = None,
        *,
        store: Store | None = None,
        db_path: str | Path | None = None,
        host: str = DEFAULT_SERVER_HOST,
        port: int = 0,
        token: str | None = None,
        app_id: str | Sequence[str] | None = DEFAULT_APP_ID,
        any_app_id: bool = False,
        extra_tokens: Sequence[str] = (),
        components: Sequence[Component] | None = None,
        data_dir: str | Path | None = None,
        faults: FaultInjector | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES,
        keepalive_timeout: float = DEFAULT_KEEPALIVE_TIMEOUT,
        shutdown_grace: float = DEFAULT_SHUTDOWN_GRACE_SECONDS,
        lease_seconds: float = DEFAULT_RUN_LEASE_SECONDS,
        clock: Callable[[], float] = time.time,
        model_url: str | None = None,
        model: str | None = None,
        tool_format: str = "native",
        strategy: str = "fc",
        model_api_key_env: str = "OPENAI_API_KEY",
    ) -> None:
        if model_url is not None:
            if agent is not None:
                raise InvalidRequestError("give an agent or a model_url, not both")
            agent = ModelAgent(
                base_url=model_url,
                model=model or "default",
                tool_format=tool_format,
                strategy=strategy,
                api_key_env=model_api_key_env,
            )
        self.token = token if token is not None else generate_token()
        served = (app_id,) if isinstance(app_id, str) else app_id
        if served is not None and not served:
            raise InvalidRequestError("app_id: give at least one app id, or None for any")
        #: The app id clients should use: the first one served (any is served when ``None``).
        self.app_id = served[0] if served else DEFAULT_APP_ID
        self.host = host
        self.port = port
        self.faults = faults if faults is not None else FaultInjector()
        self._app_ids = tuple(served) if served is not None else None
        self._keepalive_timeout = keepalive_timeout
        self._shutdown_grace = shutdown_grace
        self._extra_tokens = tuple(extra_tokens)
        # token and faults are public attributes, read when the server starts.
        self._create_app = functools.partial(
            create_app,
            app_ids=self._app_ids,
            any_app_id=any_app_id,
            agent=agent,
            components=components,
            store=store,
            db_path=db_path,
            data_dir=data_dir,
            max_body_bytes=max_body_bytes,
            max_upload_bytes=max_upload_bytes,
            lease_seconds=lease_seconds,
            clock=clock,
        )
        self._app: ReferenceApp | None = None
        self._http: WSGIHTTPServer | None = None

    def __repr__(self) -> str:
        state = "running" if self._http is not None else "stopped"
        return f"ReferenceServer(url={self.url!r}, app_id={self.app_id!r}, {state})"

    @property
    def app_ids(self) -> tuple[str, ...]:
        """The app ids served (empty when any app id is served)."""
        return self._app_ids or ()

    @property
    def url(self) -> str:
        """The base URL, e.g. ``http://127.0.0.1:50123`` (use as ``GATEWAY_URL_V2``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def app(self) -> ReferenceApp:
        """The WSGI application being served (available once started)."""
        if self._app is None:
            raise RuntimeError("the server is not running; use start() or a with block")
        return self._app

    @property
    def store(self) -> Store:
        """The server's state (available once started)."""
        return self.app.store

    @property
    def running(self) -> bool:
        """Whether the server is serving."""
        return self._http is not None

    def start(self) -> ReferenceServer:
        """Bind the port and start serving in a background thread; returns ``self``.

        After :meth:`stop`, starting again serves on the same port; state survives only in a
        ``db_path`` file or a ``store`` you gave (else each start has an empty memory store).

        Raises:
            OSError: The address cannot be bound (the port is in use, the host is unknown).
        """
        if self._http is not None:
            return self
        app = self._create_app(tokens=[self.token, *self._extra_tokens], faults=self.faults)
        try:
            http = WSGIHTTPServer(
                (self.host, self.port), app, keepalive_timeout=self._keepalive_timeout
            )
        except BaseException:
            app.close()
            raise
        self._app = app
        self._http = http
        self.port = http.server_port
        http.start(name=f"appclient-reference-server:{self.port}")
        # Stopped when the program ends, so its temporary upload folder is not left behind.
        atexit.register(self.stop)
        return self

    def stop(self) -> None:
        """Stop serving, let requests in flight finish, end connections, release resources."""
        http, self._http = self._http, None
        if http is None:
            return
        atexit.unregister(self.stop)
        self.faults.release()
        # Runs in flight finish (and release their leases) before the store closes: a lease
        # left in a SQLite file would block the conversation after a restart.
        http.stop(grace=self._shutdown_grace)
        if self._app is not None:
            self._app.close()
            self._app = None

    def serve_until(self, stop: threading.Event) -> None:
        """Start (if needed), then block until ``stop`` is set, then stop."""
        self.start()
        try:
            stop.wait()
        finally:
            self.stop()

    def __enter__(self) -> ReferenceServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
