"""``ToolSpec`` and ``ParameterSpec``: one Python callable as a tool, its schema and its checks.

:func:`~appclient._manifest._building.build_tool_spec` makes them; a spec validates and binds
the agent's arguments (``_validation``) and renders itself for the wire and for humans.
"""

from __future__ import annotations

import inspect
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from .._core._constants import tool_name_problem
from .._core._errors import ManifestError
from ._official_shape import ReturnItem
from ._schema_tools import Schema, json_copy
from ._signature import EMPTY
from ._type_schema import type_schema
from ._validation import ArgumentBinder

VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def check_tool_name(name: str) -> str:
    """Return ``name`` if it is a valid tool name; raise :class:`ManifestError` otherwise."""
    problem = tool_name_problem(name)
    if problem is not None:
        raise ManifestError(problem)
    return name


@dataclass(frozen=True)
class ParameterSpec:
    """One parameter as the agent sees it.

    Attributes:
        name: The parameter (and property) name.
        kind: Positional-only, positional-or-keyword or keyword-only.
        annotation: The type arguments are validated against (``inspect.Parameter.empty``
            when there is no evidence of a type: anything is accepted).
        default: The default, or ``inspect.Parameter.empty`` when there is none.
        required: The agent must send it.
        description: Its description, if any.
        schema: Its JSON Schema, as sent (strict-mode nullability included).
        nullable: ``None`` is a valid value for the function.
    """

    name: str
    kind: inspect._ParameterKind
    annotation: Any
    default: Any
    required: bool
    description: str | None
    schema: Mapping[str, Any]
    nullable: bool

    @property
    def has_default(self) -> bool:
        """True when the function has a default for this parameter."""
        return self.default is not EMPTY


@dataclass(frozen=True)
class ToolText:
    """What a tool says in words (``summary`` is the description without the return sentence)."""

    description: str
    summary: str
    returns: str | None
    return_items: tuple[ReturnItem, ...]  # named or exploded returns, or return_schema's members
    return_named: bool = False  # the one item names the value itself (returns_named_value)


@dataclass(frozen=True)
class ToolTemplate:
    """Everything about a tool that does not depend on the exact callable object."""

    name: str
    text: ToolText
    return_annotation: Any
    return_schema_override: Mapping[str, Any] | None
    parameters: tuple[ParameterSpec, ...]
    strict: bool
    allow_extra: bool
    hidden: frozenset[str]
    binder: ArgumentBinder
    schema_bytes: bytes
    is_async: bool
    is_generator: bool
    is_async_generator: bool

    @cached_property
    def return_schema(self) -> Schema | None:
        if self.return_schema_override is not None:
            return dict(self.return_schema_override)
        items = self.text.return_items
        value = None if self.return_annotation is EMPTY else type_schema(self.return_annotation)
        if self.text.return_named:  # the value itself, titled with its name
            (name, kind, text), base = items[0], value or {}
            return {**({"type": kind} if kind else {}), **base, "title": name, "description": text}
        if items:  # exploded: the members of the returned dict
            properties = {
                name: {
                    **({"type": kind} if kind else {}),
                    **({"description": text} if text else {}),
                }
                for name, kind, text in items
            }
            return {"type": "object", "properties": properties}
        return value


class ToolSpec:
    """A callable described as a tool: name, description, JSON Schema and validation.

    Built by :func:`build_tool_spec`. Bound values (``bound=``) are kept private: they appear
    in no repr, schema or error, only in the arguments returned by :meth:`validate_arguments`.
    """

    __slots__ = ("_bound", "_template", "func")

    def __init__(
        self, template: ToolTemplate, func: Callable[..., Any], bound: Mapping[str, Any]
    ) -> None:
        self._template = template
        self.func: Callable[..., Any] = func
        self._bound = dict(bound)

    @property
    def name(self) -> str:
        """The tool name."""
        return self._template.name

    @property
    def description(self) -> str:
        """The tool description, with ``Returns: ...`` appended when known."""
        return self._template.text.description

    @property
    def summary(self) -> str:
        """The tool description without its return sentence."""
        return self._template.text.summary

    @property
    def return_description(self) -> str | None:
        """What the return value means, if known."""
        return self._template.text.returns

    @property
    def return_items(self) -> tuple[ReturnItem, ...]:
        """The named return values ``(name, JSON type or None, description)``, if any."""
        return self._template.text.return_items

    @property
    def return_schema(self) -> Schema | None:
        """The JSON Schema of the return value (decorator or return annotation), if known."""
        schema = self._template.return_schema
        return json_copy(schema) if schema is not None else None

    @property
    def parameters(self) -> tuple[ParameterSpec, ...]:
        """The parameters the agent sees (bound and ``self`` hidden); schemas are fresh copies."""
        return tuple(replace(p, schema=json_copy(p.schema)) for p in self._template.parameters)

    @property
    def schema(self) -> Schema:
        """The JSON Schema of the parameters (a fresh copy, safe to change)."""
        # Unpickling bytes this process pickled is the fastest deep copy of plain JSON data.
        result: Schema = pickle.loads(self._template.schema_bytes)  # noqa: S301 - see above
        return result

    @property
    def strict(self) -> bool:
        """Whether the schema is in strict form."""
        return self._template.strict

    @property
    def allow_extra(self) -> bool:
        """Whether unknown argument keys are dropped instead of refused."""
        return self._template.allow_extra

    @property
    def hidden(self) -> frozenset[str]:
        """Parameter names the program supplies and the agent cannot set."""
        return self._template.hidden

    @property
    def is_async(self) -> bool:
        """Calling ``func`` returns an awaitable."""
        return self._template.is_async

    @property
    def is_generator(self) -> bool:
        """Calling ``func`` returns a generator."""
        return self._template.is_generator

    @property
    def is_async_generator(self) -> bool:
        """Calling ``func`` returns an async generator."""
        return self._template.is_async_generator

    def to_tool(self) -> dict[str, Any]:
        """Return the wire tool ``{"type": "function", "function": {...}}`` as a new dict."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.schema,
            },
        }

    def validate_arguments(
        self, arguments: Mapping[str, Any], *, allow_extra: bool | None = None
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Validate the agent's arguments and return ``(args, kwargs)`` to call ``func`` with.

        Args:
            arguments: The arguments of a tool call (a mapping, or JSON text of an object).
            allow_extra: Override the spec's choice about unknown keys.

        Returns:
            Positional arguments (positional-only parameters) and keyword arguments, bound
            values included; ``func(*args, **kwargs)`` performs the call.

        Raises:
            ToolArgumentsError: ``problems`` lists every ``(field, problem)``.
        """
        extra = self._template.allow_extra if allow_extra is None else allow_extra
        return self._template.binder.bind(
            arguments, tool_name=self.name, bound=self._bound, allow_extra=extra
        )

    def __repr__(self) -> str:
        names = ", ".join(p.name for p in self.parameters)
        bound = f", bound=[{', '.join(sorted(self._bound))}]" if self._bound else ""
        return f"ToolSpec(name={self.name!r}, parameters=[{names}], strict={self.strict}{bound})"
