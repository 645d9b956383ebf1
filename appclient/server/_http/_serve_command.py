"""``appclient serve``: run the reference agent server until interrupted.

Prints the URL, the token, the app id, the ``export`` lines for the SDKs and a ``curl`` line.
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import json
import logging
import shlex
import signal
import sqlite3
import sys
import threading
from typing import TextIO

from ..._core._constants import (
    DEFAULT_SERVER_HOST,
    ENV_APP_ID,
    ENV_BASE_URL,
    ENV_TOKEN,
    PATH_CONVERSATION,
    PATH_FEEDBACK,
    PATH_FILE_UPLOAD,
    PATH_RUNS,
)
from ..._core._errors import InvalidRequestError
from .._agents._model_agent import STRATEGIES, TOOL_FORMATS
from .._settings import DEFAULT_APP_ID, DEFAULT_RUN_LEASE_SECONDS, DEFAULT_SERVE_PORT
from .._state._store import StoreBusyError
from ._reference_server import ReferenceServer

#: ``appclient serve --help``: what the server answers, and where to read more.
DESCRIPTION = f"""run the reference agent server: the AppBuilder conversation protocol on a local
port, with a rule-based agent, so clients and tools are tried without a hosted app.

endpoints (all POST, with Authorization: Bearer <token>):
  {PATH_CONVERSATION:<36} create a conversation
  {PATH_RUNS:<36} run a query or send tool outputs (plain or SSE)
  {PATH_FILE_UPLOAD:<36} upload a file (multipart) or register a URL
  {PATH_FEEDBACK:<36} rate an answer

the protocol, its errors and limits: docs/protocol.md in the appclient repository"""


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)")
    return port


def _token(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("a token must not be empty")
    return text


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _refuse(problem: str, *, status: int = 1) -> int:
    print(f"appclient serve: {problem}", file=sys.stderr)
    return status


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the ``serve`` options on ``parser``."""
    parser.add_argument(
        "--host",
        default=DEFAULT_SERVER_HOST,
        help=f"interface to bind (default {DEFAULT_SERVER_HOST}; 0.0.0.0 exposes the server)",
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_SERVE_PORT,
        help=f"port to listen on (default {DEFAULT_SERVE_PORT}; 0 picks a free port)",
    )
    parser.add_argument(
        "--token",
        type=_token,
        action="append",
        help="accepted bearer token (repeat for several); a random one is printed when omitted",
    )
    parser.add_argument(
        "--app-id",
        action="append",
        help=f"app id to serve (repeat for several; default {DEFAULT_APP_ID})",
    )
    parser.add_argument(
        "--any-app-id",
        action="store_true",
        help="serve every app id (the official SDK's tests and cookbooks use several); the "
        "--app-id ones are still the app list",
    )
    parser.add_argument("--db", metavar="FILE", help="SQLite file for state that survives restarts")
    parser.add_argument(
        "--lease-seconds",
        type=float,
        default=DEFAULT_RUN_LEASE_SECONDS,
        metavar="S",
        help="how long a run may hold its conversation; a run cut by a crash frees it after "
        f"this (default {DEFAULT_RUN_LEASE_SECONDS:g})",
    )
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help="where uploaded files go (default: FILE.files with --db, else a temporary folder)",
    )
    model = parser.add_argument_group(
        "planning with a model (needs: pip install 'appclient[model]')"
    )
    model.add_argument(
        "--model-url",
        metavar="URL",
        help="plan with the model behind this OpenAI-compatible base URL "
        "(e.g. http://127.0.0.1:8000/v1 for vLLM, http://127.0.0.1:11434/v1 for Ollama) "
        "instead of the rule agent",
    )
    model.add_argument("--model", metavar="NAME", help="the model name to ask for")
    model.add_argument(
        "--tool-format",
        default="native",
        choices=TOOL_FORMATS,
        help="native (OpenAI tool calls, the default) or a text format for models without them",
    )
    model.add_argument(
        "--strategy", default="fc", choices=STRATEGIES, help="how the agent plans (default fc)"
    )
    model.add_argument(
        "--model-api-key-env",
        default="OPENAI_API_KEY",
        metavar="VAR",
        help="the environment variable holding the model's key (default OPENAI_API_KEY; "
        "local servers need none); it is never printed",
    )
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="server log level (default WARNING)",
    )


def curl_line(url: str, token: str, app_id: str) -> str:
    """A ``curl`` command that creates a conversation, quoted for a POSIX shell."""
    headers = ["-H", f"Authorization: Bearer {token}", "-H", "Content-Type: application/json"]
    body = json.dumps({"app_id": app_id})
    return shlex.join(["curl", "-sS", "-X", "POST", url + PATH_CONVERSATION, *headers, "-d", body])


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or name (only this machine can connect)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def run(
    args: argparse.Namespace,
    *,
    stop: threading.Event | None = None,
    out: TextIO | None = None,
) -> int:
    """Serve until Ctrl-C, SIGTERM or ``stop``, the banner on ``out``; return the exit status."""
    out = out if out is not None else sys.stdout
    logging.basicConfig(
        level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    tokens = list(args.token or [])
    if args.model_url and not args.model:
        return _refuse("--model-url needs --model NAME", status=2)
    try:
        server = ReferenceServer(
            host=args.host,
            port=args.port,
            token=tokens[0] if tokens else None,
            extra_tokens=tokens[1:],
            app_id=args.app_id or (None if args.any_app_id else [DEFAULT_APP_ID]),
            any_app_id=args.any_app_id,
            db_path=args.db,
            lease_seconds=args.lease_seconds,
            data_dir=args.data_dir,
            model_url=args.model_url or None,  # an empty one (an unset $VAR) is none
            model=args.model,
            tool_format=args.tool_format,
            strategy=args.strategy,
            model_api_key_env=args.model_api_key_env,
        )
    except InvalidRequestError as exc:  # the openai package is missing, a bad format
        return _refuse(str(exc), status=2)
    handle_sigterm = stop is None and threading.current_thread() is threading.main_thread()
    stop = stop if stop is not None else threading.Event()
    if handle_sigterm:
        # SIGTERM (docker stop, systemd) stops as Ctrl-C does: runs in flight finish, the
        # temporary upload folder goes. Installed before the banner (a supervisor's "up"
        # signal); it raises as SIGINT does, as setting the event could deadlock on its lock.
        previous_sigterm = signal.signal(signal.SIGTERM, _interrupt)
    try:
        try:
            server.start()
        except OSError as exc:
            reason = exc.strerror or str(exc)
            if exc.errno == errno.EADDRINUSE:
                reason += "; use --port 0 for a free port, or another --port"
            return _refuse(f"cannot listen on {args.host}:{args.port}: {reason}")
        except (sqlite3.Error, StoreBusyError) as exc:
            return _refuse(f"cannot open the database {args.db}: {exc}")
        store = (
            f"sqlite {args.db}" if args.db else "memory (lost at exit; use --db FILE to keep it)"
        )
        apps = ", ".join(server.app_ids)
        if args.any_app_id:
            apps = f"any (--any-app-id){'; listed: ' + apps if apps else ''}"
        # A token the user chose is not printed (stdout is often a log); a generated one must be.
        token = "(as given with --token)" if tokens else server.token
        export_token = "<your --token>" if tokens else server.token
        lines = [
            f"appclient reference server listening on {server.url}",
            f"  app id: {apps}",
            f"  token:  {token}",
            f"  store:  {store}",
        ]
        if args.model_url:
            lines.append(
                f"  agent:  model {args.model} at {args.model_url} "
                f"({args.tool_format}, {args.strategy})"
            )
        lines += [
            "Point the official SDKs and appclient at it (AppClient() reads these):",
            f"  export {ENV_BASE_URL}={server.url}",
            f"  export {ENV_TOKEN}={export_token}",
            f"  export {ENV_APP_ID}={server.app_id}",
            "Try it:",
            f"  {curl_line(server.url, export_token, server.app_id)}",
            f"Watch the runs: {server.url}/ (the run inspector; sign in with the token)",
        ]
        if not is_loopback(args.host):
            lines.append(
                f"  warning: {args.host} is reachable from the network; "
                "anyone with the token can use this server"
            )
        print("\n".join([*lines, "Press Ctrl-C to stop."]), file=out, flush=True)
        server.serve_until(stop)
    except KeyboardInterrupt:
        server.stop()
        print("stopped", file=out, flush=True)
    finally:
        if handle_sigterm:
            signal.signal(signal.SIGTERM, previous_sigterm)
    return 0
