"""What a callable looks like from the outside: its parameters, their annotations, its kind.

Every supported callable (function, bound or unbound method, static method, object with
``__call__``, ``functools.partial``, ``functools.wraps`` wrapper) is reduced to one
:class:`CallableTarget`: the function whose signature and docstring describe the call, plus
what is supplied before the agent's arguments arrive. String annotations are evaluated one
parameter at a time, so an unresolvable one names its parameter.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from .._core._errors import ManifestError

#: Marker for "no annotation" and "no default" (the same object :mod:`inspect` uses).
EMPTY: Any = inspect.Parameter.empty

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


@dataclass(frozen=True)
class CallableTarget:
    """A callable reduced to the function that describes it and what is already supplied."""

    function: Callable[..., Any]
    skip: int = 0  # leading positional parameters supplied (self, cls, partial arguments)
    preset: frozenset[str] = frozenset()  # names supplied by keyword (partial keywords)
    doc_owner: type | None = None  # a callable object's class, whose docstring describes it
    default_name: str = ""


def _name_of(obj: Any) -> str:
    name = getattr(obj, "__name__", None)
    return name if isinstance(name, str) else type(obj).__name__


def resolve_callable(obj: Any) -> CallableTarget:
    """Reduce any supported callable to a :class:`CallableTarget` (``ManifestError`` if none)."""
    if isinstance(obj, functools.partial):
        inner = resolve_callable(obj.func)
        return replace(
            inner, skip=inner.skip + len(obj.args), preset=inner.preset | frozenset(obj.keywords)
        )
    if isinstance(obj, types.MethodType):
        inner = resolve_callable(obj.__func__)
        return replace(inner, skip=inner.skip + 1)
    if isinstance(obj, staticmethod):
        return resolve_callable(obj.__func__)
    if isinstance(obj, classmethod):
        raise ManifestError(
            "an unbound classmethod cannot be called as a tool; pass it through its class "
            "(for example MyClass.method)"
        )
    if isinstance(obj, type):
        raise ManifestError(
            f"{obj.__name__} is a class; pass a function, a method or an instance with __call__"
        )
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or inspect.ismethoddescriptor(obj):
        return CallableTarget(function=obj, default_name=_name_of(obj))
    if not callable(obj):
        raise ManifestError(f"{obj!r} is not callable, so it cannot become a tool")
    call = getattr(type(obj), "__call__", None)  # noqa: B004 - we need the class attribute itself
    if inspect.isfunction(call):
        return CallableTarget(
            function=call, skip=1, doc_owner=type(obj), default_name=type(obj).__name__
        )
    # Other callables (C extensions, exotic descriptors): let inspect find the signature.
    return CallableTarget(function=obj, default_name=_name_of(obj))


def namespaces(target: CallableTarget) -> tuple[dict[str, Any], dict[str, Any]]:
    """The (global, local) namespaces the annotations of ``target`` are evaluated in."""
    code = inspect.unwrap(target.function)
    globalns = getattr(code, "__globals__", None)
    if not isinstance(globalns, dict):
        module = sys.modules.get(getattr(code, "__module__", "") or "")
        globalns = dict(vars(module)) if module is not None else {}
    localns: dict[str, Any] = {}
    if target.doc_owner is not None:
        localns.update(vars(target.doc_owner))
    owner_name = getattr(code, "__qualname__", "").rpartition(".<locals>.")[2].rpartition(".")[0]
    owner = globalns.get(owner_name) if owner_name and "." not in owner_name else None
    if isinstance(owner, type):
        localns.update(vars(owner))
        localns.setdefault(owner.__name__, owner)
    return globalns, localns


def _evaluate(
    annotation: Any, globalns: dict[str, Any], localns: dict[str, Any], where: str
) -> Any:
    """Evaluate a string annotation (``where`` names it in the error); return others as they are."""
    if annotation is None:
        return type(None)
    if not isinstance(annotation, str):
        return annotation
    if annotation.isidentifier():  # a bare name: look it up as eval would, minus the compile
        found = globalns.get("__builtins__", builtins)
        for namespace in (localns, globalns, found if isinstance(found, dict) else vars(found)):
            if annotation in namespace:
                value = namespace[annotation]
                return type(None) if value is None else value
    try:
        # Annotation text evaluated in its module: what typing.get_type_hints does.
        return eval(annotation, globalns, localns)  # noqa: S307 - see above
    except Exception as exc:
        raise ManifestError(
            f"cannot resolve the annotation {annotation!r} of {where}: {exc} (names used in "
            "annotations must be importable from the function's module)"
        ) from exc


@dataclass(frozen=True)
class SignatureInfo:
    """The parameters (annotations evaluated, but not preset ones) and return annotation."""

    parameters: tuple[inspect.Parameter, ...]
    preset: frozenset[str]  # names already supplied (self, partial arguments)
    return_annotation: Any  # EMPTY also when it does not resolve (it only feeds return_schema)
    # The self of a method taken through its class (MyClass.method): hidden from the agent, as
    # the official SDK does, and only bound= can supply it.
    instance: frozenset[str] = frozenset()


def describe_signature(target: CallableTarget) -> SignatureInfo:
    """Read the signature of ``target.function`` and evaluate its annotations."""
    try:
        signature = inspect.signature(target.function)
    except (TypeError, ValueError) as exc:
        raise ManifestError(
            f"cannot read the signature of {target.default_name or target.function!r}: {exc}"
        ) from exc
    globalns, localns = namespaces(target)
    to_skip = target.skip
    result: list[inspect.Parameter] = []
    preset_names = set(target.preset)
    for parameter in signature.parameters.values():
        if to_skip and parameter.kind in _POSITIONAL:
            to_skip -= 1
            preset_names.add(parameter.name)
        elif parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            to_skip = 0  # further bound positionals land in *args
        if parameter.annotation is not EMPTY and parameter.name not in preset_names:
            where = f"parameter {parameter.name!r} of {target.default_name}"
            annotation = _evaluate(parameter.annotation, globalns, localns, where)
            parameter = parameter.replace(annotation=annotation)
        result.append(parameter)
    first = next((p for p in result if p.kind in _POSITIONAL), None)
    unbound_self = first is not None and first.name == "self" and first.name not in preset_names
    returns = signature.return_annotation
    if returns is not EMPTY:
        try:
            returns = _evaluate(returns, globalns, localns, "the return value")
        except ManifestError:
            returns = EMPTY
    return SignatureInfo(
        parameters=tuple(result),
        preset=frozenset(preset_names),
        return_annotation=returns,
        instance=frozenset({"self"}) if unbound_self else frozenset(),
    )
