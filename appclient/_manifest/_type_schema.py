"""Python types -> JSON Schema and the pydantic model that validates a tool's arguments.

The parameters become the fields ``p0``, ``p1``, ... (aliased to their names, so a parameter may
be called ``json`` or ``schema``) of one pydantic model whose schema describes the tool and whose
lax validation checks the arguments, so the two cannot disagree. Plain signatures take a fast
path that writes the same schema without a model (the tests compare both paths). On Python
< 3.12, ``typing.TypedDict`` classes are rewritten as ``typing_extensions`` ones for pydantic.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import functools
import math
import pathlib
import re
import sys
import types
import typing
import uuid
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import typing_extensions
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model
from pydantic.errors import PydanticUserError
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode

from .._core._errors import ManifestError
from ._schema_tools import Schema, inline_definitions, tidy
from ._signature import EMPTY

_NONE_TYPE = type(None)
_SCALARS: dict[Any, Schema] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    _NONE_TYPE: {"type": "null"},
}
_UNION_ORIGINS = (Union, types.UnionType)
_NUMBER_TEXT = r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"
#: What the text of a dict key must look like, by pydantic key type (a subset of what lax
#: validation accepts, so every key the schema admits is valid).
_KEY_NAMES: dict[str, Schema] = {
    "int": {"pattern": r"^[+-]?[0-9]+$"},
    "float": {"pattern": _NUMBER_TEXT},
    "decimal": {"pattern": _NUMBER_TEXT},
    "bool": {"enum": ["true", "false"]},
}


class _Generator(GenerateJsonSchema):
    """Pydantic's generator without field titles and without warnings for odd defaults."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def emit_warning(self, kind: Any, detail: str) -> None:
        # A default that cannot be written as JSON is simply left out of the schema.
        return None

    def get_decimal_pattern(self, schema: Any) -> str | None:
        # Without a pattern, the string branch of a Decimal admits "abc", which fails.
        return self.build_decimal_pattern(schema)

    def dict_schema(self, schema: Any) -> Any:
        # JSON keys are text: without propertyNames, dict[int, T] admits a key "abc" that
        # validation then refuses (pydantic writes propertyNames only for enum/format keys).
        result = super().dict_schema(schema)
        key_names = _KEY_NAMES.get(schema.get("keys_schema", {}).get("type"))
        if key_names is not None and "propertyNames" not in result:
            result["propertyNames"] = dict(key_names)
        return result


#: A visible parameter as a model field: ``(parameter name, annotation or EMPTY for Any,
#: default or EMPTY when required)``; the default may be a pydantic ``FieldInfo``.
ArgumentField = tuple[str, Any, Any]

_ARGUMENTS_CONFIG = ConfigDict(extra="ignore", coerce_numbers_to_str=True)


def _field_error(fields: Sequence[ArgumentField], exc: Exception) -> ManifestError:
    for alias, annotation, _ in fields:
        annotation = Any if annotation is EMPTY else annotation
        try:
            TypeAdapter(annotation).json_schema(schema_generator=_Generator)
        except Exception as field_exc:
            return ManifestError(
                f"parameter {alias!r} has type {annotation!r}, which cannot be described "
                f"as JSON Schema ({type(field_exc).__name__}: {field_exc}); bind it "
                "(functools.partial or bound=) or use a JSON-friendly type"
            )
    return ManifestError(f"cannot build the arguments model: {exc}")


def build_arguments_model(
    fields: Sequence[ArgumentField], *, module: str | None
) -> type[BaseModel]:
    """The model whose field ``p<i>`` (alias ``fields[i][0]``) is the i-th visible parameter."""
    definitions: dict[str, Any] = {}
    for index, (alias, annotation, default) in enumerate(fields):
        if isinstance(default, FieldInfo):
            # The parameter name is the property name (the call needs it): a Field default's
            # own alias would rename the property and lose the parameter.
            default = FieldInfo.merge_field_infos(
                default, alias=alias, validation_alias=alias, serialization_alias=None
            )
        definitions[f"p{index}"] = (
            Annotated[Any if annotation is EMPTY else annotation, Field(alias=alias)],
            ... if default is EMPTY else default,
        )
    try:
        return create_model(
            "Arguments", __config__=_ARGUMENTS_CONFIG, __module__=module or __name__, **definitions
        )
    except (PydanticUserError, TypeError, NameError, ValueError, AttributeError) as exc:
        raise _field_error(fields, exc) from exc


def arguments_schema(model: type[BaseModel], fields: Sequence[ArgumentField]) -> Schema:
    """The tidied JSON Schema of an arguments model (``$defs`` inlined where possible)."""
    try:
        raw = model.model_json_schema(by_alias=True, schema_generator=_Generator)
    except Exception as exc:  # pydantic raises several unrelated types here
        raise _field_error(fields, exc) from exc
    return inline_definitions(tidy(raw))


def type_schema(annotation: Any, *, mode: JsonSchemaMode = "serialization") -> Schema | None:
    """The tidied JSON Schema of one type, or ``None`` if it has none."""
    plain = fast_schema(annotation)
    if plain is not None:
        return plain
    try:
        raw = TypeAdapter(prepare_annotation(annotation)).json_schema(
            schema_generator=_Generator, mode=mode
        )
    except Exception:  # any failure simply means "no schema for this type"
        return None
    return inline_definitions(tidy(raw))


def _literal_schema(values: tuple[Any, ...]) -> Schema | None:
    kinds = {type(value) for value in values}
    kind = kinds.pop() if len(kinds) == 1 else None
    if kind not in (str, int, bool):
        return None
    json_type = _SCALARS[kind]["type"]
    if len(values) == 1:
        return {"type": json_type, "const": values[0]}
    return {"type": json_type, "enum": list(dict.fromkeys(values))}


def fast_schema(annotation: Any) -> Schema | None:
    """Pydantic's schema of a plain type, without pydantic (``None`` if it is not plain)."""
    if annotation is EMPTY or annotation is Any:
        return {}
    try:
        scalar = _SCALARS.get(annotation)
    except TypeError:  # unhashable annotation objects are never plain
        return None
    if scalar is not None:
        return dict(scalar)
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin in _UNION_ORIGINS:
        options = [fast_schema(arg) for arg in args]
        return {"anyOf": options} if all(options) else None  # no member unplain or Any ({})
    if origin is Literal:
        return _literal_schema(args)
    if annotation is list or (origin is list and len(args) == 1):
        items = fast_schema(args[0]) if args else {}
        return None if items is None else {"type": "array", "items": items}
    if annotation is dict or (origin is dict and len(args) == 2 and args[0] is str):
        values = fast_schema(args[1]) if args else {}
        return (
            None if values is None else {"type": "object", "additionalProperties": values or True}
        )
    return None


def fast_default(value: Any) -> tuple[bool, Any]:
    """``(True, value)`` when a default is plain JSON, else ``(False, None)``."""
    kind = type(value)  # not isinstance: an enum member is an int or a str, but no plain one
    if value is None or kind in (bool, int, str):
        return True, value
    if kind is float:
        return math.isfinite(value), value
    if kind is list:
        items = [fast_default(item) for item in value]
        return all(ok for ok, _ in items), [item for _, item in items]
    if kind is dict and all(type(key) is str for key in value):
        entries = {key: fast_default(item) for key, item in value.items()}
        return all(ok for ok, _ in entries.values()), {k: v for k, (_, v) in entries.items()}
    return False, None


def annotated_description(annotation: Any) -> str | None:
    """The description carried by ``Annotated[T, "text"]``, a ``Field`` or ``Doc``."""
    if get_origin(annotation) is not Annotated:
        return None
    found: str | None = None
    for meta in getattr(annotation, "__metadata__", ()):
        if isinstance(meta, str) and meta.strip():
            found = meta.strip()
        elif isinstance(meta, FieldInfo) and meta.description:
            found = meta.description
        elif isinstance(getattr(meta, "documentation", None), str) and type(meta).__name__ == "Doc":
            found = meta.documentation
    return found


_DEFAULT_TYPES: tuple[type, ...] = (
    bool,
    int,
    float,
    str,
    bytes,
    list,
    dict,
    set,
    frozenset,
    tuple,
    datetime.datetime,
    datetime.date,
    datetime.time,
    datetime.timedelta,
    uuid.UUID,
    decimal.Decimal,
    enum.Enum,
)


def infer_from_default(default: Any) -> Any:
    """The type a default value shows, or :data:`EMPTY` when it shows none."""
    if default is EMPTY or default is None or isinstance(default, FieldInfo):
        return EMPTY
    if isinstance(default, pathlib.PurePath):
        return pathlib.Path
    if isinstance(default, _DEFAULT_TYPES):
        return type(default)
    return EMPTY


#: JSON Schema's own type names, as code written for the official SDK passes them
#: (``@manifest_parameter(type="string")``) and some docstrings write them.
_JSON_TYPE_NAMES: dict[str, Any] = {s["type"]: t for t, s in _SCALARS.items()} | {"array": list}
_TYPE_NAME = re.compile(r"[\w.\[\], |'\"]+")
_WORDS_IN_A_ROW = re.compile(r"\w\s+\w")


@functools.lru_cache(maxsize=1)
def _typing_names() -> dict[str, Any]:
    return {name: value for name, value in vars(typing).items() if not name.startswith("_")}


def resolve_type_name(text: str, globalns: Mapping[str, Any], localns: Mapping[str, Any]) -> Any:
    """A docstring or decorator type name (``"list[str]"``) as a type, or :data:`EMPTY`.

    Only names, dots, brackets, commas and ``|`` are evaluated (``str or None`` is read as
    ``str | None``), so a docstring never runs code.
    """
    candidate = re.sub(r"\s+or\s+", " | ", text.strip())
    if (
        not _TYPE_NAME.fullmatch(candidate)
        or "__" in candidate
        or _WORDS_IN_A_ROW.search(candidate)
    ):
        return EMPTY
    namespace = {**_typing_names(), **globalns}
    try:
        value = eval(candidate, namespace, dict(localns))  # noqa: S307 - text checked above
    except Exception:  # prose that happens to look like a name, or a JSON Schema type name
        value = _JSON_TYPE_NAMES.get(candidate, EMPTY)
    if value is None:
        return _NONE_TYPE
    if isinstance(value, type) or value is Any or get_origin(value) is not None:
        return value
    # A module called "string" (import string) must not hide the JSON Schema name.
    return _JSON_TYPE_NAMES.get(candidate, EMPTY)


_REWRITE_TYPED_DICTS = sys.version_info < (3, 12)
_REWRITTEN: dict[type, Any] = {}
_QUALIFIERS = (typing_extensions.Required, typing_extensions.NotRequired)


def _rewrite_typed_dict(cls: Any, active: frozenset[Any]) -> Any:
    if cls in _REWRITTEN:
        return _REWRITTEN[cls]
    if cls in active:
        raise ManifestError(
            f"{cls.__name__} is a recursive typing.TypedDict, which pydantic cannot read on "
            "Python < 3.12; declare it with typing_extensions.TypedDict instead"
        )
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except Exception as exc:
        raise ManifestError(f"cannot resolve the fields of {cls.__name__}: {exc}") from exc
    fields: dict[str, Any] = {}
    for key, hint in hints.items():
        while get_origin(hint) in _QUALIFIERS:
            hint = get_args(hint)[0]
        qualifier = _QUALIFIERS[0] if key in cls.__required_keys__ else _QUALIFIERS[1]
        fields[key] = qualifier[_rewrite(hint, active | {cls})]
    factory: Any = typing_extensions.TypedDict  # the functional form, with a run-time name
    rewritten = factory(cls.__name__, fields)
    rewritten.__doc__ = cls.__doc__
    rewritten.__module__ = cls.__module__
    rewritten.__qualname__ = cls.__qualname__
    _REWRITTEN[cls] = rewritten
    return rewritten


def _rewrite(annotation: Any, active: frozenset[Any]) -> Any:
    if typing.is_typeddict(annotation) and type(annotation).__module__ == "typing":
        return _rewrite_typed_dict(annotation, active)
    origin = get_origin(annotation)
    args = get_args(annotation)
    if origin is None or not args or origin is Literal:
        return annotation
    if origin is Annotated:
        args = args[:1]  # the type; copy_with keeps the metadata
    new_args = tuple(_rewrite(arg, active) if not isinstance(arg, list) else arg for arg in args)
    if all(new is old for new, old in zip(new_args, args, strict=True)):
        return annotation
    if origin in _UNION_ORIGINS:
        return Union[new_args]  # noqa: UP007 - rebuilding a union from a tuple of types
    if isinstance(annotation, types.GenericAlias):
        return types.GenericAlias(origin, new_args)
    copy_with = getattr(annotation, "copy_with", None)
    return copy_with(new_args) if callable(copy_with) else annotation


def prepare_annotation(annotation: Any) -> Any:
    """``annotation`` ready for pydantic (``typing.TypedDict`` rewritten before 3.12)."""
    if not _REWRITE_TYPED_DICTS or annotation is EMPTY:
        return annotation
    # On Python 3.10 list[X] passes for a type too, so a generic alias is told apart here.
    plain_class = isinstance(annotation, type) and get_origin(annotation) is None
    if plain_class and not typing.is_typeddict(annotation):
        return annotation  # a plain class: nothing inside to rewrite
    return _rewrite(annotation, frozenset())
