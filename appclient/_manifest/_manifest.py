"""``Manifest``: the tool dict the official SDK's ``Manifest.from_function`` stands for.

A ``dict`` (so ``json.dumps`` takes it, unlike the official pydantic model) that also reads
like the official model (``.type``, ``.function``, ``.model_dump()``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from ._building import build_tool_spec
from ._decorators import LAGENT_VIEW_ATTRIBUTE, OFFICIAL_VIEW_ATTRIBUTE, View
from ._official_shape import LAGENT_TYPES
from ._spec import ToolSpec


class Manifest(dict[str, Any]):
    """A tool in wire shape (a ``dict``), with the return description as an attribute.

    Attributes:
        return_description: What the function returns, from ``@manifest_return`` or the
            docstring's ``Returns:`` section (also appended to the description).
    """

    return_description: str | None = None
    _spec: ToolSpec | None = None
    _return_schema: dict[str, Any] | None = None

    @classmethod
    def from_spec(cls, spec: ToolSpec) -> Manifest:
        """Return the manifest of an already built :class:`ToolSpec`."""
        result = cls(spec.to_tool())
        result.return_description = spec.return_description
        result._spec = spec
        return result

    @property
    def func(self) -> Callable[..., Any] | None:
        """The callable a ``ToolRegistry`` runs (``None`` for a copy or an unpickled manifest)."""
        return self._spec.func if self._spec is not None else None

    @property
    def return_schema(self) -> dict[str, Any] | None:
        """The JSON Schema of the return value, when known (computed on first use)."""
        if self._spec is not None:
            return self._spec.return_schema
        return copy.deepcopy(self._return_schema)

    @classmethod
    def _restore(
        cls, tool: dict[str, Any], returns: str | None, return_schema: dict[str, Any] | None
    ) -> Manifest:
        result = cls(tool)
        result.return_description, result._return_schema = returns, return_schema
        return result

    # Copies and pickles carry the wire dict and the extras, never the spec (its callable and
    # validation model neither copy nor pickle).
    def __reduce__(self) -> tuple[Any, ...]:
        extras = (self.return_description, self.return_schema)
        return (Manifest._restore, (dict(self), *extras))

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        strict: bool = False,
    ) -> Manifest:
        """Describe a Python callable as a tool the agent can call.

        Args:
            func: A function, method, callable object or ``functools.partial``.
            name: The tool name (default: ``@manifest(name=...)`` or the function's name).
            description: The tool description (default: ``@manifest`` or the docstring).
            strict: Emit the strict schema form (closed objects, all properties required,
                defaulted parameters nullable).

        Returns:
            The tool, ready for ``json.dumps`` and ``AppClient.run(tools=[...])``.

        Raises:
            ManifestError: The callable cannot become a valid tool.
        """
        return cls.from_spec(
            build_tool_spec(func, name=name, description=description, strict=strict)
        )

    # The official Manifest is a pydantic model: code written for it reads these four members.
    @property
    def type(self) -> str:
        """The tool type, ``"function"`` (the official ``Manifest.type``)."""
        return str(self["type"])

    @property
    def function(self) -> dict[str, Any]:
        """The ``function`` object itself, not a copy (the official ``Manifest.function``)."""
        function: dict[str, Any] = self["function"]
        return function

    def model_dump(self, **options: Any) -> dict[str, Any]:
        """Return the tool as a plain, detached ``dict`` (pydantic's spelling).

        Args:
            **options: pydantic's ``model_dump`` options; the tool is plain JSON already, so
                they change nothing.

        Raises:
            TypeError: ``include`` or ``exclude`` is given (they would change the result).
        """
        _refuse_field_selection(options)
        return copy.deepcopy(dict(self))

    def model_dump_json(self, *, indent: int | None = None, **options: Any) -> str:
        """Return the tool as JSON text, formatted as pydantic's ``model_dump_json`` does.

        Args:
            indent: Spaces per level; compact (no spaces) when ``None``.
            **options: Other pydantic options; they change nothing (see :meth:`model_dump`).

        Raises:
            TypeError: ``include`` or ``exclude`` is given (they would change the result).
        """
        _refuse_field_selection(options)
        separators = (",", ":") if indent is None else (",", ": ")
        return json.dumps(self, indent=indent, ensure_ascii=False, separators=separators)

    @property
    def name(self) -> str:
        """The tool name."""
        return str(self["function"]["name"])

    @property
    def description(self) -> str:
        """The tool description."""
        return str(self["function"].get("description") or "")

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON Schema of the parameters."""
        parameters: dict[str, Any] = self["function"]["parameters"]
        return parameters


def _refuse_field_selection(options: dict[str, Any]) -> None:
    # Ignoring these would silently return fields the caller asked to leave out.
    selected = sorted(key for key in ("include", "exclude") if options.get(key) is not None)
    if selected:
        raise TypeError(
            f"Manifest.model_dump does not take {' or '.join(selected)}: the manifest is a dict, "
            "so copy it and drop the keys you do not want"
        )


def lagent_description(func: Callable[..., Any]) -> dict[str, Any]:
    """The tool of ``func`` as Lagent's ``tool_api`` dict (``func.api_description``)."""
    spec = build_tool_spec(func)
    schema = spec.schema
    parameters = []
    for name, prop in schema.get("properties", {}).items():
        item: dict[str, Any] = {"name": name}
        kind = LAGENT_TYPES.get(prop.get("type")) if isinstance(prop.get("type"), str) else None
        if kind:
            item["type"] = kind
        if prop.get("description"):
            item["description"] = prop["description"]
        parameters.append(item)
    result: dict[str, Any] = {
        "name": spec.name,
        "description": spec.summary,
        "parameters": parameters,
        "required": list(schema.get("required", [])),
    }
    if spec.return_items:
        result["return_data"] = [
            {
                "name": name,
                "description": text,
                **({"type": LAGENT_TYPES[kind]} if kind in LAGENT_TYPES else {}),
            }
            for name, kind, text in spec.return_items
        ]
    return result


View.builders[OFFICIAL_VIEW_ATTRIBUTE] = Manifest.from_function
View.builders[LAGENT_VIEW_ATTRIBUTE] = lagent_description
