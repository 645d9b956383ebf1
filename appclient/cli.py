"""The ``appclient`` command: ``serve``, ``demo``, ``manifest`` and ``mcp``.

Each subcommand lives with the code it drives and offers ``add_arguments(parser)`` and
``run(args) -> int``; this module only wires them into one argument parser.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from ._version import __version__

#: subcommand name -> (module that implements it, one-line help)
_SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("appclient._demo", "run the weather round trip against an embedded server"),
    "manifest": ("appclient._manifest._command", "print or write tool JSON for Python functions"),
    "mcp": (
        "appclient._tools._mcp_serve",
        "serve Python functions as an MCP server (stdio or HTTP)",
    ),
    "serve": ("appclient.server._http._serve_command", "run the reference agent server"),
}


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="appclient",
        description="Use a hosted AI agent app together with functions on your own machine.",
    )
    parser.add_argument("--version", action="version", version=f"appclient {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module_name, help_text) in sorted(_SUBCOMMANDS.items()):
        module = importlib.import_module(module_name)
        sub = commands.add_parser(
            name,
            help=help_text,
            description=getattr(module, "DESCRIPTION", help_text),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``appclient`` command on ``argv`` (default ``sys.argv[1:]``); return its status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args._run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`appclient demo | head`): stop quietly, as other tools do.
        _discard_stdout()
        return 1
    return status


def _discard_stdout() -> None:
    """Point standard output at the null device, so the exit-time flush cannot fail again."""
    try:
        fileno = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (captured, replaced)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fileno)
    os.close(devnull)


if __name__ == "__main__":  # pragma: no cover - exercised through the console script
    sys.exit(main())
