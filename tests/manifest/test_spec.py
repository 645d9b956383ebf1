"""build_tool_spec and ToolSpec: names, descriptions, precedence, validation."""

from __future__ import annotations

import pytest

from appclient import ManifestError, ToolArgumentsError
from appclient.manifest import ToolSpec, build_tool_spec


def add(a: int, b: int = 2) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.

    Returns:
        The sum.
    """
    return a + b


def test_build_returns_tool_spec_with_name_and_description():
    """The spec carries the function name and the docstring prose plus the return line."""
    spec = build_tool_spec(add)
    assert isinstance(spec, ToolSpec)
    assert spec.name == "add"
    assert spec.description == "Add two numbers.\n\nReturns: The sum."


def test_validate_arguments_coerces_lax_values():
    """String numbers become ints, as pydantic's lax mode does."""
    assert build_tool_spec(add).validate_arguments({"a": "4"}) == ((), {"a": 4})


def test_validate_arguments_rejects_fractional_int():
    """2.5 is not an integer: the error names the field."""
    with pytest.raises(ToolArgumentsError) as caught:
        build_tool_spec(add).validate_arguments({"a": 2.5})
    assert caught.value.problems[0][0] == "a"
    assert "'add'" in str(caught.value)


def test_invalid_name_states_the_rule():
    """A name outside the pattern fails with the rule in the message."""
    with pytest.raises(ManifestError, match="1 to 64 characters"):
        build_tool_spec(add, name="has space")
