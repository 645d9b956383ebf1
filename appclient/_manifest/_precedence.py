"""Which source wins, fact by fact, when a callable becomes a tool (strongest first).

- **name**: the ``name=`` argument, ``@manifest(name=...)``, the function's ``__name__`` (a
  lambda has none: it needs an explicit name). Checked against ``TOOL_NAME_PATTERN``.
- **description**: the ``description=`` argument, ``@manifest(description=...)``, the
  docstring's summary and body (without its Args/Returns/Raises/Examples sections). For a
  callable object, its ``__call__`` docstring (what calling it does), then its class docstring.
- **return description**: ``@manifest_return(description=...)``, then the docstring's
  ``Returns:``. It is appended to the description in plain words (``Returns the weather.``,
  ``返回天气。``; never a section heading, which reads as a stray docstring to an agent) unless
  the description already says it, and kept as ``ToolSpec.return_description``.
- **parameter description**: ``@manifest_parameter(description=...)``, then ``Field(...)`` (as
  the default or inside ``Annotated``) or ``Annotated[T, "text"]``, then the docstring's entry.
- **parameter type**: ``@manifest_parameter(type=...)``, the annotation in the signature (a
  docstring type never overrides it), the docstring's type, the default value's type; else
  no type at all (see ``_type_schema``).
- **required**: a parameter without a default; ``@manifest_parameter(required=True)`` can
  insist on a defaulted one.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, replace
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_core import PydanticSerializationError, to_jsonable_python

from .._core._errors import ManifestError
from ._decorators import UNSET, ManifestOverrides, ParameterOverride
from ._docstrings import DocInfo, merge_doc_info, named_returns, parse_docstring
from ._official_shape import ReturnItem, python_type_to_schema, returns_sentence
from ._schema_tools import Schema
from ._signature import EMPTY, CallableTarget, SignatureParameter, namespaces
from ._type_schema import (
    annotated_description,
    infer_from_default,
    optional_of,
    prepare_annotation,
    resolve_type_name,
)

__all__ = [
    "GatheredParameter",
    "ToolText",
    "doc_info",
    "finish_property",
    "gather_parameter",
    "tool_description",
]


def _is_generated_dataclass_doc(owner: type, text: str) -> bool:
    # dataclasses write "Name(field: type, ...)" as the docstring of an undocumented class.
    return text.startswith(f"{owner.__name__}(")


def doc_info(target: CallableTarget) -> DocInfo:
    """Return what the docstrings of ``target`` say (class and ``__call__`` for objects)."""
    function_doc = parse_docstring(inspect.getdoc(target.function))
    owner = target.doc_owner
    if owner is None:
        return function_doc
    text = inspect.getdoc(owner) or ""
    if _is_generated_dataclass_doc(owner, text):
        text = ""
    owner_doc = parse_docstring(text)
    merged = merge_doc_info(function_doc, owner_doc)
    return replace(merged, description=function_doc.description or owner_doc.description)


@dataclass
class GatheredParameter:
    """One visible parameter with every fact decided.

    Attributes:
        signature: The parameter as the signature has it.
        annotation: The winning type (ready for pydantic), or ``EMPTY``.
        default: The signature default (possibly a pydantic ``FieldInfo``), or ``EMPTY``.
        required: The agent must send it.
        description: The winning description, if any.
        override: What decorators said about it.
    """

    signature: SignatureParameter
    annotation: Any
    default: Any
    required: bool
    description: str | None
    override: ParameterOverride | None


def _choose_annotation(
    parameter: SignatureParameter,
    override: ParameterOverride | None,
    doc: DocInfo,
    target: CallableTarget,
) -> Any:
    if override is not None and override.type is not UNSET:
        chosen = override.type
        if isinstance(chosen, str):
            globalns, localns = namespaces(target)
            resolved = resolve_type_name(chosen, globalns=globalns, localns=localns)
            if resolved is EMPTY:
                raise ManifestError(
                    f"cannot resolve type {chosen!r} given to @manifest_parameter for "
                    f"{parameter.name!r}; pass a type, or use schema= for a raw JSON Schema"
                )
            chosen = resolved
        return chosen
    if parameter.annotation is not EMPTY:
        return parameter.annotation
    written = doc.param_types.get(parameter.name)
    if written:
        globalns, localns = namespaces(target)
        resolved = resolve_type_name(written, globalns=globalns, localns=localns)
        if resolved is not EMPTY:
            return optional_of(resolved) if parameter.default is None else resolved
    return infer_from_default(parameter.default)


def gather_parameter(
    parameter: SignatureParameter,
    override: ParameterOverride | None,
    doc: DocInfo,
    target: CallableTarget,
) -> GatheredParameter:
    """Decide the type, requiredness and description of one parameter."""
    annotation = prepare_annotation(_choose_annotation(parameter, override, doc, target))
    default = parameter.default
    required = default is EMPTY or (isinstance(default, FieldInfo) and default.is_required())
    if override is not None and override.required:
        required = True
    field_description = default.description if isinstance(default, FieldInfo) else None
    description = (
        (override.description if override is not None else None)
        or field_description
        or annotated_description(annotation)
        or doc.params.get(parameter.name)
    )
    return GatheredParameter(parameter, annotation, default, required, description, override)


def _as_json(value: Any, item: GatheredParameter, keyword: str) -> Any:
    # Decorator values are Python objects (dates, enums, tuples): the tool must be plain JSON.
    try:
        return to_jsonable_python(value)
    except PydanticSerializationError as exc:
        raise ManifestError(
            f"@manifest_parameter({keyword}=...) of {item.signature.name!r} holds a value that "
            f"cannot be written as JSON: {exc}"
        ) from exc


def finish_property(schema: Schema, item: GatheredParameter) -> Schema:
    """Write the winning description and the decorator's keywords into a property schema."""
    if item.description:
        schema["description"] = item.description
    override = item.override
    if override is not None and override.examples is not None:
        schema["examples"] = _as_json(list(override.examples), item, "examples")
    if override is not None and override.schema is not None:
        schema.update(_as_json(dict(override.schema), item, "schema"))
    first: Schema = {k: schema[k] for k in ("type", "format", "description") if k in schema}
    return {**first, **{k: v for k, v in schema.items() if k not in first}}


@dataclass(frozen=True)
class ToolText:
    """What a tool says in words.

    Attributes:
        description: As the agent reads it (the return sentence included).
        summary: The description alone, without the return sentence (Lagent's view).
        returns: The return description, if any.
        return_items: The named return values (decorators' named/exploded returns, or the
            properties of ``@manifest_return(schema=...)``), if any.
        return_named: The one item names the value itself (``returns_named_value``), not a
            member of it.
    """

    description: str
    summary: str
    returns: str | None
    return_items: tuple[ReturnItem, ...] = ()
    return_named: bool = False


def _return_items(overrides: ManifestOverrides | None, doc: DocInfo) -> tuple[ReturnItem, ...]:
    style = overrides.return_style if overrides is not None else None
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
    schema = overrides.return_schema if overrides is not None else None
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


def tool_description(
    explicit: str | None, overrides: ManifestOverrides | None, doc: DocInfo
) -> ToolText:
    """Return the tool's words: description, return description and named return values.

    Raises:
        ManifestError: Named or exploded returns were asked for and the docstring names none.
    """
    returns = (overrides.return_description if overrides is not None else None) or doc.returns
    text = explicit or (overrides.description if overrides is not None else None)
    summary = (text or doc.description).strip()
    items = _return_items(overrides, doc)
    said = overrides.return_description if overrides is not None else None
    named = bool(items) and overrides is not None and overrides.return_style == "named"
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


def _return_sentence(returns: str) -> str:
    """The return description as a sentence: ``Returns the weather.``, ``返回天气。``."""
    if any("\u4e00" <= char <= "\u9fff" for char in returns[:8]):
        return returns if returns.startswith("返回") else f"返回{returns}"
    word, _, rest = returns.partition(" ")
    # "The weather" -> "the weather"; other words keep their case ("JSON", "Beijing").
    if word in _LEADING_WORDS:
        word = word.lower()
    return f"Returns {word} {rest}" if rest else f"Returns {word}"


#: Words that start a return description and read in lower case after "Returns".
_LEADING_WORDS = frozenset(
    {"A", "An", "The", "This", "That", "These", "Those", "Its", "Each", "Every", "All", "One"}
)
