"""A tool call's output as the agent reads it: the tool's return value, or what went wrong.

Strings are sent as they are; structured values become JSON with non-ASCII kept, so the
agent reads ``{"city": "北京"}``, never a Python repr such as ``Weather(city='北京')``; a
returned file is a :class:`ToolFile`, uploaded and named to the agent. A failure is the
matching :class:`~appclient.ToolError` subclass, naming the tool, the field and the problem so
the agent can correct its call; callers redact secrets first.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import os
from collections.abc import AsyncIterator, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic_core import PydanticSerializationError, to_jsonable_python

from .._core._errors import ToolArgumentsError, ToolError, ToolNotFoundError, suggest_names


class ResultSerializationError(TypeError):
    """The tool returned a value that has no faithful text or JSON form."""


@dataclass(frozen=True, repr=False)
class ToolFile:
    """A file a tool returns (an image, audio, a document): uploaded, then named to the agent.

    ``run_until_answer`` uploads it and sends ``{"type": "file", "file_id": ..., "name": ...,
    "mime_type": ..., "size": ...}`` as the tool's output; ``registry.dispatch`` sends the same
    without ``file_id`` and keeps the file on the record (``record.file``).

    Args:
        path: A file on disk (its name and type are taken from it unless given).
        data: The file's bytes, instead of a path.
        name: The file name shown to the agent (required with ``data``).
        mime_type: Its media type (guessed from the name when omitted).
    """

    path: str | os.PathLike[str] | None = None
    data: bytes | None = None
    name: str = ""
    mime_type: str = ""

    def __post_init__(self) -> None:
        if (self.path is None) == (self.data is None):
            raise TypeError("ToolFile takes exactly one of path= or data=")
        if self.data is not None and not self.name:
            raise TypeError("ToolFile(data=...) needs a name=, e.g. 'chart.png'")
        name = self.name or os.path.basename(os.fspath(self.path or ""))
        object.__setattr__(self, "name", name)
        if not self.mime_type:
            guessed = mimetypes.guess_type(name)[0] or "application/octet-stream"
            object.__setattr__(self, "mime_type", guessed)

    def __repr__(self) -> str:
        return f"ToolFile(name={self.name!r}, mime_type={self.mime_type!r}, size={self.size})"

    @property
    def size(self) -> int:
        """The file's size in bytes."""
        if self.data is not None:
            return len(self.data)
        return os.path.getsize(os.fspath(self.path or ""))

    def describe(self, *, file_id: str | None = None) -> str:
        """The tool output that names this file to the agent (JSON text)."""
        uploaded = {"file_id": file_id} if file_id is not None else {}
        described = {"name": self.name, "mime_type": self.mime_type, "size": self.size}
        return json.dumps({"type": "file", **uploaded, **described}, ensure_ascii=False)


#: Leading bytes of the media types a tool most often returns raw: (magic, offset, type, ext).
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png", ".png"),
    (b"\xff\xd8\xff", 0, "image/jpeg", ".jpg"),
    (b"GIF8", 0, "image/gif", ".gif"),
    (b"WEBP", 8, "image/webp", ".webp"),
    (b"WAVE", 8, "audio/wav", ".wav"),
    (b"ID3", 0, "audio/mpeg", ".mp3"),
    (b"OggS", 0, "audio/ogg", ".ogg"),
    (b"fLaC", 0, "audio/flac", ".flac"),
    (b"%PDF-", 0, "application/pdf", ".pdf"),
)
#: The ``type`` words of Lagent's typed results (``{"type": "image", "content": ...}``).
_FILE_KINDS = frozenset({"image", "audio", "video", "file"})


def _sniffed(data: bytes) -> tuple[str, str] | None:
    for magic, offset, mime_type, extension in _MAGIC:
        if data[offset : offset + len(magic)] == magic:
            return mime_type, extension
    return None


def as_tool_file(value: Any) -> Any:
    """Return raw image, audio or PDF bytes, or Lagent's typed file result, as a ToolFile.

    Anything else (a path that is no file, such as a URL, too) is returned unchanged.
    """
    if isinstance(value, (bytes, bytearray)):
        known = _sniffed(bytes(value))
        if known is None:
            return value
        return ToolFile(data=bytes(value), name=f"result{known[1]}", mime_type=known[0])
    typed = value[0] if isinstance(value, list) and len(value) == 1 else value
    if not (isinstance(typed, Mapping) and typed.get("type") in _FILE_KINDS):
        return value
    content = typed.get("content")
    if isinstance(content, (bytes, bytearray)):
        known = _sniffed(bytes(content))
        name = str(typed.get("name") or f"{typed['type']}{known[1] if known else ''}")
        return ToolFile(data=bytes(content), name=name, mime_type=known[0] if known else "")
    if isinstance(content, (str, os.PathLike)) and os.path.isfile(content):
        return ToolFile(path=content)
    return value


class ReportedFailure(Exception):  # noqa: N818 - not an error of appclient's: the tool's own
    """The tool returned a result whose status says it failed; the message is its content."""


_FAILED = frozenset({"error", "failed", "failure"})
_SUCCEEDED = frozenset({"success", "succeeded", "ok"})


def _status_word(value: Any) -> str | None:
    """A result's ``status`` as a lower-case word (an enum member by its name), if it has one."""
    status = value.get("status") if isinstance(value, Mapping) else None
    word = status.name if isinstance(status, Enum) else status
    return word.lower() if isinstance(word, str) else None


def needs_approval(value: Any) -> bool:
    """Whether a tool answered that it needs the user's approval (LazyLLM's convention)."""
    return _status_word(value) == "needs_approval"


def unwrap_status(value: Any) -> Any:
    """Return the content of AgentScope's ``ServiceResponse`` (``status`` and ``content``).

    A failed status raises :class:`ReportedFailure` with the content; a value of any other
    shape is returned as it is.
    """
    if not isinstance(value, Mapping) or len(value) != 2 or set(value) != {"status", "content"}:
        return value
    word = _status_word(value)
    if word in _FAILED:
        content = value["content"]
        raise ReportedFailure(content if isinstance(content, str) else serialize_result(content))
    return value["content"] if word in _SUCCEEDED else value


def _has_own_str(value: object) -> bool:
    # A class that defines __str__ meant it as the readable form; object.__str__ is a repr.
    return type(value).__str__ is not object.__str__


def _fallback(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return _bytes_text(bytes(value))
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(value, Collection) and not isinstance(value, BaseException):
        return list(value)  # a range, a dict's keys or values: a finite sequence of values
    if _has_own_str(value) and not isinstance(value, BaseException):
        return str(value)
    raise ResultSerializationError(
        f"the tool returned a {type(value).__qualname__}, which has no JSON form; return a "
        "str, a dict, a list, a dataclass or a pydantic model instead"
    )


def _bytes_text(value: bytes) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return "base64:" + base64.b64encode(value).decode("ascii")


def _join_chunks(items: list[Any]) -> Any:
    # A generator of text chunks is streamed text: join it; anything else is a list of values.
    if items and all(isinstance(item, str) for item in items):
        return "".join(items)
    return items


async def collect_async_iterator(iterator: AsyncIterator[Any]) -> Any:
    """Consume an async iterator a tool returned: its text chunks joined, else its items."""
    return _join_chunks([item async for item in iterator])


def serialize_result(value: Any) -> str:
    """Return the output text for a tool's return value.

    ``str`` as is; ``bytes`` as UTF-8 text (else ``base64:`` and base64); a generator
    consumed first (text chunks joined); else JSON with ``ensure_ascii=False`` (NaN as
    ``null``), or plain text when the JSON is a lone string (an enum member, a date...).

    Raises:
        ResultSerializationError: The value has no JSON form and no ``__str__`` of its own,
            or holds something JSON cannot (bytes that are not UTF-8, a frozenset key).
    """
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return _bytes_text(bytes(value))
    if isinstance(value, Iterator):  # a generator too
        value = _join_chunks(list(value))
        if isinstance(value, str):
            return value
    try:
        # JSON has no NaN or Infinity: json.dumps would write them, and the agent's parser
        # would reject the whole output; null is what pydantic's own JSON writes for them.
        data = to_jsonable_python(
            value, fallback=_fallback, serialize_unknown=False, inf_nan_mode="null"
        )
    except UnicodeDecodeError:
        raise ResultSerializationError(
            "the tool's result cannot be written as JSON: it holds bytes that are not UTF-8 "
            "text; encode them (for example as base64) before returning them"
        ) from None
    except (PydanticSerializationError, TypeError, ValueError) as exc:  # a frozenset key...
        if isinstance(exc.__cause__, ResultSerializationError):  # raised by _fallback
            raise exc.__cause__ from None
        problem = f"the tool's result cannot be written as JSON: {exc}"
        raise ResultSerializationError(problem) from None
    return data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)


#: Tool names, or argument problems, a message lists before summarising the rest.
_LISTED = 20
#: Characters of a name the agent sent that a message quotes (tool names have at most 64).
_QUOTED_NAME = 64


def failure_output(error: ToolError) -> str:
    """Return the tool-output text that reports ``error`` to the agent."""
    return f"Error: {error}"


def _quoted(name: str) -> str:
    """Quote a name the agent sent, shortened: the agent's own text is not echoed in bulk."""
    if len(name) <= _QUOTED_NAME:
        return repr(name)
    return f"{name[:_QUOTED_NAME]!r} (+{len(name) - _QUOTED_NAME} more characters)"


def unknown_tool(name: str, available: Sequence[str], *, tool_call_id: str = "") -> ToolError:
    """Build the error for an unknown tool, listing the available names and close matches."""
    text = f"there is no tool named {_quoted(name)}"
    suggestions = suggest_names(name, available)
    if suggestions:
        text += ". Did you mean " + " or ".join(repr(s) for s in suggestions) + "?"
    more = len(available) - _LISTED
    listing = ", ".join(available[:_LISTED]) + (f" and {more} more" if more > 0 else "")
    text += f" (available tools: {listing})" if available else " (no tools are registered)"
    return ToolNotFoundError(text, tool_name=name, tool_call_id=tool_call_id)


def invalid_call(problem: str, *, tool_name: str = "", tool_call_id: str = "") -> ToolError:
    """Build the error for a tool call whose shape is wrong (no name, not an object...)."""
    return ToolArgumentsError(
        f"invalid tool call: {problem}",
        tool_name=tool_name,
        tool_call_id=tool_call_id,
        problems=[("<call>", problem)],
    )


def invalid_arguments(
    tool_name: str, problems: Sequence[tuple[str, str]], *, tool_call_id: str = ""
) -> ToolError:
    """Build the error for ``(field, problem)`` pairs (``"<arguments>"``: them as a whole)."""
    details = "; ".join(
        problem if field in ("", "<arguments>") else f"{_quoted(field)}: {problem}"
        for field, problem in problems[:_LISTED]
    )
    if len(problems) > _LISTED:
        details += f"; and {len(problems) - _LISTED} more problems"
    text = (
        f"invalid arguments for tool {tool_name!r}: {details}. "
        f"Correct the arguments and call {tool_name!r} again."
    )
    return ToolArgumentsError(
        text, tool_name=tool_name, tool_call_id=tool_call_id, problems=problems
    )


def describe_exception(exc: BaseException) -> str:
    """Return ``Type: message`` for an exception, or just the type (also when str fails)."""
    kind = type(exc).__name__
    try:
        message = str(exc).strip()
    except Exception:  # a broken __str__ must not turn one failed call into a crash
        message = ""
    return f"{kind}: {message}" if message else kind
