"""``appclient serve``: run the reference agent server until interrupted.

Prints the URL, the token (generated when none is given) and the app id, plus the two
environment variables the official SDKs read, so a second terminal can point any client at
it. Binds 127.0.0.1 unless ``--host`` says otherwise.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import signal
import sqlite3
import sys
import threading
from typing import TextIO

from .._constants import (
    DEFAULT_APP_ID,
    DEFAULT_SERVE_PORT,
    DEFAULT_SERVER_HOST,
    ENV_BASE_URL,
    ENV_TOKEN,
)
from ._reference_server import ReferenceServer

__all__ = ["add_arguments", "is_loopback", "run"]


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
        default=None,
        help="accepted bearer token (repeat for several); a random one is printed when omitted",
    )
    parser.add_argument(
        "--app-id", default=DEFAULT_APP_ID, help=f"app id to serve (default {DEFAULT_APP_ID})"
    )
    parser.add_argument(
        "--db", default=None, metavar="FILE", help="SQLite file for state that survives restarts"
    )
    parser.add_argument(
        "--data-dir",
        default=None,
        metavar="DIR",
        help="where uploaded files go (default: FILE.files with --db, else a temporary folder)",
    )
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="server log level (default WARNING)",
    )


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
    """Serve until interrupted (Ctrl-C or SIGTERM) or until ``stop`` is set.

    Args:
        args: The parsed ``serve`` options.
        stop: Set it to stop the server (tests); otherwise runs until Ctrl-C.
        out: Where the banner goes (standard output by default).

    Returns:
        The exit status: 0, or 1 when the server cannot listen (port in use, bad host) or
        open its database.
    """
    out = out if out is not None else sys.stdout
    logging.basicConfig(
        level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    tokens = list(args.token or [])
    server = ReferenceServer(
        host=args.host,
        port=args.port,
        token=tokens[0] if tokens else None,
        extra_tokens=tokens[1:],
        app_id=args.app_id,
        db_path=args.db,
        data_dir=args.data_dir,
    )
    handle_sigterm = stop is None and threading.current_thread() is threading.main_thread()
    stop = stop if stop is not None else threading.Event()
    if handle_sigterm:
        # SIGTERM (docker stop, systemd, kill) stops as Ctrl-C does, so runs in flight
        # finish and the temporary upload folder is removed instead of left behind. It is
        # installed before the banner, which tells a supervisor the server is up. It raises
        # as SIGINT does: setting the event from a handler could deadlock on its lock.
        previous_sigterm = signal.signal(signal.SIGTERM, _interrupt)
    try:
        try:
            server.start()
        except OSError as exc:
            reason = exc.strerror or str(exc)
            print(
                f"appclient serve: cannot listen on {args.host}:{args.port}: {reason}",
                file=sys.stderr,
            )
            return 1
        except sqlite3.Error as exc:
            print(f"appclient serve: cannot open the database {args.db}: {exc}", file=sys.stderr)
            return 1
        store = (
            f"sqlite {args.db}" if args.db else "memory (lost at exit; use --db FILE to keep it)"
        )
        print(f"appclient reference server listening on {server.url}", file=out)
        print(f"  app id: {server.app_id}", file=out)
        # A token the user chose is not printed (stdout is often a log under docker or
        # systemd); a generated one must be, or nobody could connect.
        token = "(as given with --token)" if tokens else server.token
        export_token = "<your --token>" if tokens else server.token
        print(f"  token:  {token}", file=out)
        print(f"  store:  {store}", file=out)
        print(f"  export {ENV_BASE_URL}={server.url} {ENV_TOKEN}={export_token}", file=out)
        if not is_loopback(args.host):
            print(
                f"  warning: {args.host} is reachable from the network; "
                "anyone with the token can use this server",
                file=out,
            )
        print("Press Ctrl-C to stop.", file=out, flush=True)
        server.serve_until(stop)
    except KeyboardInterrupt:
        server.stop()
        print("stopped", file=out, flush=True)
    finally:
        if handle_sigterm:
            signal.signal(signal.SIGTERM, previous_sigterm)
    return 0
