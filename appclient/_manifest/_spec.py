"""``ToolSpec``: one Python callable as a tool, with its schema and its argument validation.

:func:`build_tool_spec` reads the callable (``_signature``), decides which source wins for
each fact (``_precedence``, where the order is documented), writes the JSON Schema
(``_type_schema`` and ``_schema_tools``) and prepares the argument validation
(``_validation``).

Building is cached weakly per function (per class for callable objects, whose ids recur once
dead) and per set of options; what differs between two bound methods of one class, or between
two partials with different bound values, is kept out of it, so repeated builds are cheap.
"""

from __future__ import annotations

import contextlib
import inspect
import pickle
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from pydantic.fields import FieldInfo

from .._core._constants import (
    MANIFEST_CACHE_ENTRIES_PER_FUNCTION,
    TOOL_NAME_RULE,
    tool_name_problem,
)
from .._core._errors import ManifestError
from ._decorators import ManifestOverrides, get_overrides
from ._official_shape import ReturnItem
from ._precedence import (
    GatheredParameter,
    ToolText,
    doc_info,
    finish_property,
    gather_parameter,
    tool_description,
)
from ._schema_tools import Schema, admits, apply_strict, json_copy
from ._signature import EMPTY, CallableTarget, call_kind, describe_signature, resolve_callable
from ._type_schema import (
    FieldDefinition,
    arguments_schema,
    build_arguments_model,
    fast_default,
    fast_schema,
    prepare_annotation,
    type_schema,
)
from ._validation import ArgumentBinder, CallSlot

__all__ = [
    "ParameterSpec",
    "ToolSpec",
    "build_tool_spec",
    "check_tool_name",
    "default_tool_name",
]

_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def check_tool_name(name: str) -> str:
    """Return ``name`` if it is a valid tool name; raise :class:`ManifestError` otherwise.

    Args:
        name: The candidate name.

    Returns:
        The name, unchanged.
    """
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
class _Template:
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
        self, template: _Template, func: Callable[..., Any], bound: Mapping[str, Any]
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


# --- building -----------------------------------------------------------------------------

_CACHE_LOCK = threading.Lock()
_CACHE: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], _Template]] = (
    weakref.WeakKeyDictionary()
)


def _cached(function: Any, key: tuple[Any, ...]) -> _Template | None:
    try:
        entries = _CACHE.get(function)
    except TypeError:  # not weakly referenceable (some builtins): never cached
        return None
    return entries.get(key) if entries else None


def _store(function: Any, key: tuple[Any, ...], template: _Template) -> None:
    with _CACHE_LOCK, contextlib.suppress(TypeError):  # not weakly referenceable: not cached
        entries = _CACHE.setdefault(function, {})
        entries[key] = template
        while len(entries) > MANIFEST_CACHE_ENTRIES_PER_FUNCTION:
            del entries[next(iter(entries))]  # dicts keep insertion order: the oldest goes


def _fast_properties(gathered: list[GatheredParameter]) -> dict[str, Schema] | None:
    properties: dict[str, Schema] = {}
    for item in gathered:
        schema = fast_schema(item.annotation)
        if schema is None:
            return None
        if not item.required:
            ok, value = fast_default(item.default)
            if not ok:
                return None
            schema["default"] = value
        properties[item.signature.name] = schema
    return properties


def _build_template(
    target: CallableTarget,
    *,
    name: str,
    description: str | None,
    strict: bool,
    bound_names: frozenset[str],
    allow_extra: bool,
    overrides: ManifestOverrides | None,
) -> _Template:
    info = describe_signature(target)
    kind = call_kind(target.function)
    doc = doc_info(target)
    by_name = {p.name: p for p in info.parameters}
    var_keyword = next((p for p in info.parameters if p.kind is p.kind.VAR_KEYWORD), None)
    for bound_name in bound_names:
        known = by_name.get(bound_name)
        if (known is None and var_keyword is None) or (known is not None and known.preset):
            raise ManifestError(
                f"bound argument {bound_name!r} is not a free parameter of tool {name!r}"
            )
    parameter_overrides = overrides.parameters if overrides is not None else {}
    unknown = sorted(set(parameter_overrides) - set(by_name))
    if unknown:
        raise ManifestError(f"@manifest_parameter names unknown parameters {unknown} of {name!r}")
    hidden = frozenset(p.name for p in info.parameters if p.preset) | bound_names | info.instance
    gathered = [
        gather_parameter(p, parameter_overrides.get(p.name), doc, target)
        for p in info.parameters
        if p.kind not in _VARIADIC and p.name not in hidden
    ]
    fields = [
        FieldDefinition(
            alias=item.signature.name,
            annotation=item.annotation,
            default=EMPTY if item.required else item.default,
        )
        for item in gathered
    ]
    module = getattr(inspect.unwrap(target.function), "__module__", None)
    model = None
    definitions: Schema = {}
    properties = _fast_properties(gathered)
    if properties is None:
        model = build_arguments_model(fields, module=module)
        raw = arguments_schema(model, fields)
        properties = raw.get("properties", {})
        definitions = raw.get("$defs", {})
    properties = {
        item.signature.name: finish_property(properties[item.signature.name], item)
        for item in gathered
    }
    nullable = {n: admits(s, "null", definitions) for n, s in properties.items()}
    accepts_string = {n: admits(s, "string", definitions) for n, s in properties.items()}
    schema: Schema = {
        "type": "object",
        "properties": properties,
        "required": [item.signature.name for item in gathered if item.required],
    }
    if var_keyword is None and not allow_extra:
        schema["additionalProperties"] = False
    elif var_keyword is not None and var_keyword.annotation not in (EMPTY, Any):
        extras_schema = type_schema(prepare_annotation(var_keyword.annotation), mode="validation")
        if extras_schema:
            schema["additionalProperties"] = extras_schema
    if definitions:
        schema["$defs"] = definitions
    if strict:
        schema = apply_strict(
            schema, defaulted=[i.signature.name for i in gathered if not i.required]
        )
    final_properties = schema["properties"]
    field_names = {item.signature.name: f"p{i}" for i, item in enumerate(gathered)}
    slots = [
        CallSlot(
            name=p.name,
            positional=p.kind is p.kind.POSITIONAL_ONLY,
            field=field_names.get(p.name),
            default=p.default,
            nullable=nullable.get(p.name, True),
            accepts_string=accepts_string.get(p.name, True),
            always_pass=isinstance(p.default, FieldInfo),
        )
        for p in info.parameters
        if p.kind not in _VARIADIC and not p.preset
    ]
    binder = ArgumentBinder(
        fields=fields,
        slots=slots,
        hidden=hidden,
        var_keyword=var_keyword.name if var_keyword is not None else None,
        var_keyword_type=(
            prepare_annotation(var_keyword.annotation) if var_keyword is not None else EMPTY
        ),
        module=module,
        model=model,
    )
    parameters = tuple(
        ParameterSpec(
            name=item.signature.name,
            kind=item.signature.kind,
            annotation=item.annotation,
            default=item.default,
            required=item.required,
            description=item.description,
            schema=final_properties[item.signature.name],
            nullable=nullable[item.signature.name],
        )
        for item in gathered
    )
    return _Template(
        name=name,
        text=tool_description(description, overrides, doc),
        return_annotation=info.return_annotation,
        return_schema_override=overrides.return_schema if overrides is not None else None,
        parameters=parameters,
        strict=strict,
        allow_extra=allow_extra,
        hidden=hidden,
        binder=binder,
        schema_bytes=pickle.dumps(schema),
        is_async=kind.is_async,
        is_generator=kind.is_generator,
        is_async_generator=kind.is_async_generator,
    )


def _default_name(target: CallableTarget, overrides: ManifestOverrides | None) -> str:
    return (overrides.name if overrides is not None else None) or target.default_name


def default_tool_name(func: Callable[..., Any]) -> str:
    """Return the name :func:`build_tool_spec` gives ``func`` when no ``name=`` is passed.

    Cheap (nothing is built), for callers that only need the name, such as a toolkit
    composing ``Class__method`` names.

    Raises:
        ManifestError: ``func`` cannot become a tool (see :func:`resolve_callable`).
    """
    target = resolve_callable(func)
    return _default_name(target, get_overrides(func) or get_overrides(target.function))


def build_tool_spec(
    func: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool = False,
    bound: Mapping[str, Any] | None = None,
    allow_extra: bool = False,
) -> ToolSpec:
    """Describe a callable as a tool.

    Args:
        func: A function (sync, async, generator), method, callable object, static or
            class method, or ``functools.partial``.
        name: The tool name (beats ``@manifest(name=...)`` and ``__name__``).
        description: The tool description (beats ``@manifest`` and the docstring).
        strict: Emit the strict schema form (every object closed, every property required,
            defaulted parameters nullable).
        bound: Values the program supplies for some parameters; hidden from the agent.
        allow_extra: Drop unknown argument keys instead of refusing them (and leave the
            schema open).

    Returns:
        The tool specification.

    Raises:
        ManifestError: The name is invalid, a type cannot be described, a decorator names
            an unknown parameter, or ``bound`` names a parameter that does not exist.
    """
    target = resolve_callable(func)
    overrides = get_overrides(func) or get_overrides(target.function)
    chosen = name or _default_name(target, overrides)
    if chosen == "<lambda>":
        raise ManifestError(
            f"a lambda has no name: pass name=... (a tool name must be {TOOL_NAME_RULE})"
        )
    check_tool_name(chosen)
    bound_values = dict(bound or {})
    key = (
        target.skip,
        target.preset,
        id(target.function),
        chosen,
        description,
        strict,
        frozenset(bound_values),
        allow_extra,
        overrides.version if overrides is not None else 0,
    )
    template = _cached(holder := target.doc_owner or target.function, key)
    if template is None:
        template = _build_template(
            target,
            name=chosen,
            description=description,
            strict=strict,
            bound_names=frozenset(bound_values),
            allow_extra=allow_extra,
            overrides=overrides,
        )
        _store(holder, key, template)
    return ToolSpec(template, func, bound_values)
