"""Check the agent's arguments against a tool's parameters and turn them into a call.

Pydantic's lax mode on the tool's arguments model does the checking (``"4"`` becomes ``4``,
``2.5`` is no integer). On top of it: unknown keys and keys the program supplies (``self``,
partial and bound values) are refused; ``null`` for a defaulted parameter that does not accept
``None`` means "use the default" (strict schemas offer it); a list or dict sent as JSON text is
parsed for parameters that do not accept strings. Parameters the agent left out stay out of the
call, so the function's own defaults apply. Every problem is collected into one
:class:`~appclient.errors.ToolArgumentsError`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from .._core._errors import ToolArgumentsError
from ._signature import EMPTY
from ._type_schema import ArgumentField, build_arguments_model

_MAX_INPUT_REPR = 60


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


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_INPUT_REPR else text[: _MAX_INPUT_REPR - 3] + "..."


def _problems(error: ValidationError, *, prefix: str = "") -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for item in error.errors(include_url=False):
        location = ".".join(str(part) for part in item["loc"])
        field = f"{prefix}{location}" if location else prefix.rstrip(".") or "arguments"
        if item["type"] == "missing":
            problem = "missing required argument" if len(item["loc"]) == 1 else "field required"
        elif item["type"] == "extra_forbidden":
            problem = "unknown field"
        else:
            problem = f"{item['msg']} (got {_short(item['input'])})"
        found.append((field, problem))
    return found


def _parse_json_text(value: str) -> Any:
    text = value.strip()
    if not text or text[0] not in "[{":
        return value
    try:
        return json.loads(text)
    except ValueError:
        return value


@dataclass(eq=False)
class ArgumentBinder:
    """Validates and binds the arguments of one tool shape (every spec of that shape shares it)."""

    fields: Sequence[ArgumentField]
    slots: Sequence[CallSlot]  # in signature order
    hidden: frozenset[str]  # names the agent may not set
    var_keyword: str | None
    var_keyword_type: Any  # EMPTY when unannotated
    module: str | None  # where forward references resolve
    built: type[BaseModel] | None = None  # the arguments model, if the schema needed it
    _extras_adapter: TypeAdapter[dict[str, Any]] | None = None

    def __post_init__(self) -> None:
        self._visible = {slot.name: slot for slot in self.slots if slot.field is not None}

    def model(self) -> type[BaseModel]:
        """The arguments model, built on first use (a race builds two, harmlessly)."""
        if self.built is None:
            self.built = build_arguments_model(self.fields, module=self.module)
        return self.built

    def _validate_extras(self, extras: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
        if not extras or self.var_keyword_type in (EMPTY, Any):
            return extras, []
        if self._extras_adapter is None:
            self._extras_adapter = TypeAdapter(dict[str, self.var_keyword_type])  # type: ignore[name-defined]
        try:
            return self._extras_adapter.validate_python(extras), []
        except ValidationError as exc:
            return {}, _problems(exc)

    def _split(
        self, arguments: Mapping[str, Any], *, bound: Mapping[str, Any], allow_extra: bool
    ) -> tuple[dict[str, Any], dict[str, Any], list[tuple[str, str]]]:
        problems: list[tuple[str, str]] = []
        data: dict[str, Any] = {}
        extras: dict[str, Any] = {}
        for key, value in arguments.items():
            slot = self._visible.get(key)
            if slot is None:
                if key in self.hidden or key in bound:
                    problems.append((key, "is supplied by the program and cannot be set"))
                elif self.var_keyword is not None:
                    extras[key] = value
                elif not allow_extra:
                    expected = ", ".join(self._visible) or "none"
                    problems.append((key, f"unknown argument (expected: {expected})"))
                continue
            if value is None and slot.default is not EMPTY and not slot.nullable:
                continue  # null stands for "use the default"
            if isinstance(value, str) and not slot.accepts_string:
                value = _parse_json_text(value)
            data[key] = value
        return data, extras, problems

    def bind(
        self,
        arguments: Any,
        *,
        tool_name: str,
        bound: Mapping[str, Any],
        allow_extra: bool,
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Validate ``arguments`` (a mapping or JSON text); return the call's ``(args, kwargs)``."""
        mapping = self._as_mapping(arguments, tool_name=tool_name)
        data, extras, problems = self._split(mapping, bound=bound, allow_extra=allow_extra)
        instance: BaseModel | None = None
        try:
            instance = self.model().model_validate(data)
        except ValidationError as exc:
            problems.extend(_problems(exc))
        extras, extra_problems = self._validate_extras(extras)
        problems.extend(extra_problems)
        if problems or instance is None:
            raise _error(tool_name, problems)
        return self._assemble(instance, bound=bound, extras=extras, tool_name=tool_name)

    @staticmethod
    def _as_mapping(arguments: Any, *, tool_name: str) -> Mapping[str, Any]:
        if arguments is None:
            return {}
        if isinstance(arguments, (str, bytes)):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError as exc:
                raise _error(tool_name, [("arguments", f"not valid JSON: {exc}")]) from exc
        if not isinstance(arguments, Mapping):
            kind = type(arguments).__name__
            raise _error(tool_name, [("arguments", f"must be a JSON object, got {kind}")])
        return arguments

    def _assemble(
        self,
        instance: BaseModel,
        *,
        bound: Mapping[str, Any],
        extras: Mapping[str, Any],
        tool_name: str,
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        given = instance.model_fields_set
        positional: list[Any] = []
        skipped: list[CallSlot] = []
        keywords: dict[str, Any] = {}
        for slot in self.slots:
            if slot.field is not None and (slot.field in given or slot.always_pass):
                value, have = getattr(instance, slot.field), True
            elif slot.name in bound:
                value, have = bound[slot.name], True
            else:
                value, have = None, False
            if not slot.positional:
                if have:
                    keywords[slot.name] = value
                continue
            if not have:
                skipped.append(slot)
                continue
            for gap in skipped:  # a later positional-only value forces earlier defaults in
                if gap.default is EMPTY:
                    raise _error(tool_name, [(gap.name, "missing required argument")])
                positional.append(gap.default)
            skipped.clear()
            positional.append(value)
        slot_names = {slot.name for slot in self.slots}
        keywords.update({k: v for k, v in bound.items() if k not in slot_names})
        keywords.update(extras)
        return tuple(positional), keywords


def _error(tool_name: str, problems: Sequence[tuple[str, str]]) -> ToolArgumentsError:
    details = "; ".join(f"{field}: {problem}" for field, problem in problems)
    return ToolArgumentsError(
        f"invalid arguments for tool {tool_name!r}: {details}",
        tool_name=tool_name,
        problems=problems,
    )
