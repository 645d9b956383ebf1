"""``python -m appclient``: the ``appclient`` command, where its script is not on ``PATH``."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":  # pragma: no cover - exercised through a subprocess test
    sys.exit(main())
