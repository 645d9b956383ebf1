"""The request bodies appclient sends, built and checked before sending (pure).

The exact JSON the official Python client sends (docs/protocol.md section 3: all 13 run keys,
``file_ids: []`` and ``tools: []`` when absent, the other optional keys ``null``); a bad
argument is an :class:`~appclient.InvalidRequestError` naming it. Dict tools are sent as given.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeAlias, TypedDict, get_args

from pydantic import BaseModel, ValidationError

from .._manifest._coerce import ToolsLike, listed, tool_name, tools_to_wire
from ._errors import InvalidRequestError, did_you_mean, validation_problems, wrong_kind
from ._models import FeedbackType, ToolChoice, ToolOutput

if TYPE_CHECKING:
    from typing_extensions import Unpack


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
            hint = did_you_mean(name, names)
            return TypeError(f"{where}() got an unexpected keyword argument {name!r}{hint}")
    return None


#: The feedback kinds, read from the wire model so the two cannot drift apart.
FEEDBACK_TYPES: Final[tuple[str, ...]] = get_args(FeedbackType)
_TEXT: Final = (
    "text (send str(value), or json.dumps(value) for structured data; a dict or list is sent "
    "as JSON for you)"
)
# Built once: json.dumps builds a new encoder on every call that passes options.
_ENCODER: Final = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def require_text(value: object, *, name: str) -> str:
    """Return ``value`` if it is a non-blank string, else raise naming the argument."""
    if not isinstance(value, str):
        raise wrong_kind(name, "a string", value)
    if not value.strip():
        raise InvalidRequestError(f"{name} must not be empty")
    return value


def _optional_mapping(value: object, *, name: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if isinstance(value, BaseModel):  # e.g. the official SDK's data_class.CustomMetadata
        return value.model_dump(mode="json", exclude_none=True)
    if not isinstance(value, Mapping):
        raise wrong_kind(name, "a dict or None", value)
    return dict(value)


def _optional_mapping_list(value: object, *, name: str) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    items = []
    for where, item in listed(value, where=name, what="dicts"):
        mapping = _optional_mapping(item, name=where)
        if mapping is None:
            raise wrong_kind(where, "a dict", item)
        items.append(mapping)
    return items


def _string_list(value: object, *, name: str) -> list[str]:
    if value is None:
        return []
    items = listed(value, where=name, what="strings")
    for where, item in items:
        if not isinstance(item, str) or not item:
            raise InvalidRequestError(f"{where} must be a non-empty string, got {item!r}")
    return [item for _, item in items]


def _validated(model: type[BaseModel], value: Any, where: str) -> dict[str, Any]:
    if isinstance(value, BaseModel) and not isinstance(value, model):
        value = value.model_dump(mode="json")
    try:
        instance = value if isinstance(value, model) else model.model_validate(value)
    except ValidationError as exc:
        problems = validation_problems(exc, "value")
        raise InvalidRequestError(f"{where} is invalid: {problems}") from None
    return instance.model_dump(mode="json", by_alias=True)


def tool_outputs_to_wire(outputs: Iterable[ToolOutputLike] | None) -> list[dict[str, Any]] | None:
    """Turn ``tool_outputs`` (dicts or :class:`ToolOutput` models) into wire dicts."""
    if outputs is None:
        return None
    wire = []
    for where, item in listed(outputs, where="tool_outputs", what="tool outputs"):
        if not isinstance(item, (Mapping, BaseModel)):
            raise wrong_kind(where, "a dict or ToolOutput", item)
        given = item.get("output", "") if isinstance(item, Mapping) else ""
        if not isinstance(given, (str, dict, list)):  # what ToolOutput accepts
            raise wrong_kind(f"{where}.output", _TEXT, given)
        output = _validated(ToolOutput, item, where)
        if not output["tool_call_id"]:
            raise InvalidRequestError(f"{where}.tool_call_id must not be empty")
        wire.append(output)
    return wire


def tool_choice_to_wire(
    choice: ToolChoiceLike | None, *, tool_names: Sequence[str] = ()
) -> dict[str, Any] | None:
    """Turn ``tool_choice`` into its wire dict; a bare name must be one of ``tool_names``.

    A cloud component, not among the run's tools, is forced with the dict form.
    """
    if choice is None:
        return None
    if choice == "auto":
        choice = {"type": "auto"}
    elif isinstance(choice, str):
        if tool_names and choice not in tool_names:
            hint = did_you_mean(choice, tool_names)
            raise InvalidRequestError(
                f"tool_choice {choice!r} is not one of this run's tools "
                f"({', '.join(tool_names)}){hint}"
            )
        choice = {"type": "function", "function": {"name": choice}}
    if not isinstance(choice, (Mapping, BaseModel)):
        raise wrong_kind("tool_choice", "'auto', a tool name, a dict or a ToolChoice", choice)
    return _validated(ToolChoice, choice, "tool_choice")


def run_body(
    *, app_id: str, conversation_id: str, query: str, stream: bool, **options: Unpack[RunOptions]
) -> dict[str, Any]:
    """Check the arguments of a run and return its body, keys as the official client orders."""
    require_text(conversation_id, name="conversation_id")
    if not isinstance(query, str):
        raise wrong_kind("query", "a string", query)
    if not isinstance(stream, bool):
        raise InvalidRequestError(f"stream must be True or False, got {stream!r}")
    outputs = tool_outputs_to_wire(options.get("tool_outputs"))
    wire_tools = tools_to_wire(options.get("tools"))
    names = [name for tool in wire_tools if (name := tool_name(tool))]
    choice = tool_choice_to_wire(options.get("tool_choice"), tool_names=names)
    # A forced tool carries its own input, so it needs no query (the seed's ToolChoice call).
    forced = choice is not None and choice.get("type") == "function"
    if not query.strip() and not outputs and not forced:
        raise InvalidRequestError(
            "a run needs a query, tool_outputs or a forced tool_choice (all are empty)"
        )
    end_user_id = options.get("end_user_id")
    if end_user_id is not None:
        require_text(end_user_id, name="end_user_id")
    return {
        "query": query,
        "stream": stream,
        "conversation_id": conversation_id,
        "file_ids": _string_list(options.get("file_ids"), name="file_ids"),
        "app_id": app_id,
        "tools": wire_tools,
        "tool_outputs": outputs,
        "tool_choice": choice,
        "end_user_id": end_user_id,
        "action": _optional_mapping(options.get("action"), name="action"),
        "mcp_authorization": _optional_mapping_list(
            options.get("mcp_authorization"), name="mcp_authorization"
        ),
        "parameters": _optional_mapping(options.get("parameters"), name="parameters"),
        "custom_metadata": _optional_mapping(
            options.get("custom_metadata"), name="custom_metadata"
        ),
    }


def feedback_body(
    *,
    app_id: str,
    conversation_id: str,
    message_id: str,
    type: str,  # the wire and the official client call it "type"
    flag: Iterable[str] | None,
    reason: str | None,
) -> dict[str, Any]:
    """Check feedback arguments and return the body, leaving out ``None`` values."""
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
            raise wrong_kind("reason", "a string", reason)
        body["reason"] = reason
    return body


def encode_json(body: Mapping[str, Any]) -> bytes:
    """Serialise a request body compactly and ASCII-only (escaped), as the official client does."""
    try:
        return _ENCODER.encode(body).encode("ascii")
    except (TypeError, ValueError) as exc:
        raise InvalidRequestError(f"the request body is not JSON-serialisable: {exc}") from exc
