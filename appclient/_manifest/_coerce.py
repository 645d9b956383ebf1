"""What users hand over as tools, tool calls or lists of anything, turned into one shape.

One set of rules for every "accept anything" argument (a run's ``tools``, ``save_tools``,
``ToolRegistry(tools)``, tool calls, ``tool_outputs``); each refusal names where (``tools[2]``).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeAlias, TypeGuard

from pydantic import BaseModel

from .._core._arguments import unwrap_fence
from .._core._constants import tool_name_problem
from .._core._errors import InvalidRequestError, ManifestError, wrong_kind
from .._core._models import RunAnswer, Tool, ToolCall
from ._manifest import Manifest
from ._official_shape import from_list_form


class _Registry(Protocol):
    def tools(self) -> Iterable[Any]: ...


class _Toolkit(Protocol):
    def to_tools(self) -> Iterable[Any]: ...


class _ToolOfALibrary(Protocol):  # a ToolSpec too
    def to_tool(self) -> Any: ...


#: One tool: a dict (Lagent's form too), a Tool or other model of that shape, an MCP tool
#: (``inputSchema``), a function, an object with ``to_tool()``/``to_tools()``, a registry, a list.
ToolLike: TypeAlias = (
    "Mapping[str, Any] | BaseModel | Callable[..., Any] | _ToolOfALibrary | _Toolkit"
    " | _Registry | Iterable[Any]"
)
#: The ``tools`` of a run: ``None``, a registry or toolkit, or a list of :data:`ToolLike`.
ToolsLike: TypeAlias = "_Registry | _Toolkit | Iterable[ToolLike] | None"

_MISSING = object()
_TOOL = "a tool (a dict, a Tool, a function, or an object with to_tool(), to_tools() or tools())"


def _many(value: object) -> TypeGuard[Iterable[Any]]:
    # A str, dict or model iterates too, but is one item.
    return isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping, BaseModel))


def listed(value: object, *, where: str, what: str) -> list[tuple[str, Any]]:
    """The items of a list argument, each with where it is (``where[index]``)."""
    if not _many(value):
        raise wrong_kind(where, f"a list of {what} (wrap one in a list)", value)
    return [(f"{where}[{index}]", item) for index, item in enumerate(value)]


def is_one(value: object) -> bool:
    """Whether an argument that takes one item or a list was given one (a callable is one)."""
    return callable(value) or not _many(value)


def field(value: Any, name: str) -> Any:
    """A dict's ``value[name]``, an object's ``value.name`` (an SDK object or its dict form)."""
    return value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)


def checked_tool(given: object, where: str) -> dict[str, Any]:
    """A tool object (or Lagent's description) checked, each refusal naming ``where``."""
    if not isinstance(given, Mapping):
        raise wrong_kind(where, _TOOL, given, error=ManifestError)
    tool = from_list_form(given) if isinstance(given, dict) else given  # Lagent's description
    kind = tool.get("type", "function")
    if not isinstance(kind, str) or not kind:
        raise ManifestError(f"{where}: 'type' must be a non-empty string, got {kind!r}")
    if kind != "function":
        return dict(tool)
    function = tool.get("function")
    if not isinstance(function, Mapping):
        raise ManifestError(f"{where}: a tool of type 'function' needs a 'function' object")
    name = function.get("name")
    problem = tool_name_problem(name)
    if problem is not None:
        raise ManifestError(f"{where}: {problem}")
    description = function.get("description")
    if description is not None and not isinstance(description, str):
        raise ManifestError(f"{where} ({name}): 'description' must be a string")
    parameters = function.get("parameters")
    if parameters is not None and not isinstance(parameters, Mapping):
        raise ManifestError(f"{where} ({name}): 'parameters' must be a JSON Schema object")
    return tool if "type" in tool and isinstance(tool, dict) else {"type": kind, **tool}


def _from_mcp_tool(item: Any) -> dict[str, Any]:
    # As the official client does for its MCPTool, the MCP SDK's Tool, or the same as a dict.
    function: dict[str, Any] = {"name": field(item, "name")}
    if (description := field(item, "description")) is not None:
        function["description"] = description
    function["parameters"] = field(item, "inputSchema")
    return {"type": "function", "function": function}


def _tool_items(item: Any, where: str, out: list[tuple[str, dict[str, Any]]]) -> None:
    if isinstance(item, Tool):
        out.append((where, item.model_dump(mode="json", by_alias=True, exclude_none=True)))
    elif field(item, "inputSchema") is not None and field(item, "function") is None:
        out.append((where, checked_tool(_from_mcp_tool(item), where)))  # an MCP tool
    elif isinstance(item, Mapping):
        out.append((where, checked_tool(item, where)))
    elif isinstance(item, BaseModel):  # e.g. the official SDK's data_class.Tool
        out.append((where, checked_tool(item.model_dump(mode="json", exclude_none=True), where)))
    elif callable(getattr(item, "to_tools", None)):
        for index, tool in enumerate(item.to_tools()):
            _tool_items(tool, f"{where}.to_tools()[{index}]", out)
    elif callable(getattr(item, "to_tool", None)):
        _tool_items(item.to_tool(), f"{where}.to_tool()", out)
    elif callable(getattr(item, "tools", None)):  # a ToolRegistry
        _tool_items(list(item.tools()), f"{where}.tools()", out)
    elif isinstance(item, (list, tuple)):
        for index, tool in enumerate(item):
            _tool_items(tool, f"{where}[{index}]", out)
    elif callable(item):
        out.append((where, dict(Manifest.from_function(item))))
    else:
        raise wrong_kind(where, _TOOL, item, error=ManifestError)


def tools_to_wire(tools: ToolsLike, *, where: str = "tools") -> list[dict[str, Any]]:
    """Tools as the wire dicts of a run, names checked valid and unique (dicts kept as given)."""
    out: list[tuple[str, dict[str, Any]]] = []
    if tools is None:
        return []
    if callable(getattr(tools, "to_tools", None)) or callable(getattr(tools, "tools", None)):
        _tool_items(tools, where, out)  # a toolkit or a ToolRegistry
    else:
        for at, item in listed(tools, where=where, what="tools"):
            _tool_items(item, at, out)
    check_unique_names(out)
    return [tool for _, tool in out]


def tool_name(tool: Mapping[str, Any]) -> str | None:
    """A wire tool's function name, if it has one."""
    function = tool.get("function")
    name = function.get("name") if isinstance(function, Mapping) else None
    return name if isinstance(name, str) else None


def check_unique_names(tools: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
    """Raise :class:`ManifestError` naming both origins when two tools share a name."""
    seen: dict[str, str] = {}
    for origin, tool in tools:
        name = tool_name(tool)
        if name is None:
            continue
        if name in seen:
            raise ManifestError(f"tool name {name!r} appears twice: in {seen[name]} and {origin}")
        seen[name] = origin


def _parse_text(text: str) -> Any:
    try:
        return json.loads(unwrap_fence(text.strip()))
    except ValueError as exc:
        raise InvalidRequestError(
            f"tool calls given as text must be JSON (a call or a list of calls): {exc}"
        ) from None
    except RecursionError:  # the parser gives up on deep nesting: bad input, not a crash
        raise InvalidRequestError("tool calls given as text are nested too deeply") from None


def call_items(calls: Any) -> list[Any]:
    """The tool calls in ``calls``, in any shape :mod:`appclient._core._call_shapes` reads."""
    if calls is None:
        return []
    if isinstance(calls, (bytes, bytearray)):
        calls = bytes(calls).decode("utf-8", errors="replace")
    if isinstance(calls, str):
        calls = _parse_text(calls)
    choices = field(calls, "choices")
    if isinstance(choices, Sequence) and not isinstance(choices, str):
        # A chat.completion (dict or openai SDK object): the first choice's message.
        return call_items(field(choices[0], "message") if choices else None)
    if isinstance(calls, (ToolCall, Mapping)):
        if isinstance(calls, Mapping) and "tool_calls" in calls and "function" not in calls:
            return call_items(calls.get("tool_calls"))
        return [calls]
    if isinstance(calls, RunAnswer):
        return list(calls.tool_calls)
    collect = getattr(calls, "collect", None)
    if callable(collect) and not inspect.iscoroutinefunction(collect):
        # A RunStream (read by duck type: the server reads calls here too, and must not
        # import the client). Its calls come with its last event: read the rest first (this
        # also raises for a stream that breaks), or a stream handed over unread gives none.
        return list(collect().tool_calls)
    content = getattr(calls, "content", None)
    if isinstance(content, RunAnswer):  # a non-stream Message
        return list(content.tool_calls)
    if isinstance(calls, Sequence):
        return list(calls)
    if getattr(calls, "function", None) is not None:
        return [calls]
    tool_calls = getattr(calls, "tool_calls", _MISSING)
    if tool_calls is None:
        return []  # a message object without calls, like {"tool_calls": null}
    if isinstance(tool_calls, Sequence) and not isinstance(tool_calls, str):
        return list(tool_calls)  # a stream, an OpenAI message object, ...
    raise wrong_kind(
        "tool calls", "ToolCall objects, dicts, a list of them, their JSON text or a message", calls
    )
