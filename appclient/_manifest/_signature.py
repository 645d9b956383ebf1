"""What a callable looks like from the outside: its parameters, their annotations, its kind.

Every kind of callable a user may hand over is reduced to one :class:`CallableTarget`: the
plain function whose signature, annotations and docstring describe the call, plus what is
already supplied before the agent's arguments arrive:

- a function, ``async`` function, generator or async generator: itself;
- a bound method (instance or class method reached through its class): ``self``/``cls``
  is supplied, so it is hidden;
- a static method: the plain function;
- a method taken through its class (``MyClass.method``): a plain function whose ``self``
  nothing supplies yet; it is hidden from the agent, and ``bound=`` may supply it;
- an object with ``__call__``: the method, with ``self`` hidden; the object's own docstring
  (its class docstring) describes the tool;
- ``functools.partial``: the wrapped callable, with the bound positional arguments and
  keywords hidden (the agent cannot override them);
- a ``functools.wraps`` wrapper: the wrapped function's signature and annotations.

String annotations (``from __future__ import annotations``) are evaluated here, one
parameter at a time, in the function's module namespace (and the owning class's), so one
unresolvable annotation names the parameter that has it instead of hiding every other type.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import sys
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .._core._errors import ManifestError

#: Marker for "no annotation" and "no default" (the same object :mod:`inspect` uses).
EMPTY: Any = inspect.Parameter.empty

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


@dataclass(frozen=True)
class CallableTarget:
    """A callable reduced to the function that describes it and what is already supplied.

    Attributes:
        function: The function whose signature, annotations and docstring describe the call.
        skip: Leading positional parameters already supplied (``self``, ``cls``, partial args).
        preset: Names already supplied by keyword (``functools.partial`` keywords).
        doc_owner: For callable objects, the class whose docstring describes the tool.
        default_name: The name the tool gets unless one is given.
    """

    function: Callable[..., Any]
    skip: int = 0
    preset: frozenset[str] = frozenset()
    doc_owner: type | None = None
    default_name: str = ""


def _name_of(obj: Any) -> str:
    name = getattr(obj, "__name__", None)
    return name if isinstance(name, str) else type(obj).__name__


def resolve_callable(obj: Any) -> CallableTarget:
    """Reduce any supported callable to a :class:`CallableTarget`.

    Raises:
        ManifestError: ``obj`` is not callable, is a class, or is an unbound ``classmethod``.
    """
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
    """Return the (global, local) namespaces the annotations of ``target`` are evaluated in."""
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


def _builtins_of(globalns: Mapping[str, Any]) -> Mapping[str, Any]:
    found = globalns.get("__builtins__", builtins)
    return found if isinstance(found, Mapping) else vars(found)


def evaluate_annotation(
    annotation: Any, *, globalns: Mapping[str, Any], localns: Mapping[str, Any], where: str
) -> Any:
    """Evaluate a string annotation (``where`` names it in the error); return others as they are.

    Raises:
        ManifestError: The string does not evaluate (an unknown or local name).
    """
    if annotation is None:
        return type(None)
    if not isinstance(annotation, str):
        return annotation
    if annotation.isidentifier():  # a bare name: look it up as eval would, minus the compile
        for namespace_ in (localns, globalns, _builtins_of(globalns)):
            if annotation in namespace_:
                value = namespace_[annotation]
                return type(None) if value is None else value
    try:
        # Evaluating annotation text in its module is exactly what typing.get_type_hints does.
        # The module dict itself (no copy: modules are large); eval only reads it.
        namespace = globalns if isinstance(globalns, dict) else dict(globalns)
        return eval(annotation, namespace, localns)  # noqa: S307 - see above
    except Exception as exc:
        raise ManifestError(
            f"cannot resolve the annotation {annotation!r} of {where}: {exc} (names used in "
            "annotations must be importable from the function's module)"
        ) from exc


@dataclass(frozen=True)
class SignatureInfo:
    """The parameters and return annotation of a resolved callable.

    Attributes:
        parameters: Every parameter in signature order, string annotations evaluated (except
            for preset parameters).
        preset: Names of the parameters already supplied (``self``, partial arguments).
        return_annotation: The evaluated return annotation, or :data:`EMPTY` (also when it
            does not resolve: the return type only feeds the optional return schema).
        instance: Parameters only the program can supply although nothing supplies them yet:
            the ``self`` of a method taken through its class (``MyClass.method``). The agent
            never sees them (the official SDK drops ``self`` too); ``bound=`` may supply them.
    """

    parameters: tuple[inspect.Parameter, ...]
    preset: frozenset[str]
    return_annotation: Any
    instance: frozenset[str] = frozenset()


def describe_signature(target: CallableTarget) -> SignatureInfo:
    """Read the signature of ``target.function`` and evaluate its annotations.

    Raises:
        ManifestError: The signature cannot be read or a parameter annotation does not resolve.
    """
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
            parameter = parameter.replace(
                annotation=evaluate_annotation(
                    parameter.annotation,
                    globalns=globalns,
                    localns=localns,
                    where=f"parameter {parameter.name!r} of {target.default_name}",
                )
            )
        result.append(parameter)
    first = next((p for p in result if p.kind in _POSITIONAL), None)
    unbound_self = first is not None and first.name == "self" and first.name not in preset_names
    returns = signature.return_annotation
    if returns is not EMPTY:
        try:
            returns = evaluate_annotation(
                returns, globalns=globalns, localns=localns, where="the return value"
            )
        except ManifestError:
            returns = EMPTY
    return SignatureInfo(
        parameters=tuple(result),
        preset=frozenset(preset_names),
        return_annotation=returns,
        instance=frozenset({"self"}) if unbound_self else frozenset(),
    )
