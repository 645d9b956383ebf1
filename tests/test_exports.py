"""The public facades export exactly what they list, sorted."""

from __future__ import annotations

import importlib

import pytest

FACADES = ["appclient", "appclient.server", "appclient.testing"]


def _facade(name: str):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:  # pragma: no cover - only while a facade is missing
        pytest.fail(f"facade {name} cannot be imported: {exc}")


@pytest.mark.parametrize("name", FACADES)
def test_all_is_sorted_and_unique(name: str) -> None:
    """Every facade's __all__ is sorted and has no repeats."""
    exported = list(_facade(name).__all__)
    assert exported == sorted(exported)
    assert len(exported) == len(set(exported))


@pytest.mark.parametrize("name", FACADES)
def test_every_exported_name_exists(name: str) -> None:
    """Every name in __all__ is an attribute of the facade."""
    module = _facade(name)
    missing = [item for item in module.__all__ if not hasattr(module, item)]
    assert missing == []


@pytest.mark.parametrize("name", FACADES)
def test_public_names_are_all_listed(name: str) -> None:
    """Every public, non-module attribute of a facade is listed in __all__."""
    module = _facade(name)
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and not isinstance(value, type(importlib))
        and attr not in {"annotations"}
    }
    assert public - set(module.__all__) == set()
