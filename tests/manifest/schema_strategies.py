"""Hypothesis strategies for a tool's arguments, drawn from its JSON Schema.

hypothesis-jsonschema 0.23.1 (the newest release) draws objects with the old
``hypothesis.internal.conjecture.utils.many`` API (``while elements.more(): ...``), which
newer Hypothesis releases replaced by ``with many(...) as elements: for _ in elements: ...``;
with the pinned Hypothesis every object schema fails with ``'many' object has no attribute
'more'``. :func:`arguments_from_schema` gives hypothesis-jsonschema a small adapter that
offers the old API on top of the new one, and only when the installed Hypothesis needs it.

hypothesis-jsonschema also predates Draft 2020-12's ``prefixItems`` (fixed tuples): it ignores
the keyword and draws any array. The schema handed to it spells tuples the Draft 7 way
(``items: [...]`` plus ``additionalItems``), which means the same thing.
"""

from __future__ import annotations

import datetime
import types
from typing import Any

from hypothesis import strategies as st
from hypothesis.internal.conjecture import utils as conjecture_utils
from hypothesis_jsonschema import _from_schema, from_schema

_DONE = object()

#: Formats pydantic writes that hypothesis-jsonschema draws as arbitrary text.
CUSTOM_FORMATS = {
    "duration": st.timedeltas(
        min_value=datetime.timedelta(0), max_value=datetime.timedelta(days=999)
    ).map(lambda span: f"PT{span.total_seconds():.0f}S"),
    "uuid": st.uuids().map(str),
    "binary": st.text(max_size=20),
    "path": st.text(min_size=1, max_size=20),
}


class _LegacyMany:
    """The pre-6.1xx ``many`` interface (``more``/``reject``) over the current one."""

    def __init__(self, data: Any, min_size: int, max_size: float, average_size: float) -> None:
        self._many = conjecture_utils.many(
            data, min_size=min_size, max_size=max_size, average_size=average_size
        )
        self._many.__enter__()
        self._elements = iter(self._many)

    def more(self) -> bool:
        if next(self._elements, _DONE) is _DONE:
            self._many.__exit__(None)
            return False
        return True

    def reject(self, why: str | None = None) -> None:
        self._many.reject(why)


def _install_adapter() -> None:
    if hasattr(conjecture_utils.many, "more"):
        return  # an older Hypothesis: the library works as released
    _from_schema.cu = types.SimpleNamespace(many=_LegacyMany)


def _draft7_tuples(node: Any) -> Any:
    if isinstance(node, list):
        return [_draft7_tuples(item) for item in node]
    if not isinstance(node, dict):
        return node
    result = {key: _draft7_tuples(value) for key, value in node.items()}
    if "prefixItems" in result:
        rest = result.pop("items", None)
        result["items"] = result.pop("prefixItems")
        if rest is not None:
            result["additionalItems"] = rest
    return result


def arguments_from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Return a strategy of argument objects valid against ``schema``."""
    _install_adapter()
    return from_schema(_draft7_tuples(schema), custom_formats=CUSTOM_FORMATS)
