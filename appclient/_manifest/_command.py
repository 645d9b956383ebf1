"""``appclient manifest module:function [...] [-o FILE|DIR] [--strict]``.

Imports each named callable, builds its tool and prints the JSON (one tool as an object,
several as a list), or writes it with :func:`save_tools`. The current directory is importable,
as with ``python -m``, and so is the folder of a ``file.py`` reference, as with ``python file.py``.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import importlib.util
import inspect
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from .._core._errors import AppClientError, ManifestError
from ._building import build_tool_spec
from ._coerce import check_unique_names
from ._decorators import get_overrides
from ._tool_files import save_tools


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the ``manifest`` subcommand's arguments on ``parser``."""
    parser.add_argument(
        "references",
        nargs="+",
        metavar="MODULE:FUNCTION",
        help="callables to describe: pkg.module:func, file.py:func, module:Class.method, or a "
        "module (all of its @manifest functions)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE|DIR",
        help="write to a .json file, or one <name>.json per tool into a folder (default: print)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="strict schemas: closed objects, every property required, defaults nullable",
    )
    parser.add_argument("--indent", type=int, default=4, help="JSON indentation when printing")


def _import_module(name: str) -> ModuleType:
    if name.endswith(".py"):
        path = Path(name).resolve()
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None or not path.exists():
            raise ManifestError(f"cannot load {name}: no such Python file")
        if str(path.parent) not in sys.path:  # its neighbours are importable, as for `python`
            sys.path.insert(0, str(path.parent))
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(path.stem, module)
        spec.loader.exec_module(module)
        return module
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    return importlib.import_module(name)


def resolve_reference(reference: str) -> list[Any]:
    """The callables ``module:attr``, ``file.py:attr`` or a module (its @manifest ones) names."""
    module_name, _, attribute = reference.partition(":")
    try:
        module = _import_module(module_name)
    except Exception as exc:  # an import runs user code: any failure is "cannot import"
        raise ManifestError(f"cannot import {module_name!r}: {exc}") from exc
    if not attribute:
        found = [
            value
            for value in vars(module).values()
            if inspect.isfunction(value)
            and value.__module__ == module.__name__
            and (record := get_overrides(value)) is not None
            and record.decorated
        ]
        if not found:
            raise ManifestError(f"module {module_name!r} has no @manifest functions")
        return found
    try:
        value = functools.reduce(getattr, attribute.split("."), module)
    except AttributeError as exc:
        raise ManifestError(f"{reference!r}: {module_name} has no {attribute!r}") from exc
    if not callable(value):
        raise ManifestError(f"{reference!r} is not callable")
    return [value]


def run(args: argparse.Namespace) -> int:
    """Run ``appclient manifest``; return the exit status (2 for bad references or tools)."""
    try:
        callables = [item for reference in args.references for item in resolve_reference(reference)]
        tools = [build_tool_spec(item, strict=args.strict).to_tool() for item in callables]
        check_unique_names([(f"tool #{index}", tool) for index, tool in enumerate(tools)])
        if args.output:
            written = save_tools(tools if len(tools) > 1 else tools[0], args.output)
            for path in written:
                print(f"wrote {path}", file=sys.stderr)
            return 0
    except AppClientError as exc:
        print(f"appclient manifest: {exc}", file=sys.stderr)
        return 2
    document = tools[0] if len(tools) == 1 else tools
    print(json.dumps(document, indent=args.indent, ensure_ascii=False))
    return 0
