"""One tool in a :class:`~appclient.ToolRegistry`: its spec, callable, options and secrets."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import SecretBytes, SecretStr, ValidationError

from .._core._constants import MIN_REDACTED_SECRET_LENGTH
from .._core._errors import ManifestError, escaped_forms, redact_mapping, validation_problems
from .._core._models import Tool
from .._manifest import from_list_form

if TYPE_CHECKING:
    from .._manifest import ToolSpec


_MAX_BOUND_DEPTH = 8
_MAX_BOUND_VALUES = 1024
# pydantic's ValidationError shows an input whose repr is longer than this as its first 25
# and last 24 characters around "...".
_PYDANTIC_INPUT_CHARS = 50


def secret_texts(values: Iterable[Any]) -> tuple[str, ...]:
    """Return the texts that show a bound value, to redact, in their escaped forms too.

    An object counts by its ``str``, ``repr`` and attribute values; texts shorter than
    ``MIN_REDACTED_SECRET_LENGTH`` are settings, not secrets.
    """
    found: dict[str, None] = {}
    for value in _texts_within(values):
        for text in _shown_as(value):
            if len(text) < MIN_REDACTED_SECRET_LENGTH:
                continue
            found.update(dict.fromkeys(escaped_forms(text)))
            shown = repr(text)
            if len(shown) > _PYDANTIC_INPUT_CHARS:  # a ValidationError cuts a long input short
                found[shown[1:25] + "..." + shown[-24:-1]] = None
    return tuple(found)


def _shown_as(value: Any) -> tuple[str, ...]:
    """The texts a bound value shows itself as."""
    if isinstance(value, SecretStr):
        return (value.get_secret_value(),)
    if isinstance(value, SecretBytes):
        return (value.get_secret_value().decode("utf-8", errors="replace"),)
    if isinstance(value, (bytes, bytearray)):  # a key bound as bytes shows up as text
        return (bytes(value).decode("utf-8", errors="replace"),)
    if isinstance(value, str):
        return (value,)
    if value is None or isinstance(value, bool):  # too common to be anyone's secret
        return ()
    try:
        return tuple(dict.fromkeys((str(value), repr(value))))
    except Exception:  # a broken __str__ must not stop the registration
        return ()


def _texts_within(values: Iterable[Any]) -> Iterator[Any]:
    """Yield each value and those inside it (not mapping keys), bounded in depth and count."""
    pending: list[tuple[Any, int]] = [(value, 0) for value in values][::-1]  # a stack, in order
    seen = 0
    while pending and seen < _MAX_BOUND_VALUES:
        value, depth = pending.pop()
        seen += 1
        if isinstance(value, Mapping):
            items: Iterable[Any] = value.values()
        elif isinstance(value, (list, tuple, set, frozenset)):
            items = value
        else:
            yield value
            attributes = getattr(value, "__dict__", None)
            if not isinstance(attributes, dict) or isinstance(value, type) or callable(value):
                continue
            items = attributes.values()
        if depth < _MAX_BOUND_DEPTH:
            inner = itertools.islice(items, _MAX_BOUND_VALUES)
            pending.extend([(item, depth + 1) for item in inner][::-1])


def partial_values(func: Callable[..., Any]) -> list[Any]:
    """Return every value bound by (nested) ``functools.partial`` layers of ``func``."""
    values: list[Any] = []
    while isinstance(func, functools.partial):
        values.extend(func.args)
        values.extend(func.keywords.values())
        func = func.func
    return values


@dataclass(frozen=True, repr=False)
class RegisteredTool:
    """A tool in a registry: its spec, how it is called, and its dispatch options.

    Attributes:
        name: The tool name the agent uses.
        spec: The manifest's :class:`~appclient.types.ToolSpec` (schema and validation).
        func: The callable that runs.
        tool: The tool dict sent in ``run(tools=...)``.
        timeout: Seconds a call may take, or ``None`` for no limit.
        requires_approval: Whether each call asks the approval callback first.
        bound: Parameter values supplied by the program (never shown).
        secrets: The bound texts redacted from outputs and errors.
        toolkit: The toolkit object for a toolkit method, else ``None``.
        method: The method name for a toolkit method, else ``None``.
        enabled: Whether the tool is advertised and callable (Lagent's ``enable``).
        check: More argument checks giving ``(field, problem)`` pairs (an MCP tool's schema).
    """

    name: str
    spec: ToolSpec
    func: Callable[..., Any]
    tool: dict[str, Any]
    timeout: float | None = None
    requires_approval: bool = False
    bound: Mapping[str, Any] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()
    toolkit: object | None = None
    method: str | None = None
    enabled: bool = True
    check: Callable[[Mapping[str, Any]], list[tuple[str, str]]] | None = None

    @property
    def description(self) -> str:
        """The tool's description, as the agent reads it."""
        return str(self.tool.get("function", {}).get("description") or "")

    @property
    def bound_names(self) -> frozenset[str]:
        """Names of the parameters the program supplies."""
        return frozenset(self.bound)

    def __repr__(self) -> str:
        bound = redact_mapping(self.bound, self.bound)
        return (
            f"RegisteredTool(name={self.name!r}, timeout={self.timeout!r}, "
            f"requires_approval={self.requires_approval!r}, bound={bound!r})"
        )


def tool_model(tool: object) -> Tool:
    """Read a ready-made tool: a JSON Schema tool dict or a :class:`Tool` (else ManifestError)."""
    if isinstance(tool, Tool):
        return tool
    if not isinstance(tool, Mapping):
        raise ManifestError(
            f"tool= takes a JSON Schema tool dict or a Tool, got {type(tool).__name__}"
        )
    try:
        return Tool.model_validate(from_list_form(dict(tool)))  # Lagent's form is a tool too
    except ValidationError as exc:
        problems = validation_problems(exc, "tool")
        raise ManifestError(f"tool= is not a JSON Schema tool: {problems}") from None


def advertised_tool(tool: Mapping[str, Any] | Tool, name: str) -> dict[str, Any]:
    """Return a ready-made tool as a wire dict, renamed to ``name``."""
    data = tool_model(tool).model_dump(mode="json", exclude_none=True)
    data.setdefault("function", {})["name"] = name
    return data
