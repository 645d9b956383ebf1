"""Tool files: write tools as JSON, read them back from a file or a folder.

The format the official Java and Go examples read: UTF-8 JSON, one tool object or a list.
Loading normalises each tool (:func:`normalize_tool`) and checks it against the wire model.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._core._errors import ManifestError
from .._core._models import Tool
from ._coerce import ToolLike, check_unique_names, checked_tool, is_one, tool_name, tools_to_wire
from ._official_shape import normalize_tool

_JSON_INDENT = 4


def _checked(tool: Any, *, origin: str) -> dict[str, Any]:
    normalized: dict[str, Any] = normalize_tool(checked_tool(tool, origin))
    try:
        Tool.model_validate(normalized)  # e.g. a non-function tool's 'function'
    except ValidationError as exc:
        raise ManifestError(f"{origin}: not a valid tool: {exc}") from exc
    return normalized


def _is_json_name(path: Path) -> bool:
    return path.suffix.lower() == ".json"  # TOOLS.JSON too (Windows users write it so)


def _read_file(path: Path) -> list[tuple[str, dict[str, Any]]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise ManifestError(f"cannot read tool file {path}: {exc}") from exc
    except (ValueError, RecursionError) as exc:  # RecursionError: nested too deeply
        raise ManifestError(f"tool file {path} is not valid JSON: {exc}") from exc
    if not isinstance(data, list):
        return [(str(path), _checked(data, origin=str(path)))]
    entries = [(f"{path}[{index}]", item) for index, item in enumerate(data)]
    return [(origin, _checked(item, origin=origin)) for origin, item in entries]


def load_tools(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Load tools from a JSON file, or from every ``*.json`` file of a folder.

    Args:
        path: A file holding one tool object or a list of tools, or a folder of such files.

    Returns:
        The tools, normalised to JSON Schema, in file order (files sorted by name).

    Raises:
        ManifestError: A file is missing or not JSON, a tool is invalid, or two tools share
            a name (the message names the file and index).
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
    # Write beside the target and rename, so a reader never sees half a file; mode 0o666 lets
    # the umask apply (mkstemp's 0o600 would hide the file from, say, a Java service's user).
    temporary = path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp"
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def save_tools(tools: ToolLike, path: str | os.PathLike[str]) -> list[Path]:
    """Write tools as JSON: one file, or one ``<name>.json`` per tool into a folder.

    Args:
        tools: One tool or a list of them, in any shape a run's ``tools`` takes (a registry
            gives every tool it holds).
        path: A ``.json`` file (one tool is written as an object, as the Java example reads
            it; several as a list), or a folder: an existing one, or a path ending with a
            separator or without the ``.json`` suffix.

    Returns:
        The files written.

    Raises:
        ManifestError: A tool is invalid, or two tools share a name (or, in a folder, a file).
    """
    one = is_one(tools)
    wire = tools_to_wire([tools] if one else tools)  # type: ignore[arg-type]  # a list if not one
    checked = [_checked(tool, origin=f"tools[{index}]") for index, tool in enumerate(wire)]
    target = Path(path)
    as_folder = target.is_dir() or str(path).endswith(("/", os.sep)) or not _is_json_name(target)
    if not as_folder:
        # One tool is written as an object; one registry of several tools, as a list.
        _write_json(target, checked[0] if one and len(checked) == 1 else checked)
        return [target]
    written = [target / f"{tool_name(tool) or 'tool'}.json" for tool in checked]
    if len(set(written)) < len(written):  # function names are unique: unnamed tools clash
        raise ManifestError(
            f"a tool without a function name is saved as tool.json, so two would overwrite each "
            f"other in {target}; save them to one .json file"
        )
    for file, tool in zip(written, checked, strict=True):
        _write_json(file, tool)
    return written
