"""``build_tool_spec``: a callable as a ``ToolSpec``, and which source wins for each fact.

Strongest source first:

- **name**: ``name=``, ``@manifest(name=...)``, ``__name__`` (a lambda needs ``name=``).
- **description**: ``description=``, ``@manifest(description=...)``, the docstring's summary and
  body (for a callable object, its ``__call__`` docstring, then its class docstring).
- **return description**: ``@manifest_return(description=...)``, the docstring's ``Returns:``;
  appended to the description as a plain sentence (``Returns the weather.``, ``返回天气。``;
  a heading reads as a stray docstring to an agent) unless the description already says it.
- **parameter description**: ``@manifest_parameter``, ``Field(...)`` (default or ``Annotated``)
  or ``Annotated[T, "text"]``, the docstring's entry.
- **parameter type**: ``@manifest_parameter(type=...)``, the annotation, the docstring's type,
  the default value's type (not ``None``); else no type, never a guessed string.
- **required**: no default, or ``@manifest_parameter(required=True)``.

Templates are cached weakly per function (per class for callable objects, whose ids recur once
dead) and per set of options; bound values and partial arguments stay out of them.
"""

from __future__ import annotations

import contextlib
import inspect
import pickle
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Optional

from pydantic.fields import FieldInfo
from pydantic_core import PydanticSerializationError, to_jsonable_python

from .._core._constants import MANIFEST_CACHE_ENTRIES_PER_FUNCTION, TOOL_NAME_RULE
from .._core._errors import ManifestError
from ._decorators import UNSET, ManifestOverrides, ParameterOverride, get_overrides
from ._docstrings import DocInfo, doc_info, named_returns
from ._official_shape import ReturnItem, python_type_to_schema, returns_sentence
from ._schema_tools import Schema, admits, apply_strict
from ._signature import EMPTY, CallableTarget, describe_signature, namespaces, resolve_callable
from ._spec import (
    VARIADIC,
    CallSlot,
    ParameterSpec,
    ToolSpec,
    ToolTemplate,
    ToolText,
    check_tool_name,
)
from ._type_schema import (
    annotated_description,
    arguments_schema,
    build_arguments_model,
    fast_default,
    fast_schema,
    infer_from_default,
    prepare_annotation,
    resolve_type_name,
    type_schema,
)

#: What undecorated functions and parameters say: nothing (never written to).
_NO_OVERRIDES = ManifestOverrides()
_NOT_SAID = ParameterOverride()
_CACHE_LOCK = threading.Lock()
_CACHE: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], ToolTemplate]] = (
    weakref.WeakKeyDictionary()
)


def _choose_annotation(
    parameter: inspect.Parameter, override: ParameterOverride, doc: DocInfo, target: CallableTarget
) -> Any:
    said = override.type
    if said is UNSET:  # the annotation, else the docstring's type, else the default's
        if parameter.annotation is not EMPTY:
            return parameter.annotation
        text = doc.param_types.get(parameter.name)
        resolved = resolve_type_name(text, *namespaces(target)) if text else EMPTY
        if resolved is EMPTY:
            return infer_from_default(parameter.default)
        optional: Any = Optional[resolved]  # noqa: UP045 - some typing forms have no "|" on 3.10
        return optional if parameter.default is None else resolved
    if not isinstance(said, str):
        return said
    resolved = resolve_type_name(said, *namespaces(target))
    if resolved is EMPTY:
        raise ManifestError(
            f"cannot resolve type {said!r} given to @manifest_parameter for "
            f"{parameter.name!r}; pass a type, or use schema= for a raw JSON Schema"
        )
    return resolved


def _parameter(
    parameter: inspect.Parameter, override: ParameterOverride, doc: DocInfo, target: CallableTarget
) -> ParameterSpec:
    """The winning type, requiredness and description of one parameter (no schema yet)."""
    annotation = prepare_annotation(_choose_annotation(parameter, override, doc, target))
    default = parameter.default
    required = default is EMPTY or (isinstance(default, FieldInfo) and default.is_required())
    field_description = default.description if isinstance(default, FieldInfo) else None
    return ParameterSpec(
        name=parameter.name,
        kind=parameter.kind,
        annotation=annotation,
        default=default,
        required=required or override.required is True,
        description=override.description
        or field_description
        or annotated_description(annotation)
        or doc.params.get(parameter.name),
        schema={},
        nullable=True,
    )


def _as_json(value: Any, name: str, keyword: str) -> Any:
    # Decorator values are Python objects (dates, enums, tuples): the tool must be plain JSON.
    try:
        return to_jsonable_python(value)
    except PydanticSerializationError as exc:
        raise ManifestError(
            f"@manifest_parameter({keyword}=...) of {name!r} holds a value that "
            f"cannot be written as JSON: {exc}"
        ) from exc


def _finish_property(schema: Schema, item: ParameterSpec, override: ParameterOverride) -> Schema:
    """Write the winning description and the decorator's keywords into a property schema."""
    if item.description:
        schema["description"] = item.description
    if override.examples is not None:
        schema["examples"] = _as_json(list(override.examples), item.name, "examples")
    if override.schema is not None:
        schema.update(_as_json(dict(override.schema), item.name, "schema"))
    first: Schema = {k: schema[k] for k in ("type", "format", "description") if k in schema}
    return {**first, **{k: v for k, v in schema.items() if k not in first}}


def _return_items(overrides: ManifestOverrides, doc: DocInfo) -> tuple[ReturnItem, ...]:
    style = overrides.return_style
    if style is not None:
        items = named_returns(doc, exploded=style == "exploded")
        if not items:
            keyword = "returns_named_value" if style == "named" else "explode_return"
            shape = "name (type): what it is" if style == "named" else "- name (type): what"
            raise ManifestError(
                f"@manifest({keyword}=True) needs the docstring's Returns section to name "
                f"the value{'s' if style == 'exploded' else ''}, as '{shape}'"
            )
        return tuple(
            (name, python_type_to_schema(kind).get("type") if kind else None, text)
            for name, kind, text in items
        )
    schema = overrides.return_schema
    properties = schema.get("properties") if schema is not None else None
    if not isinstance(properties, dict):
        return ()
    return tuple(
        (
            name,
            prop.get("type") if isinstance(prop.get("type"), str) else None,
            str(prop.get("description") or ""),
        )
        for name, prop in properties.items()
        if isinstance(prop, dict)
    )


def tool_description(explicit: str | None, overrides: ManifestOverrides, doc: DocInfo) -> ToolText:
    """The tool's words: description, return description and named return values."""
    said = overrides.return_description
    returns = said or doc.returns
    summary = (explicit or overrides.description or doc.description).strip()
    items = _return_items(overrides, doc)
    named = bool(items) and overrides.return_style == "named"
    if named and not said:
        returns = items[0][2] or returns  # "bold_text (str): bold text" -> "bold text"
    if items:
        lead = _return_sentence(said).rstrip(".。") if said else ""
        sentence = returns_sentence(items, lead=lead)
    elif returns and returns not in summary:
        sentence = _return_sentence(returns)
    else:
        sentence = ""
    description = f"{summary}\n\n{sentence}" if summary and sentence else summary or sentence
    return ToolText(description, summary, returns, items, named)


#: Words that start a return description and read in lower case after "Returns".
_LEADING_WORDS = frozenset(
    {"A", "An", "The", "This", "That", "These", "Those", "Its", "Each", "Every", "All", "One"}
)


def _return_sentence(returns: str) -> str:
    """The return description as a sentence: ``Returns the weather.``, ``返回天气。``."""
    if any("\u4e00" <= char <= "\u9fff" for char in returns[:8]):
        return returns if returns.startswith("返回") else f"返回{returns}"
    word, _, rest = returns.partition(" ")
    # "The weather" -> "the weather"; other words keep their case ("JSON", "Beijing").
    if word in _LEADING_WORDS:
        word = word.lower()
    return f"Returns {word} {rest}" if rest else f"Returns {word}"


def _fast_properties(gathered: list[ParameterSpec]) -> dict[str, Schema] | None:
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
        properties[item.name] = schema
    return properties


def _build_template(
    target: CallableTarget,
    *,
    name: str,
    description: str | None,
    strict: bool,
    bound_names: frozenset[str],
    allow_extra: bool,
    overrides: ManifestOverrides,
) -> ToolTemplate:
    info = describe_signature(target)
    code = inspect.unwrap(target.function)
    doc = doc_info(target)
    by_name = {p.name: p for p in info.parameters}
    var_keyword = next((p for p in info.parameters if p.kind is p.VAR_KEYWORD), None)
    for bound_name in bound_names:
        if bound_name in info.preset or (bound_name not in by_name and var_keyword is None):
            raise ManifestError(
                f"bound argument {bound_name!r} is not a free parameter of tool {name!r}"
            )
    said = overrides.parameters  # @manifest_parameter checked that each names a parameter
    hidden = info.preset | bound_names | info.instance
    gathered = [
        _parameter(p, said.get(p.name, _NOT_SAID), doc, target)
        for p in info.parameters
        if p.kind not in VARIADIC and p.name not in hidden
    ]
    fields = [(p.name, p.annotation, EMPTY if p.required else p.default) for p in gathered]
    module = getattr(code, "__module__", None)
    model = None
    definitions: Schema = {}
    properties = _fast_properties(gathered)
    if properties is None:
        model = build_arguments_model(fields, module=module)
        raw = arguments_schema(model, fields)
        properties = raw.get("properties", {})
        definitions = raw.get("$defs", {})
    properties = {
        p.name: _finish_property(properties[p.name], p, said.get(p.name, _NOT_SAID))
        for p in gathered
    }
    nullable = {n: admits(s, "null", definitions) for n, s in properties.items()}
    accepts_string = {n: admits(s, "string", definitions) for n, s in properties.items()}
    schema: Schema = {
        "type": "object",
        "properties": properties,
        "required": [p.name for p in gathered if p.required],
    }
    extras_type = prepare_annotation(var_keyword.annotation) if var_keyword else EMPTY
    if var_keyword is None and not allow_extra:
        schema["additionalProperties"] = False
    elif extras_type not in (EMPTY, Any) and (
        extras := type_schema(extras_type, mode="validation")
    ):
        schema["additionalProperties"] = extras
    if definitions:
        schema["$defs"] = definitions
    if strict:
        schema = apply_strict(schema, defaulted=[p.name for p in gathered if not p.required])
    field_names = {p.name: f"p{i}" for i, p in enumerate(gathered)}
    slots = [
        CallSlot(
            name=p.name,
            positional=p.kind is p.POSITIONAL_ONLY,
            field=field_names.get(p.name),
            default=p.default,
            nullable=nullable.get(p.name, True),
            accepts_string=accepts_string.get(p.name, True),
            always_pass=isinstance(p.default, FieldInfo),
        )
        for p in info.parameters
        if p.kind not in VARIADIC and p.name not in info.preset
    ]
    return ToolTemplate(
        name=name,
        text=tool_description(description, overrides, doc),
        return_annotation=info.return_annotation,
        return_schema_override=overrides.return_schema,
        parameters=tuple(
            replace(p, schema=schema["properties"][p.name], nullable=nullable[p.name])
            for p in gathered
        ),
        strict=strict,
        allow_extra=allow_extra,
        hidden=hidden,
        fields=fields,
        slots=slots,
        var_keyword=var_keyword.name if var_keyword else None,
        var_keyword_type=extras_type,
        module=module,
        prebuilt=model,
        schema_bytes=pickle.dumps(schema),
        is_async=inspect.iscoroutinefunction(target.function) or inspect.iscoroutinefunction(code),
        is_generator=inspect.isgeneratorfunction(code),
        is_async_generator=inspect.isasyncgenfunction(code),
    )


def _target(func: Callable[..., Any]) -> tuple[CallableTarget, ManifestOverrides, str]:
    """The reduced callable, its decorator record (maybe empty) and its default tool name."""
    target = resolve_callable(func)
    overrides = get_overrides(func) or get_overrides(target.function) or _NO_OVERRIDES
    return target, overrides, overrides.name or target.default_name


def default_tool_name(func: Callable[..., Any]) -> str:
    """The name :func:`build_tool_spec` gives ``func`` without ``name=`` (nothing is built)."""
    return _target(func)[2]


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
        ManifestError: The name is invalid, a type cannot be described, or ``bound`` names
            no free parameter.
    """
    target, overrides, default_name = _target(func)
    chosen = name or default_name
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
        overrides.version,
    )
    holder = target.doc_owner or target.function
    try:
        template = (_CACHE.get(holder) or {}).get(key)
    except TypeError:  # not weakly referenceable (some builtins): never cached
        template = None
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
        with _CACHE_LOCK, contextlib.suppress(TypeError):
            entries = _CACHE.setdefault(holder, {})
            entries[key] = template
            while len(entries) > MANIFEST_CACHE_ENTRIES_PER_FUNCTION:
                del entries[next(iter(entries))]  # dicts keep insertion order: the oldest goes
    return ToolSpec(template, func, bound_values)
