"""``ToolSpec`` and ``ParameterSpec``: one Python callable as a tool, its schema and its checks.

``_building`` makes them. Arguments are checked by pydantic's lax mode on the tool's arguments
model (``"4"`` becomes ``4``, ``2.5`` is no integer); on top of it, unknown keys and keys the
program supplies (``self``, partial and bound values) are refused, ``null`` for a defaulted
parameter that does not accept ``None`` means "use the default" (strict schemas offer it), and
a list or dict sent as JSON text is parsed for parameters that do not accept strings. Parameters
the agent left out stay out of the call, so the function's own defaults apply. Every problem is
collected into one :class:`~appclient.errors.ToolArgumentsError`.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import pickle
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from .._core._constants import tool_name_problem
from .._core._errors import ManifestError, ToolArgumentsError
from ._official_shape import ReturnItem
from ._schema_tools import Schema, json_copy
from ._signature import EMPTY
from ._type_schema import ArgumentField, build_arguments_model, type_schema

VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
_MAX_INPUT_REPR = 60


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
class CallSlot:
    """One parameter a call may fill (everything but ``self`` and partial arguments)."""

    name: str
    positional: bool  # positional-only
    field: str | None  # the arguments-model field; None for a hidden parameter
    default: Any
    nullable: bool = True
    accepts_string: bool = True  # so JSON text is not parsed
    always_pass: bool = False  # pass the validated value even when absent (a Field default)


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
    hidden: frozenset[str]  # names the agent may not set
    schema_bytes: bytes
    is_async: bool
    is_generator: bool
    is_async_generator: bool
    fields: Sequence[ArgumentField]
    slots: Sequence[CallSlot]  # in signature order
    var_keyword: str | None
    var_keyword_type: Any  # EMPTY when unannotated
    module: str | None  # where forward references resolve
    prebuilt: type[BaseModel] | None  # the arguments model, if the schema needed it

    @cached_property
    def model(self) -> type[BaseModel]:
        """The arguments model, built on first use (a race builds two, harmlessly)."""
        return self.prebuilt or build_arguments_model(self.fields, module=self.module)

    @cached_property
    def visible(self) -> dict[str, CallSlot]:
        """The slots the agent may fill, by name."""
        return {slot.name: slot for slot in self.slots if slot.field is not None}

    @cached_property
    def extras_adapter(self) -> TypeAdapter[dict[str, Any]]:
        """Validates what ``**kwargs`` receives."""
        return TypeAdapter(dict[str, self.var_keyword_type])  # type: ignore[name-defined]

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

    def bind(
        self, arguments: Any, *, bound: Mapping[str, Any], allow_extra: bool
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Validate ``arguments`` (a mapping or JSON text); return the call's ``(args, kwargs)``."""
        problems: list[tuple[str, str]] = []
        data: dict[str, Any] = {}
        extras: dict[str, Any] = {}
        for key, value in _as_mapping(arguments, self.name).items():
            slot = self.visible.get(key)
            if slot is None:
                if key in self.hidden or key in bound:
                    problems.append((key, "is supplied by the program and cannot be set"))
                elif self.var_keyword is not None:
                    extras[key] = value
                elif not allow_extra:
                    expected = ", ".join(self.visible) or "none"
                    problems.append((key, f"unknown argument (expected: {expected})"))
                continue
            if value is None and slot.default is not EMPTY and not slot.nullable:
                continue  # null stands for "use the default"
            if isinstance(value, str) and not slot.accepts_string:
                # JSON text of a list or an object (too deep for the parser: left as text)
                with contextlib.suppress(ValueError, RecursionError):
                    value = json.loads(value) if value.lstrip()[:1] in ("[", "{") else value
            data[key] = value
        instance: BaseModel | None = None
        try:
            instance = self.model.model_validate(data)
        except ValidationError as exc:
            problems.extend(_problems(exc))
        if extras and self.var_keyword_type not in (EMPTY, Any):
            try:
                extras = self.extras_adapter.validate_python(extras)
            except ValidationError as exc:
                problems.extend(_problems(exc))
        if problems or instance is None:
            raise _error(self.name, problems)
        return self._assemble(instance, bound, extras)

    def _assemble(
        self, instance: BaseModel, bound: Mapping[str, Any], extras: Mapping[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        given = instance.model_fields_set
        values: dict[str, Any] = {}
        for slot in self.slots:
            if slot.field is not None and (slot.field in given or slot.always_pass):
                values[slot.name] = getattr(instance, slot.field)
            elif slot.name in bound:
                values[slot.name] = bound[slot.name]
        values.update((key, value) for key, value in bound.items() if key not in values)
        # Positional-only values go first, in order; a gap before a given one takes its default.
        ordered = [slot for slot in self.slots if slot.positional]
        last = max((i for i, slot in enumerate(ordered) if slot.name in values), default=-1)
        positional: list[Any] = []
        for slot in ordered[: last + 1]:
            if slot.name in values:
                positional.append(values.pop(slot.name))
            elif slot.default is EMPTY:
                raise _error(self.name, [(slot.name, "missing required argument")])
            else:
                positional.append(slot.default)
        return tuple(positional), {**values, **extras}


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
        """The tool description, with the return sentence when known."""
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
            ``func(*args, **kwargs)`` performs the call (bound values included).

        Raises:
            ToolArgumentsError: ``problems`` lists every ``(field, problem)``.
        """
        extra = self._template.allow_extra if allow_extra is None else allow_extra
        return self._template.bind(arguments, bound=self._bound, allow_extra=extra)

    def __repr__(self) -> str:
        names = ", ".join(p.name for p in self.parameters)
        bound = f", bound=[{', '.join(sorted(self._bound))}]" if self._bound else ""
        return f"ToolSpec(name={self.name!r}, parameters=[{names}], strict={self.strict}{bound})"


def _problems(error: ValidationError) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for item in error.errors(include_url=False):
        field = ".".join(str(part) for part in item["loc"]) or "arguments"
        if item["type"] == "missing":
            problem = "missing required argument" if len(item["loc"]) == 1 else "field required"
        elif item["type"] == "extra_forbidden":
            problem = "unknown field"
        else:
            given = repr(item["input"])
            if len(given) > _MAX_INPUT_REPR:
                given = given[: _MAX_INPUT_REPR - 3] + "..."
            problem = f"{item['msg']} (got {given})"
        found.append((field, problem))
    return found


def _as_mapping(arguments: Any, tool_name: str) -> Mapping[str, Any]:
    if arguments is None:
        return {}
    if isinstance(arguments, (str, bytes)):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError) as exc:  # RecursionError: nested too deeply
            raise _error(tool_name, [("arguments", f"not valid JSON: {exc}")]) from exc
    if not isinstance(arguments, Mapping):
        kind = type(arguments).__name__
        raise _error(tool_name, [("arguments", f"must be a JSON object, got {kind}")])
    return arguments


def _error(tool_name: str, problems: Sequence[tuple[str, str]]) -> ToolArgumentsError:
    details = "; ".join(f"{field}: {problem}" for field, problem in problems)
    return ToolArgumentsError(
        f"invalid arguments for tool {tool_name!r}: {details}",
        tool_name=tool_name,
        problems=problems,
    )
