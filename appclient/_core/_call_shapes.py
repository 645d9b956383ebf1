"""Tool calls in the shapes different agents produce, read into one shape.

The dispatcher accepts, as Python data or as JSON text (optionally in a fenced block):

- AppBuilder ``ToolCall`` models, a ``RunAnswer``/``Message``/stream (their ``tool_calls``;
  a stream is read to its end first), or their dict form
  ``{"id", "type", "function": {"name", "arguments": {...}}}``;
- OpenAI-style calls, where ``function.arguments`` is a JSON string (dicts or SDK objects),
  and a whole ``chat.completion`` (its first choice's ``message.tool_calls``); streamed
  ``chat.completion.chunk`` deltas are merged by :class:`ToolCallAccumulator` first;
- AgentScope-style lists ``[{"name": ..., "arguments": {...}}]`` (Lagent and InternLM's
  ``"parameters"`` key is read the same way);
- a single call or a list of calls.

Each becomes a :class:`CallRequest` holding the raw arguments (decoded later, so that a
broken call is reported to the agent instead of failing the whole round). Calls without an
id get ``call_<position>``. Pure logic, no I/O beyond reading the rest of a stream.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._arguments import unwrap_fence
from ._errors import InvalidRequestError
from ._models import RunAnswer, ToolCall

__all__ = ["CallRequest", "ToolCallAccumulator", "read_calls"]

_ARGUMENT_KEYS = ("arguments", "parameters")
_MISSING = object()


@dataclass(frozen=True)
class CallRequest:
    """One tool call in the dispatcher's own shape.

    Attributes:
        id: The tool call id (``call_<position>`` when the input had none).
        name: The tool name ("" when the input had none).
        arguments: The raw arguments: a dict, JSON text, or anything the agent sent.
        problem: Why the call itself is malformed, when it is.
        arguments_error: Why the arguments could not be decoded, when that is already known.
    """

    id: str
    name: str
    arguments: Any = None
    problem: str | None = None
    arguments_error: str | None = None


def _from_tool_call(call: ToolCall) -> CallRequest:
    function = call.function
    # The wire model already tried to parse text arguments; keep its reason if it failed.
    return CallRequest(
        call.id,
        function.name,
        arguments=function.arguments,
        arguments_error=function.arguments_error,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _from_mapping(data: Mapping[str, Any], position: int) -> CallRequest:
    call_id = _text(data.get("id")) or f"call_{position}"
    function = data.get("function")
    if function is not None:
        if isinstance(function, Mapping):
            name, arguments = function.get("name"), function.get("arguments")
        else:
            name = getattr(function, "name", None)
            arguments = getattr(function, "arguments", None)
    elif "name" in data:
        name = data.get("name")
        arguments = next((data[key] for key in _ARGUMENT_KEYS if key in data), None)
    else:
        keys = ", ".join(repr(k) for k in list(data)[:8]) or "none"
        return CallRequest(
            call_id,
            "",
            problem=f"a tool call needs 'function' or 'name' (keys found: {keys})",
        )
    if not isinstance(name, str) or not name:
        return CallRequest(call_id, "", problem="the tool call has no tool name")
    return CallRequest(call_id, name, arguments=arguments)


def _from_object(call: Any, position: int) -> CallRequest | None:
    function = getattr(call, "function", None)
    if function is None or not hasattr(function, "name"):
        return None
    data = {"id": getattr(call, "id", None), "function": function}
    return _from_mapping(data, position)


def _parse_text(text: str) -> Any:
    try:
        return json.loads(unwrap_fence(text.strip()))
    except ValueError as exc:
        raise InvalidRequestError(
            f"tool calls given as text must be JSON (a call or a list of calls): {exc}"
        ) from None
    except RecursionError:  # the parser gives up on deep nesting: bad input, not a crash
        raise InvalidRequestError("tool calls given as text are nested too deeply") from None


def _items(calls: Any) -> list[Any]:
    if calls is None:
        return []
    if isinstance(calls, (bytes, bytearray)):
        calls = bytes(calls).decode("utf-8", errors="replace")
    if isinstance(calls, str):
        calls = _parse_text(calls)
    choices = (
        calls.get("choices") if isinstance(calls, Mapping) else getattr(calls, "choices", None)
    )
    if isinstance(choices, Sequence) and not isinstance(choices, str):
        # A chat.completion (dict or openai SDK object): the first choice's message.
        first = choices[0] if choices else None
        message = (
            first.get("message") if isinstance(first, Mapping) else getattr(first, "message", None)
        )
        return _items(message)
    if isinstance(calls, (ToolCall, Mapping)):
        if isinstance(calls, Mapping) and "tool_calls" in calls and "function" not in calls:
            return _items(calls.get("tool_calls"))
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
    raise InvalidRequestError(
        f"cannot read tool calls from a {type(calls).__qualname__}; pass ToolCall objects, "
        "dicts, a list of them, their JSON text, or a run's message"
    )


def read_calls(calls: Any) -> list[CallRequest]:
    """Read tool calls given in any supported shape.

    Args:
        calls: A call, a list of calls, their JSON text, or a message/answer/stream holding
            ``tool_calls``.

    Returns:
        One :class:`CallRequest` per call, in the order given. A malformed item becomes a
        request with ``problem`` set, so it is answered with an error output in its place.

    Raises:
        InvalidRequestError: ``calls`` as a whole cannot be read (text that is not JSON, an
            unsupported type).
    """
    requests: list[CallRequest] = []
    for position, item in enumerate(_items(calls)):
        if isinstance(item, ToolCall):
            requests.append(_from_tool_call(item))
        elif isinstance(item, Mapping):
            requests.append(_from_mapping(item, position))
        elif (request := _from_object(item, position)) is not None:
            requests.append(request)
        else:
            requests.append(
                CallRequest(
                    f"call_{position}",
                    "",
                    problem=f"expected a tool call object, got {type(item).__qualname__}",
                )
            )
    return requests


def _field(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)


class ToolCallAccumulator:
    """Merges streamed ``chat.completion.chunk`` deltas into whole tool calls.

    An OpenAI-compatible stream sends each tool call in pieces: the first delta of a call
    carries its ``index``, ``id`` and ``function.name``, later ones more ``function.arguments``
    text for the same index. Feed every chunk (a dict or an ``openai`` SDK object; a chunk
    without tool calls is fine) to :meth:`add`, then read :attr:`tool_calls`::

        accumulator = ToolCallAccumulator()
        for chunk in client.chat.completions.create(..., stream=True):
            accumulator.add(chunk)
        outputs = registry.dispatch(accumulator.tool_calls)

    Args:
        max_argument_chars: The longest arguments text one call may grow to; past it
            :meth:`add` raises (a model that never stops must not fill memory).
    """

    def __init__(self, *, max_argument_chars: int = 1_000_000) -> None:
        self._max = max_argument_chars
        self._calls: dict[int, dict[str, Any]] = {}

    def add(self, chunk: Any) -> None:
        """Take one chunk (or one choice's delta, or one tool-call delta).

        Raises:
            InvalidRequestError: A call's arguments grew past ``max_argument_chars``.
        """
        choices = _field(chunk, "choices")
        if isinstance(choices, Sequence) and not isinstance(choices, str):
            for choice in choices:
                self.add(_field(choice, "delta"))
            return
        deltas = _field(chunk, "tool_calls")
        if not isinstance(deltas, Sequence) or isinstance(deltas, str):
            return
        for position, delta in enumerate(deltas):
            index = _field(delta, "index")
            index = index if isinstance(index, int) else position
            call = self._calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
            function = _field(delta, "function")
            for key, part in (
                ("id", _field(delta, "id")),
                ("name", _field(function, "name")),
                ("arguments", _field(function, "arguments")),
            ):
                if isinstance(part, str) and part:
                    # Ids and names come whole in one delta (some servers repeat them).
                    call[key] = call[key] + part if key == "arguments" else part
            if len(call["arguments"]) > self._max:
                raise InvalidRequestError(
                    f"the arguments of streamed tool call {index} passed {self._max:,} characters"
                )

    @property
    def raw_calls(self) -> list[tuple[str, str, str]]:
        """The calls as sent: ``(id, name, arguments text)``, in index order."""
        return [
            (call["id"] or f"call_{index}", call["name"], call["arguments"])
            for index, call in sorted(self._calls.items())
        ]

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The calls so far, in index order, arguments parsed (see ``FunctionCall``)."""
        return [
            ToolCall.model_validate(
                {
                    "id": call["id"] or f"call_{index}",
                    "type": "function",
                    "function": {"name": call["name"], "arguments": call["arguments"]},
                }
            )
            for index, call in sorted(self._calls.items())
        ]
