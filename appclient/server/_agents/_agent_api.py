"""The small interface between the reference server's run engine and its agents (pure data).

An agent is asked, over and over within a run, *given the query, the tools and the results
so far, what next?*, and answers with a :class:`Decision`; the run engine does the rest, so
agents never see HTTP, stores or threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..._core._models import Tool, ToolChoice

#: Longest memo (:attr:`Decision.memo`) the server keeps for an agent within a turn.
MAX_MEMO_CHARS = 64 * 1024


@dataclass(frozen=True, slots=True)
class ComponentInfo:
    """A cloud component the server can run itself, described like a tool."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True, slots=True)
class PlannedCall:
    """One call an agent wants made.

    Attributes:
        name: A local tool's name or a cloud component's name.
        arguments: The arguments, a JSON object.
        cloud: True for a cloud component (the server runs it), False for a local tool
            (the program runs it after an interrupt).
    """

    name: str
    arguments: dict[str, Any]
    cloud: bool = False


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The result of a call made earlier in this turn (local output or cloud result)."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    output: str
    cloud: bool = False


@dataclass(frozen=True, slots=True)
class Turn:
    """One finished exchange of the conversation: what the user asked, what the agent said."""

    query: str
    answer: str


@dataclass(frozen=True, slots=True)
class AgentInput:
    """Everything an agent may base its next decision on.

    Attributes:
        query: The user's query that started the current turn (also while tool outputs are
            being submitted, when the run request itself has no query).
        tools: The conversation's local tools, normalised to JSON Schema.
        components: The cloud components this server offers.
        results: Results of calls made so far in this turn, in the order they were made.
        tool_choice: The run's ToolChoice, given only for the first decision of a turn.
        history: Earlier finished turns of the conversation, oldest first.
        file_names: Names of the files attached to the turn via ``file_ids``.
        end_user_id: The end user the app runs for, when the request named one.
        memo: What the agent noted for itself earlier in this turn (:attr:`Decision.memo`),
            kept by the server across the turn's interrupts: a plan, evidence so far.
    """

    query: str
    tools: tuple[Tool, ...] = ()
    components: tuple[ComponentInfo, ...] = ()
    results: tuple[ToolResult, ...] = ()
    tool_choice: ToolChoice | None = None
    history: tuple[Turn, ...] = ()
    file_names: tuple[str, ...] = ()
    end_user_id: str | None = None
    memo: str = ""


@dataclass(frozen=True, slots=True)
class Decision:
    """What the agent does next: make calls, or answer.

    Attributes:
        calls: Calls to make, cloud ones first; the local ones become one interrupt.
        answer: The turn's final text, when there are no calls.
        thought: A short reason, shown in the interrupt's ``function_call.thought``.
        memo: A note for the agent's next decision in this turn (``""`` keeps the last one);
            the server stores it with the turn, at most ``MAX_MEMO_CHARS`` characters.
        usage: Token usage of the model calls behind this decision, reported in the events.
    """

    calls: tuple[PlannedCall, ...] = ()
    answer: str = ""
    thought: str = ""
    memo: str = ""
    usage: dict[str, int] | None = None

    @classmethod
    def call(cls, *calls: PlannedCall, thought: str = "", memo: str = "") -> Decision:
        """Build a decision that makes ``calls``."""
        return cls(calls=tuple(calls), thought=thought, memo=memo)

    @classmethod
    def reply(cls, text: str, *, usage: dict[str, int] | None = None) -> Decision:
        """Build a decision that answers with ``text``."""
        return cls(answer=text, usage=usage)


@runtime_checkable
class Agent(Protocol):
    """Plans a run step by step; must be safe to call from several threads at once."""

    def decide(self, agent_input: AgentInput) -> Decision:
        """Return the next step for ``agent_input``."""
