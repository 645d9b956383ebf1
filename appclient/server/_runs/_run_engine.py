"""The run engine: asks the agent step by step and decides how a run ends (pure, no I/O).

A run starts a turn (a query) or continues one (tool outputs). The engine runs the cloud
components the agent asks for and asks again, until local tool calls (an interrupt), an
answer, or a failure (an ``error`` event; the turn is dropped). It returns a
:class:`RunOutcome`; the caller commits its state only when the whole run succeeded.
Partial and unknown outputs and forced tools follow docs/protocol.md sections 6-7; a new
query drops a turn still waiting for outputs, and a query sent with outputs is ignored.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeAlias

from ..._core._models import Tool, ToolChoice, ToolOutput
from .._agents._agent_api import (
    MAX_MEMO_CHARS,
    Agent,
    AgentInput,
    ComponentInfo,
    Decision,
    PlannedCall,
    ToolResult,
)
from .._http._responses import bad_parameter, serial_id
from .._settings import DEFAULT_MAX_AGENT_STEPS, DEFAULT_MAX_HISTORY_TURNS
from .._state._state import (
    RECORD_BYTES,
    ConversationState,
    OpenTurn,
    PendingCall,
    RunFailure,
    RunRecord,
    RunResult,
    ToolMemo,
    TurnRecord,
)
from ._tool_choice import UnknownToolChoiceError, forced_tool_name, resolve_tool_choice

_log = logging.getLogger("appclient.server")

#: Takes the answer text an agent streams (and ``""`` once, when the run starts).
Emit: TypeAlias = Callable[[str], None]

#: ``event_code`` of the error event when a cloud component raised.
EVENT_CODE_COMPONENT_FAILED = 5001
#: ``event_code`` of the error event when the agent kept calling components past the limit.
EVENT_CODE_STEP_LIMIT = 5002
#: ``event_code`` of the error event when the agent failed: it raised, or asked for a tool
#: nobody declared. An error event, not a 500: sending the run again would only ask the agent
#: again (a scripted agent its next step, a model a second time).
EVENT_CODE_AGENT_FAILED = 5003


class Component(Protocol):
    """A cloud component as the engine uses it (:class:`CloudComponent` is one)."""

    @property
    def info(self) -> ComponentInfo:
        """The component's name, description and JSON Schema parameters."""
        ...

    def run(self, arguments: dict[str, Any]) -> str:
        """Run the component and return its result as text."""
        ...


class AgentFailure(Exception):  # noqa: N818 - reads better at the raise site than AgentError
    """The agent raised or returned a decision the engine cannot carry out (an error event)."""


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What one run made, and the conversation state to save afterwards."""

    state: ConversationState
    run: RunResult


def _added(total: dict[str, int] | None, more: dict[str, int] | None) -> dict[str, int] | None:
    """Token usage of two model calls together (``None`` when neither reported any)."""
    if not more:
        return total
    if total is None:
        return dict(more)
    return {key: total.get(key, 0) + more.get(key, 0) for key in {*total, *more}}


class RunEngine:
    """Plans runs with an agent (thread-safe) and cloud components.

    ``max_steps`` agent decisions are allowed in one run before it ends with an error;
    ``max_history`` finished turns are kept per conversation.
    """

    def __init__(
        self,
        *,
        agent: Agent,
        components: Sequence[Component] = (),
        max_steps: int = DEFAULT_MAX_AGENT_STEPS,
        max_history: int = DEFAULT_MAX_HISTORY_TURNS,
    ) -> None:
        self.agent = agent
        self.components = {component.info.name: component for component in components}
        self._infos = tuple(component.info for component in components)
        self._max_steps = max_steps
        self._max_history = max_history
        self._tool_model = ToolMemo(Tool.model_validate)

    def start_turn(
        self,
        state: ConversationState,
        *,
        query: str,
        tool_choice: ToolChoice | None = None,
        file_names: tuple[str, ...] = (),
        end_user_id: str | None = None,
        message_id: str | None = None,
        emit: Emit | None = None,
    ) -> RunOutcome:
        """Run a new turn for ``query`` (dropping any turn still waiting for outputs).

        ``message_id`` names the run's message (a fresh id when ``None``); ``emit`` receives
        ``""`` once the request is known to be valid and the agent is asked, then the answer
        text an agent that streams (``streams_text``) produces, as it comes.

        Raises:
            HTTPProblem: 400 when ``tool_choice`` names no tool or component.
        """
        forced = None
        if forced_tool_name(tool_choice) is not None:
            try:
                forced = resolve_tool_choice(
                    tool_choice,
                    tools=[self._tool_model(tool) for tool in state.tools],
                    components=self._infos,
                    query=query,
                )
            except UnknownToolChoiceError as exc:
                raise bad_parameter("tool_choice.function.name", str(exc)) from None
        turn = OpenTurn(query=query, file_names=file_names, end_user_id=end_user_id)
        choice = None if forced is not None else tool_choice
        return self._drive(state.evolve(open_turn=None), turn, forced, choice, message_id, emit)

    def continue_turn(
        self,
        state: ConversationState,
        *,
        outputs: Sequence[ToolOutput],
        message_id: str | None = None,
        emit: Emit | None = None,
    ) -> RunOutcome:
        """Apply tool outputs to the pending round and run on from there.

        ``message_id`` and ``emit`` as for :meth:`start_turn`.

        Raises:
            HTTPProblem: 400 naming the first ``tool_call_id`` that is not pending.
        """
        turn = state.open_turn or OpenTurn("")  # no open turn: no output matches
        if not outputs:
            raise bad_parameter("tool_outputs", "must list at least one output")
        pending = {call.call_id for call in turn.pending}
        answered: dict[str, str] = {}
        for index, output in enumerate(outputs):
            field = f"tool_outputs[{index}].tool_call_id"
            if output.tool_call_id in answered:
                raise bad_parameter(field, f"tool_call_id {output.tool_call_id!r} is repeated")
            if output.tool_call_id not in pending:
                waiting = sorted(pending) or "none"
                raise bad_parameter(
                    field, f"unknown tool_call_id {output.tool_call_id!r}; pending: {waiting}"
                )
            answered[output.tool_call_id] = output.output
        results = turn.results + tuple(
            ToolResult(call.call_id, call.name, call.arguments, answered[call.call_id])
            for call in turn.pending
            if call.call_id in answered
        )
        remaining = tuple(call for call in turn.pending if call.call_id not in answered)
        turn = replace(turn, results=results, pending=remaining)
        if not remaining:
            return self._drive(state, turn, None, None, message_id, emit)
        if emit is not None:
            emit("")
        run = RunResult(
            message_id or serial_id(), turn.query, calls=remaining, thought=turn.thought
        )
        return RunOutcome(state.evolve(open_turn=turn), run)

    def _decide(self, agent_input: AgentInput, emit: Emit | None) -> Decision:
        """Ask the agent; raise :class:`AgentFailure` for anything but a usable decision."""
        agent = type(self.agent).__name__
        try:
            if emit is not None and getattr(self.agent, "streams_text", False):
                decision = self.agent.decide(agent_input, emit=emit)  # type: ignore[call-arg]
            else:
                decision = self.agent.decide(agent_input)
        except Exception as exc:
            raise AgentFailure(f"agent {agent} failed: {exc}") from exc
        if not isinstance(decision, Decision):
            raise AgentFailure(f"agent {agent} returned {type(decision).__name__}, not a Decision")
        if decision.memo and len(decision.memo) > MAX_MEMO_CHARS:
            raise AgentFailure(
                f"agent left a memo of {len(decision.memo):,} characters "
                f"(at most {MAX_MEMO_CHARS:,})"
            )
        return decision

    def _split(
        self, calls: Sequence[PlannedCall], local_names: set[str]
    ) -> tuple[list[PlannedCall], list[PlannedCall]]:
        """Split calls into cloud components and local tools (a local tool hides a component)."""
        cloud: list[PlannedCall] = []
        local: list[PlannedCall] = []
        for call in calls:
            if not isinstance(call, PlannedCall) or not isinstance(call.arguments, dict):
                raise AgentFailure(f"agent returned a malformed call: {call!r}")
            in_cloud = call.name in self.components
            in_local = call.name in local_names
            if (call.cloud and in_cloud) or (in_cloud and not in_local):
                cloud.append(call)
            elif in_local:
                local.append(call)
            else:
                raise AgentFailure(
                    f"agent called {call.name!r}, which is neither a tool of this "
                    "conversation nor a cloud component"
                )
        return cloud, local

    def _drive(
        self,
        state: ConversationState,
        turn: OpenTurn,
        forced: PlannedCall | None,
        choice: ToolChoice | None,
        message_id: str | None,
        emit: Emit | None,
    ) -> RunOutcome:
        message_id = message_id or serial_id()
        if emit is not None:
            emit("")  # the request was valid: from here on, every outcome is a 200
        tools = tuple(self._tool_model(tool) for tool in state.tools)
        local_names = {tool["function"]["name"] for tool in state.tools}
        steps: list[ToolResult] = []
        results = list(turn.results)
        memo = turn.memo
        usage: dict[str, int] | None = None

        def failed(code: int, message: str) -> RunOutcome:
            failure = RunFailure(code, message)
            run = RunResult(message_id, turn.query, tuple(steps), failure=failure)
            return RunOutcome(state.evolve(open_turn=None), run)

        for step in range(self._max_steps):
            try:
                if step == 0 and forced is not None:
                    decision = Decision.call(forced)
                elif step == 1 and forced is not None and forced.cloud:
                    # As the hosted service does for a forced component: its result is the reply.
                    decision = Decision.reply(steps[-1].output)
                else:
                    agent_input = AgentInput(
                        query=turn.query,
                        tools=tools,
                        components=self._infos,
                        results=tuple(results),
                        tool_choice=choice if step == 0 else None,
                        history=state.history,
                        file_names=turn.file_names,
                        end_user_id=turn.end_user_id,
                        memo=memo,
                    )
                    decision = self._decide(agent_input, emit)
                    memo = decision.memo or memo
                    usage = _added(usage, decision.usage)
                cloud, local = self._split(decision.calls, local_names)
            except AgentFailure as exc:
                _log.error("run %s: %s", message_id, exc, exc_info=exc.__cause__)
                return failed(EVENT_CODE_AGENT_FAILED, str(exc))
            if not decision.calls:
                answer = decision.answer if isinstance(decision.answer, str) else ""
                record = TurnRecord(turn.query, answer, message_id, tuple(results))
                finished = state.with_turn_finished(record, keep=self._max_history)
                run = RunResult(message_id, turn.query, tuple(steps), answer=answer, usage=usage)
                return RunOutcome(finished, run)
            for call in cloud:
                call_id = serial_id()
                try:
                    output = str(self.components[call.name].run(dict(call.arguments)))
                except Exception as exc:
                    _log.warning("cloud component %s failed", call.name, exc_info=True)
                    message = f"component {call.name} failed: {exc}"
                    return failed(EVENT_CODE_COMPONENT_FAILED, message)
                steps.append(ToolResult(call_id, call.name, dict(call.arguments), output, True))
                results.append(steps[-1])
            if local:
                pending = tuple(
                    PendingCall(serial_id(), call.name, dict(call.arguments)) for call in local
                )
                names = "、".join(dict.fromkeys(call.name for call in local))
                thought = decision.thought or f"需要调用本地工具 {names}"
                waiting = replace(
                    turn, results=tuple(results), pending=pending, thought=thought, memo=memo
                )
                run = RunResult(message_id, turn.query, tuple(steps), pending, thought, usage=usage)
                return RunOutcome(state.evolve(open_turn=waiting), run)
        return failed(
            EVENT_CODE_STEP_LIMIT,
            f"the agent made {self._max_steps} decisions in one run without an answer "
            "or a local tool call",
        )


def record_run(
    outcome: RunOutcome,
    *,
    request_id: str,
    query: str,
    outputs: Sequence[ToolOutput],
    stream: bool,
    started: float,
    seconds: float,
) -> RunRecord:
    """Return the inspector's record of one run (``query``: "" for a tool-outputs run)."""
    run = outcome.run
    flat = tuple(text for output in outputs for text in (output.tool_call_id, output.output))
    chars = RECORD_BYTES + len(query) + len(run.answer) + len(run.thought)
    chars += sum(map(len, flat)) + sum(len(step.output) for step in run.cloud_steps)
    return RunRecord(run, request_id, started, seconds, stream, query, flat, chars)
