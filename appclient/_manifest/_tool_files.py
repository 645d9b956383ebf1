"""Tool files: write tools as JSON, read them back from a file or a folder.

The format is the one the official Java and Go AppBuilder examples read: a UTF-8 JSON file
holding one tool object ``{"type": "function", "function": {...}}`` (or a list of them).
:func:`save_tools` writes one file, or one ``<tool name>.json`` per tool into a folder;
:func:`load_tools` reads a file or every ``*.json`` file of a folder (sorted by name).

Loading passes every tool through :func:`appclient._official_shape.normalize_tool`, so files
written from the official SDK's ``Manifest`` (Python type names, ``required`` inside
properties, raw docstrings) come back as JSON Schema, then checks each tool against the wire
model and the tool-name rule. Tool names must be unique across everything loaded at once.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._core._errors import ManifestError
from .._core._models import Tool
from ._manifest import Manifest
from ._official_shape import normalize_tool
from ._spec import ToolSpec, check_tool_name

__all__ = ["ToolLike", "check_unique_names", "load_tools", "save_tools", "to_tool_dict"]

#: What the functions here accept as "a tool".
ToolLike = Mapping[str, Any] | Tool | ToolSpec | Callable[..., Any]

_JSON_INDENT = 4


def to_tool_dict(tool: ToolLike) -> dict[str, Any]:
    """Return a tool as a plain wire dict.

    Args:
        tool: A dict, a :class:`~appclient.Tool`, a :class:`ToolSpec` or a callable (built
            with ``Manifest.from_function``).

    Returns:
        A new ``{"type": "function", "function": {...}}`` dict.

    Raises:
        ManifestError: The tool is of no supported kind.
    """
    if isinstance(tool, ToolSpec):
        return tool.to_tool()
    if isinstance(tool, Tool):
        return tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(tool, Mapping):
        return json.loads(json.dumps(dict(tool), ensure_ascii=False))  # type: ignore[no-any-return]
    if callable(tool):
        return dict(Manifest.from_function(tool))
    raise ManifestError(f"cannot turn {type(tool).__name__} into a tool")


def _checked(tool: Any, *, origin: str) -> dict[str, Any]:
    if not isinstance(tool, dict):
        raise ManifestError(f"{origin}: a tool must be a JSON object, got {type(tool).__name__}")
    normalized: dict[str, Any] = normalize_tool(tool)
    try:
        Tool.model_validate(normalized)
    except ValidationError as exc:
        raise ManifestError(f"{origin}: not a valid tool: {exc}") from exc
    function = normalized.get("function")
    if isinstance(function, dict):
        try:
            check_tool_name(function.get("name"))  # type: ignore[arg-type]  # checked inside
        except ManifestError as exc:
            raise ManifestError(f"{origin}: {exc}") from exc
    return normalized


def _tool_name(tool: Mapping[str, Any]) -> str | None:
    function = tool.get("function")
    name = function.get("name") if isinstance(function, Mapping) else None
    return name if isinstance(name, str) else None


def check_unique_names(tools: Iterable[tuple[str, dict[str, Any]]]) -> None:
    """Raise :class:`ManifestError` naming both origins when two tools share a name."""
    seen: dict[str, str] = {}
    for origin, tool in tools:
        name = _tool_name(tool)
        if name is None:
            continue
        if name in seen:
            raise ManifestError(f"tool name {name!r} appears twice: in {seen[name]} and {origin}")
        seen[name] = origin


def _is_json_name(path: Path) -> bool:
    return path.suffix.lower() == ".json"  # TOOLS.JSON too (Windows users write it so)


def _read_file(path: Path) -> list[tuple[str, dict[str, Any]]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise ManifestError(f"cannot read tool file {path}: {exc}") from exc
    except ValueError as exc:
        raise ManifestError(f"tool file {path} is not valid JSON: {exc}") from exc
    items = data if isinstance(data, list) else [data]
    result = []
    for index, item in enumerate(items):
        origin = f"{path}[{index}]" if isinstance(data, list) else str(path)
        result.append((origin, _checked(item, origin=origin)))
    return result


def load_tools(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Load tools from a JSON file, or from every ``*.json`` file of a folder.

    Args:
        path: A file holding one tool object or a list of tools, or a folder of such files.

    Returns:
        The tools, normalised to JSON Schema, in file order (files sorted by name).

    Raises:
        ManifestError: A file is missing or not JSON, a tool is invalid, or two tools share
            a name. The message names the file (and the index inside a list).
    """
    location = Path(path)
    if location.is_dir():
        files = sorted(p for p in location.iterdir() if _is_json_name(p) and p.is_file())
    elif location.exists():
        files = [location]
    else:
        raise ManifestError(f"no tool file or folder at {location}")
    loaded = [entry for file in files for entry in _read_file(file)]
    check_unique_names(loaded)
    return [tool for _, tool in loaded]


def _write_json(path: Path, data: Any) -> None:
    text = json.dumps(data, indent=_JSON_INDENT, ensure_ascii=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write next to the target and rename, so a reader never sees half a file. The temporary
    # file is created with mode 0o666 so the umask applies, as for any new file (mkstemp's
    # private 0o600 would make the tool file unreadable to, say, a Java service's user).
    temporary = path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp"
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def save_tools(tools: ToolLike | Iterable[ToolLike], path: str | os.PathLike[str]) -> list[Path]:
    """Write tools as JSON: one file, or one ``<name>.json`` per tool into a folder.

    Args:
        tools: One tool (dict, ``Tool``, ``ToolSpec`` or callable) or a list of them.
        path: A ``.json`` file, or a folder (an existing folder, or a path ending with a
            separator, or one without the ``.json`` suffix). A single tool written to a file
            is written as an object, exactly what the Java example reads; a list as a list.

    Returns:
        The files written.

    Raises:
        ManifestError: A tool is invalid or two tools share a name.
    """
    single = isinstance(tools, (Mapping, Tool, ToolSpec)) or callable(tools)
    items: list[ToolLike] = [tools] if single else list(tools)  # type: ignore[list-item, arg-type]
    checked = [
        (f"tool #{index}", _checked(to_tool_dict(item), origin=f"tool #{index}"))
        for index, item in enumerate(items)
    ]
    check_unique_names(checked)
    target = Path(path)
    as_folder = target.is_dir() or str(path).endswith(("/", os.sep)) or not _is_json_name(target)
    if not as_folder:
        _write_json(target, checked[0][1] if single else [tool for _, tool in checked])
        return [target]
    written = []
    for _, tool in checked:
        file = target / f"{_tool_name(tool) or 'tool'}.json"
        _write_json(file, tool)
        written.append(file)
    return written
