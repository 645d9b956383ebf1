"""The request bodies appclient sends, built and checked before sending (pure).

Caller arguments are checked and turned into the exact JSON the official Python client sends
(docs/protocol.md section 3: all 13 run keys, ``file_ids: []`` and ``tools: []`` when absent, the
other optional keys ``null``), raising :class:`~appclient.InvalidRequestError` naming the bad
argument before anything is sent. Dict tools are checked but sent exactly as given, so the
official Manifest shape reaches the server unchanged. Response bodies are read by
:mod:`appclient._core._http_answers`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, TypeAlias, TypedDict, get_args

from pydantic import BaseModel, ValidationError

from .._manifest import Manifest
from .._tools._tool_failures import suggest_names
from ._constants import tool_name_problem
from ._errors import InvalidRequestError
from ._models import FeedbackType, Tool, ToolChoice, ToolOutput

__all__ = [
    "FEEDBACK_TYPES",
    "RunOptions",
    "ToolChoiceLike",
    "ToolOutputLike",
    "ToolsLike",
    "encode_json",
    "feedback_body",
    "require_text",
    "run_body",
    "tool_choice_to_wire",
    "tool_outputs_to_wire",
    "tools_to_wire",
    "unexpected_options",
]

#: Any single tool: a dict, a :class:`Tool`, another pydantic model of that shape, an MCP tool
#: (``name``, ``description``, ``inputSchema``), a plain function (described by
#: ``appclient.Manifest``), or an object with ``to_tool()``/``to_tools()``.
ToolsLike: TypeAlias = Any
ToolOutputLike: TypeAlias = "ToolOutput | Mapping[str, Any] | BaseModel"
#: ``"auto"``, a tool's name (forces it), a dict or a :class:`ToolChoice`.
ToolChoiceLike: TypeAlias = "str | ToolChoice | Mapping[str, Any] | BaseModel"


class RunOptions(TypedDict, total=False):
    """The optional arguments of a run, in one place for ``AppClient.run`` and its async twin.

    Attributes:
        file_ids: Ids from ``upload_file`` the app may read.
        tools: Local tools the agent may call: dicts, :class:`Tool` models, MCP tools
            (``name``, ``description``, ``inputSchema``), plain functions (described from
            their signature and docstring), or a registry.
        tool_outputs: Results of the last round's tool calls (dicts or :class:`ToolOutput`),
            all of them in one run.
        tool_choice: ``"auto"``, or the name of one of the run's tools to force it, or the
            dict form ``{"type": "function", "function": {"name": ..., "input": {...}}}``
            (also for a cloud component, which is not among the run's tools).
        end_user_id: The end user on whose behalf the app runs.
        action: Passed through to the app.
        parameters: Passed through to the app.
        custom_metadata: Passed through to the app.
        mcp_authorization: MCP authorization settings (a list of dicts), as the official
            client sends them.
    """

    file_ids: Iterable[str] | None
    tools: ToolsLike
    tool_outputs: Iterable[ToolOutputLike] | None
    tool_choice: ToolChoiceLike | None
    end_user_id: str | None
    action: Mapping[str, Any] | None
    parameters: Mapping[str, Any] | None
    custom_metadata: Mapping[str, Any] | None
    mcp_authorization: Iterable[Mapping[str, Any]] | None


def unexpected_options(
    options: Mapping[str, object], allowed: Iterable[str], *, where: str
) -> TypeError | None:
    """The ``TypeError`` Python would raise for an unknown keyword, with a "did you mean".

    ``**options`` accepts any name; this keeps a typo (``tool=``) from passing silently.
    """
    names = list(allowed)
    for name in options:
        if name not in names:
            close = suggest_names(name, names)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            return TypeError(f"{where}() got an unexpected keyword argument {name!r}{hint}")
    return None


#: The feedback kinds, read from the wire model so the two cannot drift apart.
FEEDBACK_TYPES: Final[tuple[str, ...]] = get_args(FeedbackType)
# Built once: json.dumps builds a new encoder on every call that passes options.
_ENCODER: Final = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def require_text(value: object, *, name: str) -> str:
    """Return ``value`` if it is a non-blank string, else raise naming the argument."""
    if not isinstance(value, str):
        raise InvalidRequestError(f"{name} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidRequestError(f"{name} must not be empty")
    return value


def _optional_mapping(value: object, *, name: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, BaseModel):  # e.g. the official SDK's data_class.CustomMetadata
        return value.model_dump(mode="json", exclude_none=True)
    if not isinstance(value, Mapping):
        raise InvalidRequestError(f"{name} must be a dict or None, got {type(value).__name__}")
    return dict(value)


def _optional_mapping_list(value: object, *, name: str) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise InvalidRequestError(f"{name} must be a list of dicts, got {type(value).__name__}")
    items = []
    for index, item in enumerate(value):
        mapping = _optional_mapping(item, name=f"{name}[{index}]")
        if mapping is None:
            raise InvalidRequestError(f"{name}[{index}] must be a dict, got None")
        items.append(mapping)
    return items


def _string_list(value: object, *, name: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InvalidRequestError(f"{name} must be a list of strings, got {type(value).__name__}")
    items = list(value)
    for index, item in enumerate(items):
        if not isinstance(item, str) or not item:
            raise InvalidRequestError(f"{name}[{index}] must be a non-empty string, got {item!r}")
    return items


def _tool_from_function(func: Callable[..., Any]) -> dict[str, Any]:
    tool: dict[str, Any] = Manifest.from_function(func)
    return tool


def _checked_tool(tool: Mapping[str, Any], where: str) -> dict[str, Any]:
    kind = tool.get("type", "function")
    if not isinstance(kind, str) or not kind:
        raise InvalidRequestError(f"{where}: 'type' must be a non-empty string, got {kind!r}")
    if kind != "function":
        return dict(tool)
    function = tool.get("function")
    if not isinstance(function, Mapping):
        raise InvalidRequestError(f"{where}: a tool of type 'function' needs a 'function' object")
    name = function.get("name")
    problem = tool_name_problem(name)
    if problem is not None:
        raise InvalidRequestError(f"{where}: {problem}")
    description = function.get("description")
    if description is not None and not isinstance(description, str):
        raise InvalidRequestError(f"{where} ({name}): 'description' must be a string")
    parameters = function.get("parameters")
    if parameters is not None and not isinstance(parameters, Mapping):
        raise InvalidRequestError(f"{where} ({name}): 'parameters' must be a JSON Schema object")
    return tool if "type" in tool and isinstance(tool, dict) else {"type": kind, **tool}


def _from_mcp_tool(item: Any) -> dict[str, Any]:
    # The official client turns an MCP tool (its data_class.MCPTool, the MCP SDK's Tool from
    # list_tools(), or the same as a dict) into a function tool whose parameters are the
    # input schema.
    read = item.get if isinstance(item, Mapping) else functools.partial(getattr, item)
    function: dict[str, Any] = {"name": read("name", None)}
    description = read("description", None)
    if description is not None:
        function["description"] = description
    function["parameters"] = read("inputSchema", None)
    return {"type": "function", "function": function}


def _tool_items(item: Any, where: str, out: list[dict[str, Any]]) -> None:
    if isinstance(item, Tool):
        out.append(item.model_dump(mode="json", by_alias=True, exclude_none=True))
    elif isinstance(item, Mapping) and "inputSchema" in item and "function" not in item:
        out.append(_checked_tool(_from_mcp_tool(item), where))
    elif isinstance(item, Mapping):
        out.append(_checked_tool(item, where))
    elif hasattr(item, "inputSchema") and not hasattr(item, "function"):
        out.append(_checked_tool(_from_mcp_tool(item), where))
    elif isinstance(item, BaseModel):  # e.g. the official SDK's data_class.Tool
        out.append(_checked_tool(item.model_dump(mode="json", exclude_none=True), where))
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
        _tool_items(_tool_from_function(item), where, out)
    else:
        raise InvalidRequestError(
            f"{where}: expected a tool dict, a Tool, a function or a tool registry, "
            f"got {type(item).__name__}"
        )


def tools_to_wire(tools: ToolsLike) -> list[dict[str, Any]]:
    """Turn the ``tools`` argument into wire tool dicts, checking names are valid and unique.

    Args:
        tools: ``None``, a list of tool-likes (dicts, :class:`Tool` models, MCP tools,
            functions, objects with ``to_tool()``/``to_tools()``, nested lists), or a registry
            with ``tools()``.

    Returns:
        The tools to send (``[]`` for ``None``); dicts are sent as given.

    Raises:
        InvalidRequestError: A tool has the wrong shape, an invalid or repeated name.
    """
    if tools is None:
        return []
    out: list[dict[str, Any]] = []
    if callable(getattr(tools, "to_tools", None)) or callable(getattr(tools, "tools", None)):
        _tool_items(tools, "tools", out)  # a toolkit or a ToolRegistry
    elif isinstance(tools, (str, bytes, Mapping, BaseModel)) or not isinstance(tools, Iterable):
        raise InvalidRequestError(
            f"tools must be a list of tools, got a single {type(tools).__name__}; wrap it in a list"
        )
    else:  # a list, tuple or any other iterable of tool-likes
        for index, item in enumerate(tools):
            _tool_items(item, f"tools[{index}]", out)
    seen: set[str] = set()
    for tool in out:
        function = tool.get("function")
        name = function.get("name") if isinstance(function, Mapping) else None
        if isinstance(name, str):
            if name in seen:
                raise InvalidRequestError(f"tool name {name!r} is used twice in one run")
            seen.add(name)
    return out


def _validated(model: type[BaseModel], value: Any, where: str) -> dict[str, Any]:
    if isinstance(value, BaseModel) and not isinstance(value, model):
        value = value.model_dump(mode="json")
    try:
        instance = value if isinstance(value, model) else model.model_validate(value)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'value'}: {error['msg']}"
            for error in exc.errors()
        )
        raise InvalidRequestError(f"{where} is invalid: {problems}") from None
    return instance.model_dump(mode="json", by_alias=True)


def tool_outputs_to_wire(outputs: Iterable[ToolOutputLike] | None) -> list[dict[str, Any]] | None:
    """Turn ``tool_outputs`` (dicts or :class:`ToolOutput` models) into wire dicts.

    Raises:
        InvalidRequestError: An item is not a tool output (naming its index and field).
    """
    if outputs is None:
        return None
    if isinstance(outputs, (str, bytes, Mapping, BaseModel)) or not isinstance(outputs, Iterable):
        raise InvalidRequestError(
            f"tool_outputs must be a list of tool outputs, got {type(outputs).__name__}"
        )
    wire = []
    for index, item in enumerate(outputs):
        if not isinstance(item, (Mapping, BaseModel)):
            raise InvalidRequestError(
                f"tool_outputs[{index}] must be a dict or ToolOutput, got {type(item).__name__}"
            )
        given = item.get("output", "") if isinstance(item, Mapping) else ""
        if not isinstance(given, (str, dict, list)):  # what ToolOutput accepts
            raise InvalidRequestError(
                f"tool_outputs[{index}].output must be text, got {type(given).__name__}: send "
                "str(value), or json.dumps(value) for structured data (a dict or list is sent "
                "as JSON for you)"
            )
        output = _validated(ToolOutput, item, f"tool_outputs[{index}]")
        if not output["tool_call_id"]:
            raise InvalidRequestError(f"tool_outputs[{index}].tool_call_id must not be empty")
        wire.append(output)
    return wire


def tool_choice_to_wire(
    choice: ToolChoiceLike | None, *, tool_names: Sequence[str] = ()
) -> dict[str, Any] | None:
    """Turn ``tool_choice`` into its wire dict.

    Args:
        choice: ``"auto"``, the name of a tool to force, a dict or a :class:`ToolChoice`.
        tool_names: The names of the run's tools; a name given as a string must be one of
            them when there are any (force a cloud component with the dict form).

    Raises:
        InvalidRequestError: The type is not ``auto``/``function``, a forced choice names no
            tool, or a name given as a string is not among the run's tools.
    """
    if choice is None:
        return None
    if isinstance(choice, str):
        if choice == "auto":
            return _validated(ToolChoice, {"type": "auto"}, "tool_choice")
        if tool_names and choice not in tool_names:
            close = suggest_names(choice, tool_names)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise InvalidRequestError(
                f"tool_choice {choice!r} is not one of this run's tools "
                f"({', '.join(tool_names)}){hint}"
            )
        choice = {"type": "function", "function": {"name": choice}}
    if not isinstance(choice, (Mapping, BaseModel)):
        raise InvalidRequestError(
            f"tool_choice must be 'auto', a tool name, a dict or a ToolChoice, got "
            f"{type(choice).__name__}"
        )
    return _validated(ToolChoice, choice, "tool_choice")


def run_body(
    *,
    app_id: str,
    conversation_id: str,
    query: str,
    stream: bool,
    file_ids: Iterable[str] | None = None,
    tools: ToolsLike = None,
    tool_outputs: Iterable[ToolOutputLike] | None = None,
    tool_choice: ToolChoiceLike | None = None,
    end_user_id: str | None = None,
    action: Mapping[str, Any] | None = None,
    parameters: Mapping[str, Any] | None = None,
    custom_metadata: Mapping[str, Any] | None = None,
    mcp_authorization: Iterable[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Check the arguments of a run and return its body, keys as the official client orders.

    The optional arguments are those of :class:`RunOptions`.

    Raises:
        InvalidRequestError: The conversation id is empty, there is neither a query, tool
            outputs nor a forced tool choice, or any argument has the wrong type or shape.
    """
    require_text(conversation_id, name="conversation_id")
    if not isinstance(query, str):
        raise InvalidRequestError(f"query must be a string, got {type(query).__name__}")
    if not isinstance(stream, bool):
        raise InvalidRequestError(f"stream must be True or False, got {stream!r}")
    outputs = tool_outputs_to_wire(tool_outputs)
    wire_tools = tools_to_wire(tools)
    choice = tool_choice_to_wire(tool_choice, tool_names=[_name_of(t) for t in wire_tools])
    # A forced tool carries its own input, so it needs no query (the seed's ToolChoice call).
    forced = choice is not None and choice.get("type") == "function"
    if not query.strip() and not outputs and not forced:
        raise InvalidRequestError(
            "a run needs a query, tool_outputs or a forced tool_choice (all are empty)"
        )
    if end_user_id is not None:
        require_text(end_user_id, name="end_user_id")
    return {
        "query": query,
        "stream": stream,
        "conversation_id": conversation_id,
        "file_ids": _string_list(file_ids, name="file_ids"),
        "app_id": app_id,
        "tools": wire_tools,
        "tool_outputs": outputs,
        "tool_choice": choice,
        "end_user_id": end_user_id,
        "action": _optional_mapping(action, name="action"),
        "mcp_authorization": _optional_mapping_list(mcp_authorization, name="mcp_authorization"),
        "parameters": _optional_mapping(parameters, name="parameters"),
        "custom_metadata": _optional_mapping(custom_metadata, name="custom_metadata"),
    }


def _name_of(tool: Mapping[str, Any]) -> str:
    function = tool.get("function")
    name = function.get("name") if isinstance(function, Mapping) else None
    return name if isinstance(name, str) else ""


def feedback_body(
    *,
    app_id: str,
    conversation_id: str,
    message_id: str,
    type: str,  # the wire and the official client call it "type"
    flag: Iterable[str] | None,
    reason: str | None,
) -> dict[str, Any]:
    """Check feedback arguments and return the body, leaving out ``None`` values.

    Raises:
        InvalidRequestError: An id is empty, ``type`` is not one of :data:`FEEDBACK_TYPES`, or
            ``flag``/``reason`` have the wrong type.
    """
    require_text(conversation_id, name="conversation_id")
    require_text(message_id, name="message_id")
    if type not in FEEDBACK_TYPES:
        raise InvalidRequestError(f"type must be one of {', '.join(FEEDBACK_TYPES)}; got {type!r}")
    body: dict[str, Any] = {
        "app_id": app_id,
        "conversation_id": conversation_id,
        "message_id": message_id,
        "type": type,
    }
    if flag is not None:
        body["flag"] = _string_list(flag, name="flag")
    if reason is not None:
        if not isinstance(reason, str):
            raise InvalidRequestError(f"reason must be a string, got {reason.__class__.__name__}")
        body["reason"] = reason
    return body


def encode_json(body: Mapping[str, Any]) -> bytes:
    """Serialise a request body compactly and ASCII-only (escaped), as the official client does.

    Raises:
        InvalidRequestError: A value is not JSON-serialisable (or is NaN/infinite).
    """
    try:
        return _ENCODER.encode(body).encode("ascii")
    except (TypeError, ValueError) as exc:
        raise InvalidRequestError(f"the request body is not JSON-serialisable: {exc}") from exc
