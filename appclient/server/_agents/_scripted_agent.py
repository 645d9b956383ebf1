"""A scripted agent: a fixed list of steps, for deterministic tests of your own tools.

``ScriptedAgent`` answers each decision with the next step of its script, whatever the query
says, so a test fixes which tool calls the server sends and checks what came back (README,
"Testing your tools offline").
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias

from ._agent_api import AgentInput, Decision, PlannedCall, ToolResult

_PLACEHOLDER = re.compile(r"\{outputs\}|\{query\}")

StepValue: TypeAlias = Decision | str | PlannedCall | Sequence[PlannedCall]
ScriptStep: TypeAlias = StepValue | Callable[[AgentInput], StepValue]


class ScriptExhaustedError(RuntimeError):
    """A :class:`ScriptedAgent` was asked for more decisions than its script has steps.

    Attributes:
        steps: How many steps the script had.
        query: The query of the turn that asked one time too many.
    """

    def __init__(self, *, steps: int, query: str) -> None:
        self.steps = steps
        self.query = query
        super().__init__(
            f"ScriptedAgent ran out of steps: all {steps} step(s) were used and the server "
            f"asked again (query {query!r}). The server asks once per turn start, once per "
            "round of tool outputs and once after each round of cloud component calls."
        )


def _as_decision(value: Any, *, where: str) -> Decision:
    if isinstance(value, Decision):
        return value
    if isinstance(value, str):
        return Decision.reply(value)
    if isinstance(value, PlannedCall):
        return Decision.call(_checked_call(value, where=where))
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{where} is an empty list of calls; give at least one PlannedCall")
        return Decision.call(*(_checked_call(call, where=where) for call in value))
    raise TypeError(
        f"{where} is a {type(value).__name__}; expected a Decision, a str answer, a "
        "PlannedCall, a list of PlannedCall, or a callable returning one of those"
    )


def _checked_call(call: Any, *, where: str) -> PlannedCall:
    if not isinstance(call, PlannedCall):
        raise TypeError(f"{where} holds a {type(call).__name__}, not a PlannedCall")
    if not isinstance(call.name, str) or not call.name:
        raise TypeError(f"{where}: a PlannedCall needs a tool name, not {call.name!r}")
    if not isinstance(call.arguments, dict):
        raise TypeError(f"{where}: the arguments of {call.name!r} must be a dict")
    return call


def _checked_steps(steps: Sequence[ScriptStep], start: int = 0) -> list[ScriptStep]:
    for index, step in enumerate(steps, start):
        if not callable(step):  # a callable's result is checked when it runs
            _as_decision(step, where=f"step {index}")
    return list(steps)


class ScriptedAgent:
    """An agent that plays a fixed script of steps, one per decision; thread-safe.

    The server asks when a turn starts (unless ``tool_choice`` forces a call) and after each
    round of tool outputs or cloud calls; asking past the end raises
    :class:`ScriptExhaustedError` (the server answers a JSON 500 naming it).

    Args:
        steps: The script, in order. Each step is a :class:`Decision`; a ``str`` (the turn's
            final answer); a :class:`PlannedCall` (``cloud=True`` for a server component);
            a list of :class:`PlannedCall` (parallel calls in one round); or a callable
            taking the :class:`AgentInput` and returning one of those (see
            :meth:`echo_outputs`).
    """

    def __init__(self, steps: Iterable[ScriptStep] = ()) -> None:
        if isinstance(steps, (str, Decision, PlannedCall)) or callable(steps):
            # A str is iterable: ScriptedAgent("Sunny.") would be one step per character.
            raise TypeError(
                f"steps must be a list of steps, not a single {type(steps).__name__}; "
                "write ScriptedAgent([step])"
            )
        self._lock = threading.Lock()
        self.reset(*steps)

    def __repr__(self) -> str:
        with self._lock:
            return f"ScriptedAgent(steps={len(self._steps)}, used={self._next})"

    def add(self, *steps: ScriptStep) -> ScriptedAgent:
        """Append ``steps`` to the script and return the agent (so calls can be chained).

        Raises:
            TypeError: A step is not one of the accepted kinds (the message names it).
            ValueError: A step is an empty list of calls.
        """
        with self._lock:
            self._steps += _checked_steps(steps, len(self._steps))
        return self

    def reset(self, *steps: ScriptStep) -> ScriptedAgent:
        """Forget the script and what was recorded, then play ``steps``; returns the agent.

        For an agent shared by many tests: steps a failed test left unused do not leak.

        Raises:
            TypeError: A step is not one of the accepted kinds (the message names it).
            ValueError: A step is an empty list of calls.
        """
        checked = _checked_steps(steps)
        with self._lock:
            self._steps: list[ScriptStep] = checked
            self._next = 0
            self._inputs: list[AgentInput] = []
            self._decisions: list[Decision] = []
        return self

    def decide(self, agent_input: AgentInput) -> Decision:
        """Return the next step of the script as a :class:`Decision`.

        Raises:
            ScriptExhaustedError: Every step was already used.
            TypeError: A callable step returned something that is not a step.
        """
        with self._lock:
            self._inputs.append(agent_input)
            index = self._next
            if index >= len(self._steps):
                raise ScriptExhaustedError(steps=len(self._steps), query=agent_input.query)
            self._next += 1
            step = self._steps[index]
        if callable(step):
            # User code runs outside the lock so a slow callable never blocks other runs.
            decision = _as_decision(step(agent_input), where=f"step {index} (callable)")
        else:
            decision = _as_decision(step, where=f"step {index}")
        with self._lock:
            self._decisions.append(decision)
        return decision

    @property
    def inputs(self) -> tuple[AgentInput, ...]:
        """Every :class:`AgentInput` the agent was asked about, in order."""
        with self._lock:
            return tuple(self._inputs)

    @property
    def decisions(self) -> tuple[Decision, ...]:
        """Every decision the agent returned, in order."""
        with self._lock:
            return tuple(self._decisions)

    @property
    def calls_seen(self) -> tuple[ToolResult, ...]:
        """Every finished call the agent was shown (name, arguments, output), once each."""
        seen: dict[str, ToolResult] = {}
        for agent_input in self.inputs:
            for result in agent_input.results:
                seen.setdefault(result.call_id, result)
        return tuple(seen.values())

    @property
    def outputs_seen(self) -> tuple[str, ...]:
        """The outputs of :attr:`calls_seen`: what the tools sent back, in order."""
        return tuple(result.output for result in self.calls_seen)

    @property
    def remaining(self) -> int:
        """How many steps are left."""
        with self._lock:
            return len(self._steps) - self._next

    @staticmethod
    def call(
        name: str, arguments: Mapping[str, Any] | None = None, *, cloud: bool = False
    ) -> PlannedCall:
        """Return a step that calls ``name`` with ``arguments`` (a local tool by default)."""
        return PlannedCall(name=name, arguments=dict(arguments or {}), cloud=cloud)

    @staticmethod
    def echo_outputs(
        template: str = "{outputs}", *, separator: str = "\n"
    ) -> Callable[[AgentInput], str]:
        """Return a step that answers with the outputs of the turn's calls.

        Args:
            template: The answer; ``{outputs}`` is replaced by the outputs, ``{query}`` by
                the turn's query.
            separator: Put between outputs when there are several.
        """

        def answer(agent_input: AgentInput) -> str:
            values = {
                "{outputs}": separator.join(result.output for result in agent_input.results),
                "{query}": agent_input.query,
            }
            # One pass, so an output that itself says "{query}" is left as the tool wrote it.
            return _PLACEHOLDER.sub(lambda match: values[match.group(0)], template)

        return answer

    @classmethod
    def tool_round(
        cls,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        answer: str | None = None,
        cloud: bool = False,
    ) -> ScriptedAgent:
        """Return an agent that calls one tool, then answers.

        Args:
            name: The tool to call.
            arguments: Its arguments.
            answer: The final answer; by default the tool's output, echoed.
            cloud: Whether ``name`` is a cloud component.
        """
        final: ScriptStep = answer if answer is not None else cls.echo_outputs()
        return cls([cls.call(name, arguments, cloud=cloud), final])

    @classmethod
    def parallel_round(
        cls, name: str, argument_sets: Iterable[Mapping[str, Any]], *, answer: str | None = None
    ) -> ScriptedAgent:
        """Return an agent that calls ``name`` once per argument set in one round, then answers.

        Args:
            name: The local tool to call.
            argument_sets: One arguments object per parallel call.
            answer: The final answer; by default the outputs, one per line.
        """
        calls = [cls.call(name, arguments) for arguments in argument_sets]
        final: ScriptStep = answer if answer is not None else cls.echo_outputs()
        return cls([calls, final])
