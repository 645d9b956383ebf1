"""Names that moved to another module: still importable from the old one, with a warning.

A facade that drops a name from its ``__all__`` keeps it working for one release::

    _MOVED = {"ServerError": "appclient.errors"}

    def __getattr__(name: str) -> Any:
        return moved_attribute(__name__, name, _MOVED)

The old path resolves to the same object and warns with a :class:`DeprecationWarning`
naming the new import path.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Mapping
from typing import Any

__all__ = ["moved_attribute"]


def moved_attribute(module: str, name: str, moved: Mapping[str, str]) -> Any:
    """Return ``name`` from its new home, warning that ``module`` no longer exports it.

    Args:
        module: The module asked (the caller's ``__name__``).
        name: The attribute asked for.
        moved: Each moved name -> the module that now exports it.

    Raises:
        AttributeError: ``name`` never moved from ``module`` (an ordinary missing name).
    """
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
