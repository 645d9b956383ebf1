"""What went wrong with a tool call, written for the agent that made it.

Each failure is the matching :class:`~appclient.ToolError` subclass, naming the tool, the
field and the problem so the agent can correct its call; callers redact secrets first.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._core._errors import (
    ToolArgumentsError,
    ToolError,
    ToolNotFoundError,
    suggest_names,
)

#: Tool names, or argument problems, a message lists before summarising the rest.
_LISTED = 20
#: Characters of a name the agent sent that a message quotes (tool names have at most 64).
_QUOTED_NAME = 64


def failure_output(error: ToolError) -> str:
    """Return the tool-output text that reports ``error`` to the agent."""
    return f"Error: {error}"


def _quoted(name: str) -> str:
    """Quote a name the agent sent, shortened: the agent's own text is not echoed in bulk."""
    if len(name) <= _QUOTED_NAME:
        return repr(name)
    return f"{name[:_QUOTED_NAME]!r} (+{len(name) - _QUOTED_NAME} more characters)"


def unknown_tool(name: str, available: Sequence[str], *, tool_call_id: str = "") -> ToolError:
    """Build the error for an unknown tool, listing the available names and close matches."""
    text = f"there is no tool named {_quoted(name)}"
    suggestions = suggest_names(name, available)
    if suggestions:
        text += ". Did you mean " + " or ".join(repr(s) for s in suggestions) + "?"
    more = len(available) - _LISTED
    listing = ", ".join(available[:_LISTED]) + (f" and {more} more" if more > 0 else "")
    text += f" (available tools: {listing})" if available else " (no tools are registered)"
    return ToolNotFoundError(text, tool_name=name, tool_call_id=tool_call_id)


def invalid_call(problem: str, *, tool_name: str = "", tool_call_id: str = "") -> ToolError:
    """Build the error for a tool call whose shape is wrong (no name, not an object...)."""
    return ToolArgumentsError(
        f"invalid tool call: {problem}",
        tool_name=tool_name,
        tool_call_id=tool_call_id,
        problems=[("<call>", problem)],
    )


def invalid_arguments(
    tool_name: str, problems: Sequence[tuple[str, str]], *, tool_call_id: str = ""
) -> ToolError:
    """Build the error for ``(field, problem)`` pairs (``"<arguments>"``: them as a whole)."""
    details = "; ".join(
        problem if field in ("", "<arguments>") else f"{_quoted(field)}: {problem}"
        for field, problem in problems[:_LISTED]
    )
    if len(problems) > _LISTED:
        details += f"; and {len(problems) - _LISTED} more problems"
    text = (
        f"invalid arguments for tool {tool_name!r}: {details}. "
        f"Correct the arguments and call {tool_name!r} again."
    )
    return ToolArgumentsError(
        text, tool_name=tool_name, tool_call_id=tool_call_id, problems=problems
    )


def describe_exception(exc: BaseException) -> str:
    """Return ``Type: message`` for an exception, or just the type (also when str fails)."""
    kind = type(exc).__name__
    try:
        message = str(exc).strip()
    except Exception:  # a broken __str__ must not turn one failed call into a crash
        message = ""
    return f"{kind}: {message}" if message else kind
