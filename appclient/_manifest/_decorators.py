"""The ``@manifest``, ``@manifest_parameter`` and ``@manifest_return`` decorators.

They write what they are told into one :class:`ManifestOverrides` record on the function and
return it unchanged; the record is read when a tool is built, so stacking order cannot matter,
and two decorators setting one fact to different values is an error. The keywords are the
official SDK's, and a function decorated with the official ``appbuilder.manifest`` is read too.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, TypeVar, overload

from .._core._errors import ManifestError
from ._signature import EMPTY
from ._spec import check_tool_name
from ._type_schema import resolve_type_name

OVERRIDES_ATTRIBUTE = "__appclient_manifest__"
#: What the official SDK's decorators attach: the tool view, and the parameter views.
OFFICIAL_VIEW_ATTRIBUTE = "__ab_manifest__"
OFFICIAL_PARAMETERS_ATTRIBUTE = "__ab_manifest_parameters__"
#: What Lagent's ``tool_api`` attaches: the tool in its list-of-parameters form.
LAGENT_VIEW_ATTRIBUTE = "api_description"

_T = TypeVar("_T")
#: "Not given" for decorator keywords where ``None`` is a meaningful value.
UNSET: Any = object()
_versions = itertools.count(1)


@dataclass
class ParameterOverride:
    """What decorators say about one parameter (``None``/:data:`UNSET` means "not said")."""

    description: str | None = None
    type: Any = UNSET
    required: bool | None = None
    examples: Sequence[Any] | None = None
    schema: Mapping[str, Any] | None = None


@dataclass
class ManifestOverrides:
    """Everything the decorators attached to one function.

    ``return_style`` is ``"named"`` or ``"exploded"`` (Lagent's ``returns_named_value`` /
    ``explode_return``); ``decorated`` is set by ``@manifest`` itself (toolkits look for it);
    ``version`` changes on every decoration so cached tools are rebuilt; ``owner`` is the ``id``
    of the function the record belongs to (``functools.wraps`` copies the attribute).
    """

    name: str | None = None
    description: str | None = None
    parameters: dict[str, ParameterOverride] = field(default_factory=dict)
    return_description: str | None = None
    return_schema: Mapping[str, Any] | None = None
    return_style: str | None = None
    decorated: bool = False
    version: int = 0
    owner: int = 0


def _function_of(obj: Any) -> Any:
    return obj.__func__ if isinstance(obj, (staticmethod, classmethod)) else obj


def get_overrides(obj: Any) -> ManifestOverrides | None:
    """The decorator record of a callable or of what it wraps (else the official SDK's, or None)."""
    seen: set[int] = set()
    current = obj
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        function = _function_of(current)
        own = getattr(function, OVERRIDES_ATTRIBUTE, None)
        record = own if isinstance(own, ManifestOverrides) else _official_record(function)
        if record is not None:
            return record
        # Only a partial's .func is the callable it stands for; any object may have a .func.
        inner = current.func if isinstance(current, functools.partial) else None
        current = inner or getattr(current, "__wrapped__", None)
    return None


def _official_record(function: Any) -> ManifestOverrides | None:
    """What the official SDK's ``@manifest``/``@manifest_parameter`` were told, if anything.

    Its ``@manifest`` copies the raw docstring when given no description (so that is no
    description), and its ``type=`` only fills a parameter without an annotation.
    """
    view = getattr(function, OFFICIAL_VIEW_ATTRIBUTE, None)
    # Not appclient's own view (type(), as isinstance on an ABC is slow and this runs per build).
    info = None if type(view) is View else getattr(view, "function", None)
    said = getattr(function, OFFICIAL_PARAMETERS_ATTRIBUTE, None)
    if not isinstance(info, Mapping) and not isinstance(said, list):
        return None
    record = ManifestOverrides(owner=id(function))
    if isinstance(info, Mapping):
        record.decorated = True
        name, description = info.get("name"), info.get("description")
        if isinstance(name, str) and name != getattr(function, "__name__", None):
            record.name = name
        if isinstance(description, str) and description != getattr(function, "__doc__", None):
            record.description = description
    parameters = _parameters(function)
    for item in said if isinstance(said, list) else ():
        name = getattr(item, "name", None)
        parameter = parameters.get(name) if isinstance(name, str) else None
        if parameter is None:
            continue  # the official SDK ignores a name that is no parameter, too
        entry = record.parameters.setdefault(parameter.name, ParameterOverride())
        if isinstance(description := getattr(item, "description", None), str):
            entry.description = description
        type_name = getattr(item, "type", None)
        if isinstance(type_name, str) and parameter.annotation is EMPTY:
            # Best effort: a name that does not resolve describes nothing rather than break
            # a tool that worked with the official SDK.
            namespace = getattr(function, "__globals__", {})
            resolved = resolve_type_name(type_name, globalns=namespace, localns={})
            if resolved is not EMPTY:
                entry.type = resolved
    record.version = hash(repr(record))  # the same decorations always hit the same cache entry
    return record


def _record_for(target: Any) -> ManifestOverrides:
    function = _function_of(target)
    record = getattr(function, OVERRIDES_ATTRIBUTE, None)
    if isinstance(record, ManifestOverrides) and record.owner == id(function):
        return record
    # A record copied over by functools.wraps belongs to the wrapped function: start a copy.
    fresh = ManifestOverrides(owner=id(function))
    if isinstance(record, ManifestOverrides):
        parameters = {k: replace(v) for k, v in record.parameters.items()}
        fresh = replace(record, parameters=parameters, version=0, owner=id(function))
    try:
        setattr(function, OVERRIDES_ATTRIBUTE, fresh)
        # Code written for the official SDK reads func.__ab_manifest__ (.type, .function), and
        # code written for Lagent func.api_description; an official decorator's view stays.
        for attribute in (OFFICIAL_VIEW_ATTRIBUTE, LAGENT_VIEW_ATTRIBUTE):
            if not hasattr(function, attribute):
                setattr(function, attribute, View(function, attribute))
    except (AttributeError, TypeError) as exc:
        raise ManifestError(f"cannot attach manifest information to {target!r}: {exc}") from exc
    return fresh


class View(Mapping[str, Any]):
    """``func.__ab_manifest__`` (a ``Manifest``) or ``.api_description`` (Lagent), built on read."""

    __slots__ = ("_attribute", "_function")
    #: How each view is built; set by the manifest module (which imports this one).
    builders: ClassVar[dict[str, Callable[[Any], Any]]] = {}

    def __init__(self, function: Any, attribute: str) -> None:
        self._function, self._attribute = function, attribute

    def _built(self) -> Any:
        return View.builders[self._attribute](self._function)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._built(), name)

    def __getitem__(self, key: str) -> Any:
        return self._built()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())

    def __repr__(self) -> str:
        return repr(self._built())


def _merge(
    target: Any, values: Mapping[str, Any], *, what: str, parameter: str | None = None
) -> ManifestOverrides:
    """Write ``values`` into the record of ``target`` (or of its ``parameter``); return it."""
    record = _record_for(target)
    into: Any = record
    if parameter is not None:
        into = record.parameters.setdefault(parameter, ParameterOverride())
    for key, value in values.items():
        if value is None or value is UNSET:
            continue
        current = getattr(into, key)
        if current is not None and current is not UNSET and current != value:
            raise ManifestError(
                f"{what} is given two different {key}s by two decorators ({current!r} and "
                f"{value!r}); keep one"
            )
        setattr(into, key, value)
    record.version = next(_versions)
    return record


def _parameters(target: Any) -> dict[str, inspect.Parameter]:
    """The named parameters of ``target`` (without the ``cls`` of a classmethod)."""
    try:
        parameters = list(inspect.signature(_function_of(target)).parameters.values())
    except (TypeError, ValueError) as exc:
        raise ManifestError(f"cannot read the signature of {target!r}: {exc}") from exc
    if isinstance(target, classmethod) and parameters:
        parameters = parameters[1:]
    return {p.name: p for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


@overload
def manifest(func: _T, /) -> _T: ...
@overload
def manifest(
    *,
    name: str | None = None,
    description: str | None = None,
    returns_named_value: bool = False,
    explode_return: bool = False,
) -> Callable[[_T], _T]: ...
def manifest(
    func: Any = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    returns_named_value: bool = False,
    explode_return: bool = False,
) -> Any:
    """Mark a function as a tool and optionally give its name and description.

    Usable bare or called. The return keywords are Lagent's ``tool_api`` ones: the docstring's
    Returns section names the value (``bold_text (str): bold text``), or each member of a
    returned dict on a ``- name (type): description`` line; the agent is told them.

    Args:
        func: The function, when used without parentheses.
        name: The tool name (default: the function's name).
        description: The tool description (default: from the docstring).
        returns_named_value: The Returns section gives the value a name.
        explode_return: The Returns section lists the members of the returned value.

    Returns:
        The same function, with the information attached.

    Raises:
        ManifestError: The name breaks the tool-name rule, both return keywords are given,
            or another ``@manifest`` said something else.
    """
    if name is not None:
        check_tool_name(name)
    if returns_named_value and explode_return:
        raise ManifestError(
            "returns_named_value and explode_return exclude each other: name the value, or "
            "list its members"
        )
    style = "named" if returns_named_value else "exploded" if explode_return else None

    def decorate(target: _T) -> _T:
        values = {"name": name, "description": description, "return_style": style}
        _merge(target, values, what="the tool").decorated = True
        return target

    return decorate(func) if func is not None else decorate


def manifest_parameter(
    *,
    name: str,
    description: str | None = None,
    type: Any = UNSET,
    required: bool | None = None,
    examples: Sequence[Any] | None = None,
    schema: Mapping[str, Any] | None = None,
) -> Callable[[_T], _T]:
    """Describe one parameter of a tool.

    Args:
        name: The parameter, which must exist in the function's signature.
        description: Its description (beats ``Field``/``Annotated`` and the docstring).
        type: A type or type name that replaces the annotation (for schema and validation).
        required: ``True`` makes a defaulted parameter required; ``False`` is only allowed
            for a parameter that has a default.
        examples: Example values, shown to the agent.
        schema: JSON Schema keywords written over the generated property schema (the
            arguments are still validated against the annotation).

    Returns:
        A decorator that returns the function unchanged.

    Raises:
        ManifestError: The parameter does not exist, ``required=False`` is given for one
            without a default, or decorators disagree.
    """

    def decorate(target: _T) -> _T:
        parameters = _parameters(target)
        if name not in parameters:
            raise ManifestError(
                f"@manifest_parameter(name={name!r}) names no parameter of "
                f"{getattr(_function_of(target), '__qualname__', target)!r}; its parameters are "
                f"{', '.join(parameters) or '(none)'}"
            )
        if required is False and parameters[name].default is EMPTY:
            raise ManifestError(
                f"parameter {name!r} has no default, so required=False cannot make it optional"
            )
        values = {
            "description": description,
            "type": type,
            "required": required,
            "examples": list(examples) if examples is not None else None,
            "schema": dict(schema) if schema is not None else None,
        }
        _merge(target, values, what=f"parameter {name!r}", parameter=name)
        return target

    return decorate


def manifest_return(
    *, description: str | None = None, schema: Mapping[str, Any] | None = None
) -> Callable[[_T], _T]:
    """Describe what a tool returns.

    Args:
        description: What the return value means (appended to the tool description).
        schema: A JSON Schema of the return value (default: from the return annotation).

    Returns:
        A decorator that returns the function unchanged.
    """

    def decorate(target: _T) -> _T:
        values = {
            "return_description": description,
            "return_schema": dict(schema) if schema is not None else None,
        }
        _merge(target, values, what="the return value")
        return target

    return decorate
