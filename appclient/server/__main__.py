"""``python -m appclient.server``: the same as ``appclient serve``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ._http import _serve_command


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the ``serve`` options and run the server; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m appclient.server", description="Run the appclient reference agent server."
    )
    _serve_command.add_arguments(parser)
    return _serve_command.run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover - exercised through a subprocess test
    sys.exit(main())
