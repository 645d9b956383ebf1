"""Tool calls in the shapes different agents produce, read into one shape.

AppBuilder ``ToolCall`` models (or what holds them), OpenAI-style calls and completions, and
AgentScope, Lagent and InternLM ``{"name", "arguments"|"parameters"}`` lists, as data or JSON
text. Each becomes a :class:`CallRequest` with its raw arguments, decoded later so that a broken
call is reported to the agent instead of failing the round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._manifest._coerce import call_items, field
from ._errors import InvalidRequestError
from ._models import ToolCall

_ARGUMENT_KEYS = ("arguments", "parameters")


@dataclass(frozen=True)
class CallRequest:
    """One tool call in the dispatcher's shape: arguments raw, ``problem`` when malformed.

    A call without an id gets ``call_<position>``; ``arguments_error`` is why the arguments
    could not be decoded, when a ``ToolCall`` already knows it.
    """

    id: str
    name: str
    arguments: Any = None
    problem: str | None = None
    arguments_error: str | None = None


def _from_mapping(data: Mapping[str, Any], position: int) -> CallRequest:
    given_id = data.get("id")
    call_id = given_id if isinstance(given_id, str) and given_id else f"call_{position}"
    function = data.get("function")
    if function is not None:
        name, arguments = field(function, "name"), field(function, "arguments")
    elif "name" in data:
        name = data.get("name")
        arguments = next((data[key] for key in _ARGUMENT_KEYS if key in data), None)
    else:
        keys = ", ".join(repr(k) for k in list(data)[:8]) or "none"
        problem = f"a tool call needs 'function' or 'name' (keys found: {keys})"
        return CallRequest(call_id, "", problem=problem)
    if not isinstance(name, str) or not name:
        return CallRequest(call_id, "", problem="the tool call has no tool name")
    return CallRequest(call_id, name, arguments=arguments)


def _read_one(item: Any, position: int) -> CallRequest:
    if isinstance(item, ToolCall):  # arguments already decoded, or why they could not be
        call = item.function
        return CallRequest(item.id, call.name, call.arguments, None, call.arguments_error)
    if isinstance(item, Mapping):
        return _from_mapping(item, position)
    function = getattr(item, "function", None)
    if function is not None and hasattr(function, "name"):  # an SDK object
        return _from_mapping({"id": getattr(item, "id", None), "function": function}, position)
    problem = f"expected a tool call object, got {type(item).__qualname__}"
    return CallRequest(f"call_{position}", "", problem=problem)


def read_calls(calls: Any) -> list[CallRequest]:
    """One :class:`CallRequest` per call, in order; a malformed one has ``problem`` set."""
    return [_read_one(item, position) for position, item in enumerate(call_items(calls))]


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
        max_calls: The most calls (distinct indices) a reply may hold; one more raises.
    """

    def __init__(self, *, max_argument_chars: int = 1_000_000, max_calls: int = 128) -> None:
        self._max = max_argument_chars
        self._max_calls = max_calls
        self._calls: dict[int, dict[str, Any]] = {}

    def add(self, chunk: Any) -> None:
        """Take one chunk (or one choice's delta, or one tool-call delta).

        Raises:
            InvalidRequestError: A call's arguments grew past ``max_argument_chars``, or the
                calls past ``max_calls``.
        """
        choices = field(chunk, "choices")
        if isinstance(choices, Sequence) and not isinstance(choices, str):
            for choice in choices:
                self.add(field(choice, "delta"))
            return
        deltas = field(chunk, "tool_calls")
        if not isinstance(deltas, Sequence) or isinstance(deltas, str):
            return
        for position, delta in enumerate(deltas):
            index = field(delta, "index")
            index = index if isinstance(index, int) else position
            if index not in self._calls and len(self._calls) >= self._max_calls:
                raise InvalidRequestError(
                    f"streamed tool call {index} is one more than the {self._max_calls} allowed"
                )
            call = self._calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
            function = field(delta, "function")
            for key, part in (
                ("id", field(delta, "id")),
                ("name", field(function, "name")),
                ("arguments", field(function, "arguments")),
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
                {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}
            )
            for id_, name, arguments in self.raw_calls
        ]
