"""build_tool_spec and ToolSpec: names, precedence, strict mode, binding, caching."""

from __future__ import annotations

import datetime
import gc

import pytest

from appclient import ManifestError
from appclient._core._constants import MANIFEST_CACHE_ENTRIES_PER_FUNCTION
from appclient._manifest import ToolSpec, _building, build_tool_spec, default_tool_name, manifest

from .samples import Order


def add(a: int, b: int = 2) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.

    Returns:
        The sum.
    """
    return a + b


def connect(api_key: str, host: str, port: int = 443) -> str:
    """Connect somewhere."""
    return host


def nested(order: Order, when: datetime.date | None = None, retries: int = 3) -> None:
    """Place an order."""


def test_build_returns_a_tool_spec():
    """build_tool_spec returns a ToolSpec with the function's name and its func."""
    spec = build_tool_spec(add)
    assert isinstance(spec, ToolSpec)
    assert (spec.name, spec.func) == ("add", add)


def test_description_appends_the_return_description():
    """The description is the docstring prose followed by the return description."""
    spec = build_tool_spec(add)
    assert spec.description == "Add two numbers.\n\nReturns the sum."
    assert spec.return_description == "The sum."


def test_return_schema_comes_from_the_annotation():
    """The return annotation gives a return schema."""
    assert build_tool_spec(add).return_schema == {"type": "integer"}


def test_required_is_no_default():
    """Parameters without defaults are required; defaults are written as JSON."""
    schema = build_tool_spec(add).schema
    assert schema["required"] == ["a"]
    assert schema["properties"]["b"]["default"] == 2


def test_schema_refuses_unknown_keys_by_default():
    """The schema says what validation enforces: no unknown keys."""
    assert build_tool_spec(add).schema["additionalProperties"] is False


def test_allow_extra_leaves_the_schema_open():
    """allow_extra=True removes additionalProperties: false."""
    assert "additionalProperties" not in build_tool_spec(add, allow_extra=True).schema


def test_name_with_invalid_characters_states_the_rule():
    """An invalid name fails with the naming rule in the message."""
    with pytest.raises(ManifestError, match="1 to 64 characters from A-Z"):
        build_tool_spec(add, name="has space")


def test_name_length_limit():
    """64 characters are allowed, 65 are not."""
    assert build_tool_spec(add, name="a" * 64).name == "a" * 64
    with pytest.raises(ManifestError):
        build_tool_spec(add, name="a" * 65)


def test_name_with_a_trailing_newline_is_refused():
    """A name ending in a newline breaks the rule (Python's ``$`` matches before one)."""
    with pytest.raises(ManifestError, match="invalid tool name"):
        build_tool_spec(add, name="add\n")


def test_non_ascii_function_name_is_refused():
    """A Python identifier outside the rule (Chinese) needs an explicit name."""

    def 查询() -> None:  # noqa: N802 - a non-ASCII name is the point
        """Query."""

    with pytest.raises(ManifestError, match="invalid tool name"):
        build_tool_spec(查询)


def test_strict_closes_every_object():
    """Strict mode sets additionalProperties: false on nested objects too."""
    schema = build_tool_spec(nested, strict=True).schema
    order = schema["properties"]["order"]
    assert schema["additionalProperties"] is False
    assert order["additionalProperties"] is False
    assert order["properties"]["address"]["additionalProperties"] is False


def test_strict_requires_every_property():
    """Strict mode lists every property as required, nested ones included."""
    schema = build_tool_spec(nested, strict=True).schema
    assert schema["required"] == ["order", "when", "retries"]
    assert schema["properties"]["order"]["required"] == ["address", "points"]


def test_strict_makes_defaulted_parameters_nullable():
    """Strict mode makes a defaulted parameter nullable and keeps its default."""
    retries = build_tool_spec(nested, strict=True).schema["properties"]["retries"]
    assert retries == {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 3}


def test_bound_parameters_are_hidden():
    """Bound parameters disappear from the schema."""
    spec = build_tool_spec(connect, bound={"api_key": "sk-secret"})
    assert list(spec.schema["properties"]) == ["host", "port"]
    assert spec.hidden == frozenset({"api_key"})


def test_bound_values_never_appear_in_repr():
    """The repr names bound parameters but never shows their values."""
    text = repr(build_tool_spec(connect, bound={"api_key": "sk-secret"}))
    assert "api_key" in text
    assert "sk-secret" not in text


def test_bound_unknown_name_is_an_error():
    """Binding a name that is not a parameter is refused."""
    with pytest.raises(ManifestError, match="'token'"):
        build_tool_spec(connect, bound={"token": "x"})


def test_to_tool_is_the_wire_shape():
    """to_tool returns {"type": "function", "function": {name, description, parameters}}."""
    tool = build_tool_spec(add).to_tool()
    assert tool["type"] == "function"
    assert set(tool["function"]) == {"name", "description", "parameters"}


def test_to_tool_returns_independent_copies():
    """Changing a returned tool does not change the next one."""
    spec = build_tool_spec(add)
    spec.to_tool()["function"]["parameters"]["properties"].clear()
    assert spec.to_tool()["function"]["parameters"]["properties"]


def test_parameter_schemas_are_independent_copies():
    """Changing a ParameterSpec's schema does not change the next build's (the cached one)."""
    schema = build_tool_spec(add).parameters[0].schema
    assert isinstance(schema, dict)
    schema["type"] = "changed"
    assert build_tool_spec(add).parameters[0].schema["type"] == "integer"


def test_repeated_builds_share_the_cached_work():
    """Building the same function twice reuses the cached description."""
    first, second = build_tool_spec(add), build_tool_spec(add)
    assert first._template is second._template


def test_methods_of_two_instances_share_the_cache_but_not_func():
    """Two instances' bound methods share the description, each keeping its own func."""

    class Counter:
        def bump(self, by: int = 1) -> int:
            """Bump."""
            return by

    one, two = Counter(), Counter()
    spec_one, spec_two = build_tool_spec(one.bump), build_tool_spec(two.bump)
    assert spec_one._template is spec_two._template
    assert spec_one.func.__self__ is one
    assert spec_two.func.__self__ is two


def test_default_tool_name_is_the_name_a_build_gives():
    """default_tool_name agrees with build_tool_spec, @manifest names and bound methods included."""

    class Kit:
        @manifest(name="lookup")
        def find(self, query: str) -> str:
            """Find."""
            return query

    for func in (add, Kit().find):
        assert default_tool_name(func) == build_tool_spec(func).name


def test_the_cache_of_one_function_stays_bounded():
    """Builds with ever new descriptions keep only the latest few templates, not all of them."""

    def lookup(city: str) -> str:
        """Look up."""
        return city

    for day in range(MANIFEST_CACHE_ENTRIES_PER_FUNCTION * 3):
        build_tool_spec(lookup, description=f"Weather on day {day}")
    assert len(_building._CACHE[lookup]) == MANIFEST_CACHE_ENTRIES_PER_FUNCTION
    latest = f"Weather on day {MANIFEST_CACHE_ENTRIES_PER_FUNCTION * 3 - 1}"
    assert build_tool_spec(lookup, description=latest)._template is (
        build_tool_spec(lookup, description=latest)._template
    )


def test_options_are_part_of_the_cache_key():
    """A strict build and a lax build of one function differ."""
    assert build_tool_spec(add, strict=True).schema != build_tool_spec(add).schema


def test_parameters_describe_what_the_agent_sees():
    """ParameterSpec carries name, requiredness, default and description."""
    first, second = build_tool_spec(add).parameters
    assert (first.name, first.required, first.has_default) == ("a", True, False)
    assert (second.default, second.description) == (2, "The second number.")


def test_parameter_names_that_clash_with_pydantic_work():
    """Parameters named json, schema, model_config or _private validate like any other."""

    def odd(json: str, schema: int, _private: bool, model_config: str = "x") -> None:
        """Odd names."""

    spec = build_tool_spec(odd)
    assert list(spec.schema["properties"]) == ["json", "schema", "_private", "model_config"]
    assert spec.validate_arguments({"json": "a", "schema": "2", "_private": "true"}) == (
        (),
        {"json": "a", "schema": 2, "_private": True},
    )


def test_callable_classes_made_one_after_another_keep_their_own_docstrings():
    """A new class reusing a dead class's id (classes made in a loop) is not served its tool."""

    class Base:
        def __call__(self, query: str) -> str:
            return query

    for number in range(20):
        tool_class = type("Tool", (Base,), {"__doc__": f"Tool number {number}."})
        assert build_tool_spec(tool_class()).description == f"Tool number {number}."
        del tool_class
        gc.collect()
