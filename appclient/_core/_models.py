"""Wire models of the AppBuilder conversation protocol (docs/protocol.md sections 2-7).

The one source of truth for the shapes that cross the wire, on both sides. Decoding is
lenient, as the protocol asks: unknown fields are kept (in ``model_extra``), a ``null`` where a
value is promised becomes the default, and ``arguments`` sent as JSON text are parsed.
"""

from __future__ import annotations

import json
import uuid
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    field_validator,
    model_validator,
)
from pydantic_core import core_schema

from ._arguments import ArgumentsDecodeError, decode_arguments
from ._constants import TERMINAL_EVENT_STATUSES

FeedbackType = Literal["upvote", "downvote", "cancel"]
_T = TypeVar("_T")


class _NullIsDefault:
    """``Annotated`` marker: the field also takes ``null``, which :class:`WireModel` replaces."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        return core_schema.nullable_schema(handler(source))


#: A field whose ``null`` on the wire means its default (servers send both).
NullIsDefault = Annotated[_T, _NullIsDefault()]


class WireModel(BaseModel):
    """Base of every wire model: unknown fields kept, ``null`` as the default where marked."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    _null_is_default: ClassVar[tuple[tuple[str, Any], ...]] = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._null_is_default = tuple(
            (name, field)
            for name, field in cls.model_fields.items()
            if any(isinstance(item, _NullIsDefault) for item in field.metadata)
        )

    @model_validator(mode="after")
    def _defaults_for_nulls(self) -> Any:
        # After, not before: a before-step would make pydantic build a dict of every object
        # instead of decoding JSON straight into the model (three times slower per message).
        values = self.__dict__
        for name, field in self._null_is_default:
            if values[name] is None:
                values[name] = field.get_default(call_default_factory=True)
                self.model_fields_set.discard(name)  # as if it had not been sent
        return self


# --- requests ----------------------------------------------------------------------------


class Function(WireModel):
    """A local tool's description: name, what it does, and its JSON Schema parameters."""

    name: str
    description: NullIsDefault[str] = ""
    parameters: NullIsDefault[dict[str, Any]] = Field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )


class Tool(WireModel):
    """A local tool the agent may call: ``{"type": "function", "function": {...}}``."""

    type: NullIsDefault[str] = "function"
    function: Function | None = None

    @model_validator(mode="after")
    def _function_tools_need_a_function(self) -> Tool:
        if self.type == "function" and self.function is None:
            raise ValueError("a tool of type 'function' needs a 'function' object")
        return self


class ToolOutput(WireModel):
    """The result of one tool call, sent back to the agent as text.

    ``output`` must be text; a dict or list given here is serialised as JSON (non-ASCII kept),
    which is what the protocol recommends for structured results.
    """

    tool_call_id: str
    output: str

    @field_validator("output", mode="before")
    @classmethod
    def _structured_output_as_json(cls, value: Any) -> Any:
        if isinstance(value, (dict, list)):
            return json.dumps(value, ensure_ascii=False)
        return value


class ToolChoiceFunction(WireModel):
    """The tool a :class:`ToolChoice` forces, with the arguments to call it with."""

    name: NullIsDefault[str] = ""
    input: dict[str, Any] | None = None


class ToolChoice(WireModel):
    """Let the agent choose (``auto``) or force one tool (``function``)."""

    type: NullIsDefault[Literal["auto", "function"]] = "auto"
    function: ToolChoiceFunction | None = None

    @model_validator(mode="after")
    def _forced_choice_names_a_tool(self) -> ToolChoice:
        if self.type == "function" and (self.function is None or not self.function.name):
            raise ValueError("tool_choice of type 'function' needs function.name")
        return self


class RunRequest(WireModel):
    """The body of ``POST /v2/app/conversation/runs`` (docs/protocol.md section 3)."""

    app_id: str
    conversation_id: str
    query: NullIsDefault[str] = ""
    stream: NullIsDefault[bool] = False
    file_ids: list[str] | None = None
    tools: list[Tool] | None = None
    tool_outputs: list[ToolOutput] | None = None
    tool_choice: ToolChoice | None = None
    end_user_id: str | None = None
    action: dict[str, Any] | None = None
    parameters: dict[str, Any] | None = None
    custom_metadata: dict[str, Any] | None = None
    mcp_authorization: Any = None


class CreateConversationRequest(WireModel):
    """The body of ``POST /v2/app/conversation``."""

    app_id: str


class FeedbackRequest(WireModel):
    """The body of ``POST /v2/app/conversation/feedback``."""

    app_id: str
    conversation_id: str
    message_id: str
    type: FeedbackType
    flag: list[str] | None = None
    reason: str | None = None


# --- responses ---------------------------------------------------------------------------


class FunctionCall(WireModel):
    """The function part of a tool call: the tool's name and the arguments to call it with.

    ``arguments`` is always a dict. Text is decoded as ``decode_arguments`` does (JSON, a
    fenced block, JSON in prose, ``key=value`` lists); ``null`` or ``""`` mean no arguments.
    Text that is none of these leaves ``arguments`` empty and keeps the reason in
    ``arguments_error`` so a dispatcher can tell the agent what was wrong.
    """

    name: str
    arguments: NullIsDefault[dict[str, Any]] = Field(default_factory=dict)
    arguments_error: str | None = Field(default=None, exclude=True, repr=False)

    def __init__(self, *args: Any, **data: Any) -> None:
        if args:  # LazyLLM's FunctionCall(llm, tools) is a runner; this is a wire value
            raise TypeError(
                "appclient.FunctionCall is the name and arguments of one tool call (a wire "
                "value, built by keyword), not LazyLLM's FunctionCall(llm, tools) runner; to "
                "run tools for an agent use client.run_until_answer(query, tools=[...]), or "
                "registry.dispatch(tool_calls) for calls you already have"
            )
        super().__init__(**data)

    @model_validator(mode="before")
    @classmethod
    def _parse_arguments_text(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        raw = data.get("arguments")
        if isinstance(raw, dict):
            return data
        try:  # the one argument decoder: JSON text, fenced, in prose, key=value lists
            return {**data, "arguments": decode_arguments(raw)}
        except ArgumentsDecodeError as exc:
            return {**data, "arguments": {}, "arguments_error": str(exc)}


class ToolCall(WireModel):
    """One call of a local tool the agent asks the program to make."""

    id: str
    type: NullIsDefault[str] = "function"
    function: FunctionCall


class Usage(WireModel):
    """Token usage reported with an event."""

    prompt_tokens: NullIsDefault[int] = 0
    completion_tokens: NullIsDefault[int] = 0
    total_tokens: NullIsDefault[int] = 0
    name: NullIsDefault[str] = ""


class Event(WireModel):
    """One event of a run: a status change, a text delta, a component call or an interrupt.

    The wire names are the fields; ``code``, ``message``, ``status`` and ``detail`` are the
    official Python SDK's names for the same values.
    """

    event_code: NullIsDefault[int] = 0
    event_message: NullIsDefault[str] = ""
    event_type: NullIsDefault[str] = ""
    event_id: NullIsDefault[str] = ""
    event_status: NullIsDefault[str] = ""
    content_type: NullIsDefault[str] = ""
    outputs: NullIsDefault[dict[str, Any]] = Field(default_factory=dict)
    usage: Usage | None = None
    tool_calls: list[ToolCall] | None = None

    @property
    def code(self) -> int:
        """The event code (0 means ok); the official SDK's name for ``event_code``."""
        return self.event_code

    @property
    def message(self) -> str:
        """The event message; the official SDK's name for ``event_message``."""
        return self.event_message

    @property
    def status(self) -> str:
        """The event status; the official SDK's name for ``event_status``."""
        return self.event_status

    @property
    def detail(self) -> dict[str, Any]:
        """The event outputs; the official SDK's name for ``outputs``."""
        return self.outputs

    @property
    def text(self) -> str:
        """The text of a ``text`` event (``outputs.text``), or ``""`` for other events."""
        value = self.outputs.get("text")
        return value if isinstance(value, str) else ""

    @property
    def is_terminal(self) -> bool:
        """Whether this event ends a run: ``success``, ``interrupt`` or ``error``."""
        return self.event_status in TERMINAL_EVENT_STATUSES

    @property
    def is_error(self) -> bool:
        """Whether this event reports an in-run failure."""
        return self.event_status == "error"


class RunAnswer(WireModel):
    """One run response: the whole non-stream body, or one SSE message of a stream.

    ``events`` is the wire's ``content`` list (``model_dump(by_alias=True)`` writes it back as
    ``content``). In a stream ``answer`` is the delta of that message; in a non-stream body it
    is the whole answer.
    """

    request_id: NullIsDefault[str] = ""
    date: NullIsDefault[str] = ""
    answer: NullIsDefault[str] = ""
    conversation_id: NullIsDefault[str] = ""
    message_id: NullIsDefault[str] = ""
    is_completion: NullIsDefault[bool] = False
    events: NullIsDefault[list[Event]] = Field(default_factory=list, alias="content")

    @property
    def last_event(self) -> Event | None:
        """The last event, which carries the interrupt or the final status."""
        return self.events[-1] if self.events else None

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls the agent asks for: those of the last event that has any."""
        for event in reversed(self.events):
            if event.tool_calls:
                return list(event.tool_calls)
        return []

    @property
    def error_event(self) -> Event | None:
        """The first ``error`` event, if the run failed."""
        return next((event for event in self.events if event.is_error), None)

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON-ready wire form (``content`` for ``events``, no ``None`` for lists)."""
        return self.model_dump(mode="json", by_alias=True)


class Message(BaseModel):
    """What a non-stream run returns, shaped like the official SDK's ``Message``.

    ``msg.content`` is the :class:`RunAnswer`, so the seed code
    ``msg.content.events[-1].tool_calls[-1].id`` and ``msg.content.answer`` work unchanged.
    """

    model_config = ConfigDict(extra="allow")

    content: RunAnswer
    name: str = "msg"
    mtype: str = "AppBuilderClientAnswer"
    id: str = Field(default_factory=lambda: str(uuid.uuid4()))

    # As on a RunStream, so ``msg.answer`` reads an answer everywhere.

    @property
    def answer(self) -> str:
        """The answer text (``content.answer``)."""
        return self.content.answer

    @property
    def events(self) -> list[Event]:
        """The run's events (``content.events``)."""
        return self.content.events

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls the agent asks for (``content.tool_calls``)."""
        return self.content.tool_calls

    @property
    def conversation_id(self) -> str:
        """The conversation (``content.conversation_id``)."""
        return self.content.conversation_id

    @property
    def message_id(self) -> str:
        """The answer's message id, for ``feedback`` (``content.message_id``)."""
        return self.content.message_id

    @property
    def request_id(self) -> str:
        """The server's request id (``content.request_id``)."""
        return self.content.request_id

    @property
    def is_completion(self) -> bool:
        """Whether the answer is complete (``content.is_completion``)."""
        return self.content.is_completion
