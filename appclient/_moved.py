"""Names that moved to another module: still importable from the old one, with a warning.

A facade that drops a name keeps it working for one release::

    def __getattr__(name: str) -> Any:
        return moved_attribute(__name__, name, {"ServerError": "appclient.errors"})
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Mapping
from typing import Any


def moved_attribute(module: str, name: str, moved: Mapping[str, str]) -> Any:
    """``name`` from its new home ``moved[name]``, warning; AttributeError if it never moved."""
    home = moved.get(name)
    if home is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(
        f"importing {name} from {module} is deprecated and will stop working in the next "
        f"release; import it from {home} instead (from {home} import {name})",
        DeprecationWarning,
        stacklevel=3,  # the code that asked: moved_attribute <- the module's __getattr__ <- it
    )
    return getattr(importlib.import_module(home), name)
