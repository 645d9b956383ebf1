"""The tools a run may call, and the one its ``tool_choice`` forces (pure; protocol section 7).

A client tool hides a cloud component of the same name. The server resolves ``tool_choice``
before asking any agent, so an unknown name is a 400 whichever agent runs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..._core._models import Tool, ToolChoice
from .._agents._agent_api import ComponentInfo, PlannedCall
from .._agents._argument_filling import complete_arguments


@dataclass(frozen=True, slots=True)
class Candidate(ComponentInfo):
    """A tool a run may call: a client tool (``cloud=False``) or a cloud component."""

    cloud: bool

    @property
    def tool_text(self) -> str:
        """The tool's own words: its name and description."""
        return f"{self.name} {self.description}"


def candidates_from(
    tools: Sequence[Tool | dict[str, Any]], components: Sequence[ComponentInfo]
) -> list[Candidate]:
    """The client tools (models or wire dicts), then the components no client tool hides."""
    models = [tool if isinstance(tool, Tool) else Tool.model_validate(tool) for tool in tools]
    found = [
        Candidate(t.function.name, t.function.description or "", t.function.parameters, False)
        for t in models
        if t.function is not None
    ]
    local = {c.name for c in found}
    return found + [
        Candidate(c.name, c.description, c.parameters, True)
        for c in components
        if c.name not in local
    ]


class UnknownToolChoiceError(ValueError):
    """``tool_choice`` names neither a tool nor a component (``available``: the names that do)."""

    def __init__(self, name: str, available: Sequence[str]) -> None:
        self.name = name
        self.available = tuple(available)
        known = ", ".join(self.available) or "none"
        super().__init__(
            f"{name!r} is neither a tool of this conversation nor a cloud component "
            f"(available: {known})"
        )


def forced_tool_name(tool_choice: ToolChoice | None) -> str | None:
    """Return the name ``tool_choice`` forces, or ``None`` when it forces nothing."""
    if tool_choice is None or tool_choice.type != "function" or tool_choice.function is None:
        return None
    return tool_choice.function.name or None


def resolve_tool_choice(
    tool_choice: ToolChoice | None,
    *,
    tools: Sequence[Tool | dict[str, Any]],
    components: Sequence[ComponentInfo],
    query: str = "",
    today: dt.date | None = None,
) -> PlannedCall | None:
    """Return the call ``tool_choice`` forces (``cloud`` for a component), or ``None``.

    ``query`` fills the one missing required input; relative dates in it count from ``today``.

    Raises:
        UnknownToolChoiceError: The name is neither a client tool nor a component.
    """
    name = forced_tool_name(tool_choice)
    if name is None or tool_choice is None or tool_choice.function is None:
        return None
    candidates = candidates_from(tools, components)
    candidate = next((c for c in candidates if c.name == name), None)
    if candidate is None:
        raise UnknownToolChoiceError(name, [c.name for c in candidates])
    given = dict(tool_choice.function.input or {})
    arguments = complete_arguments(
        candidate.parameters, query, given, today=today, tool_text=candidate.tool_text
    )
    return PlannedCall(name=name, arguments=arguments, cloud=candidate.cloud)
