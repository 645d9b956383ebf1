"""ToolSpec.validate_arguments: lax coercion, clear refusals, a ready-to-call result."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from pydantic import Field

from appclient._manifest import build_tool_spec
from appclient.errors import ToolArgumentsError

from .samples import Address, Movie, Point, Unit


def booking(
    city: str,
    nights: int,
    when: datetime.date,
    unit: Unit = Unit.CELSIUS,
    breakfast: bool = False,
    tags: list[str] | None = None,
) -> str:
    """Book a hotel."""
    return city


def shipping(address: Address, point: Point, movie: Movie) -> None:
    """Structured arguments."""


def positional(a: int, b: int = 2, /, c: int = 3) -> tuple[int, int, int]:
    """Positional-only parameters."""
    return (a, b, c)


def anything(note: str, data: Any = None, items: list[int] | None = None) -> None:
    """A string, an Any and a list."""


def with_field(limit: int = Field(5, ge=1)) -> int:
    """A Field default."""
    return limit


def flexible(q: str, **options: int) -> dict[str, int]:
    """Extra keyword arguments."""
    return options


def problems_of(spec: Any, arguments: Any) -> dict[str, str]:
    """Validate and return the problems as a dict (the call must fail)."""
    with pytest.raises(ToolArgumentsError) as caught:
        spec.validate_arguments(arguments)
    return dict(caught.value.problems)


def test_lax_coercion_of_scalars():
    """Text numbers and booleans, ISO dates and enum values are converted."""
    _, kwargs = build_tool_spec(booking).validate_arguments(
        {
            "city": "北京",
            "nights": "4",
            "when": "2024-05-01",
            "unit": "fahrenheit",
            "breakfast": "false",
        }
    )
    assert kwargs == {
        "city": "北京",
        "nights": 4,
        "when": datetime.date(2024, 5, 1),
        "unit": Unit.FAHRENHEIT,
        "breakfast": False,
    }


def test_dicts_become_models_dataclasses_and_typeddicts():
    """Dicts become a pydantic model, a dataclass and a TypedDict."""
    _, kwargs = build_tool_spec(shipping).validate_arguments(
        {"address": {"street": "长安街"}, "point": {"x": "1"}, "movie": {"title": "T", "year": 1}}
    )
    assert kwargs["address"] == Address(street="长安街")
    assert kwargs["point"] == Point(x=1)
    assert kwargs["movie"] == {"title": "T", "year": 1}


def test_fractional_number_is_not_an_integer():
    """2.5 for an int parameter is refused."""
    spec = build_tool_spec(booking)
    found = problems_of(spec, {"city": "x", "nights": 2.5, "when": "2024-05-01"})
    assert "nights" in found


def test_missing_required_argument():
    """A missing required argument is named."""
    found = problems_of(build_tool_spec(booking), {"city": "x", "when": "2024-05-01"})
    assert found == {"nights": "missing required argument"}


def test_value_outside_enum():
    """A value outside an enum is refused."""
    found = problems_of(
        build_tool_spec(booking), {"city": "x", "nights": 1, "when": "2024-05-01", "unit": "K"}
    )
    assert "unit" in found


def test_unknown_key_is_refused():
    """An unknown argument is refused, naming the expected ones."""
    found = problems_of(
        build_tool_spec(booking), {"city": "x", "nights": 1, "when": "2024-05-01", "stars": 5}
    )
    assert found["stars"].startswith("unknown argument")


def test_unknown_key_allowed_when_configured():
    """allow_extra drops unknown keys instead of refusing them."""
    _, kwargs = build_tool_spec(booking).validate_arguments(
        {"city": "x", "nights": 1, "when": "2024-05-01", "stars": 5}, allow_extra=True
    )
    assert "stars" not in kwargs


def test_bound_parameter_is_refused_and_supplied():
    """A bound parameter cannot be set by the agent and is supplied to the call."""
    spec = build_tool_spec(booking, bound={"city": "上海"})
    assert problems_of(spec, {"city": "x", "nights": 1, "when": "2024-05-01"}) == {
        "city": "is supplied by the program and cannot be set"
    }
    _, kwargs = spec.validate_arguments({"nights": 1, "when": "2024-05-01"})
    assert kwargs["city"] == "上海"


def test_error_message_names_tool_fields_and_problems():
    """The message names the tool and every field with its problem."""
    with pytest.raises(ToolArgumentsError) as caught:
        build_tool_spec(booking).validate_arguments({"nights": "many", "when": "2024-05-01"})
    message = str(caught.value)
    assert "'booking'" in message
    assert "city: missing required argument" in message
    assert "nights: Input should be a valid integer" in message
    assert caught.value.tool_name == "booking"


def test_nested_error_names_the_path():
    """A problem inside a nested object is named by its dotted path."""
    found = problems_of(
        build_tool_spec(shipping),
        {"address": {}, "point": {"x": 1}, "movie": {"title": "T", "year": 1}},
    )
    assert found == {"address.street": "field required"}


def test_json_text_list_is_parsed_for_a_list_parameter():
    """A list sent as JSON text is parsed when the parameter is not a string."""
    _, kwargs = build_tool_spec(anything).validate_arguments({"note": "n", "items": "[1, 2]"})
    assert kwargs["items"] == [1, 2]


def test_json_text_is_kept_for_a_string_parameter():
    """JSON-looking text sent to a string parameter stays text."""
    _, kwargs = build_tool_spec(anything).validate_arguments({"note": "[1, 2]"})
    assert kwargs["note"] == "[1, 2]"


def test_json_text_is_kept_for_an_any_parameter():
    """An Any parameter accepts strings, so JSON text is not parsed for it."""
    _, kwargs = build_tool_spec(anything).validate_arguments({"note": "n", "data": "{}"})
    assert kwargs["data"] == "{}"


def test_json_text_dict_becomes_a_model():
    """A dict sent as JSON text becomes the model."""
    _, kwargs = build_tool_spec(shipping).validate_arguments(
        {"address": '{"street": "s"}', "point": {"x": 1}, "movie": {"title": "T", "year": 1}}
    )
    assert kwargs["address"] == Address(street="s")


def test_null_means_default_in_strict_mode():
    """In strict mode, null for a defaulted parameter leaves the default to the function."""
    spec = build_tool_spec(booking, strict=True)
    _, kwargs = spec.validate_arguments(
        {
            "city": "x",
            "nights": 1,
            "when": "2024-05-01",
            "unit": None,
            "breakfast": None,
            "tags": None,
        }
    )
    assert kwargs == {"city": "x", "nights": 1, "when": datetime.date(2024, 5, 1), "tags": None}


def test_null_for_required_non_nullable_is_refused():
    """Null for a required parameter that does not accept None is refused."""
    found = problems_of(build_tool_spec(booking), {"city": None, "nights": 1, "when": "2024-05-01"})
    assert "city" in found


def test_positional_only_parameters_are_positional():
    """Positional-only parameters come back in args, the rest in kwargs."""
    spec = build_tool_spec(positional)
    args, kwargs = spec.validate_arguments({"a": 1, "b": "5", "c": 9})
    assert (args, kwargs) == ((1, 5), {"c": 9})
    assert positional(*args, **kwargs) == (1, 5, 9)


def test_positional_gap_is_filled_with_the_default():
    """A skipped positional-only parameter before a given one gets its default."""

    def two(a: int = 1, b: int = 2, /) -> tuple[int, int]:
        return (a, b)

    assert build_tool_spec(two).validate_arguments({"b": 7}) == ((1, 7), {})


def test_omitted_defaults_are_left_to_the_function():
    """Parameters the agent leaves out are not passed, so the function's defaults apply."""
    _, kwargs = build_tool_spec(booking).validate_arguments(
        {"city": "x", "nights": 1, "when": "2024-05-01"}
    )
    assert set(kwargs) == {"city", "nights", "when"}


def test_field_default_is_passed_as_the_value():
    """A Field(...) default is passed as its value, never as the FieldInfo object."""
    spec = build_tool_spec(with_field)
    args, kwargs = spec.validate_arguments({})
    assert with_field(*args, **kwargs) == 5


def test_field_constraints_are_enforced():
    """Field(ge=1) refuses 0."""
    assert "limit" in problems_of(build_tool_spec(with_field), {"limit": 0})


def test_arguments_may_be_json_text():
    """The whole arguments object may arrive as JSON text."""
    assert build_tool_spec(positional).validate_arguments('{"a": 1}') == ((1,), {})


def test_arguments_must_be_an_object():
    """A list instead of an object is refused."""
    assert problems_of(build_tool_spec(positional), [1, 2]) == {
        "arguments": "must be a JSON object, got list"
    }


def test_deeply_nested_json_text_is_refused_not_a_crash():
    """JSON text nested past the parser's depth is a refused argument, not a RecursionError."""
    deep = "[" * 100_000
    assert "arguments" in problems_of(build_tool_spec(positional), deep)
    assert "items" in problems_of(build_tool_spec(anything), {"note": "n", "items": deep})


def test_extra_keywords_go_to_kwargs_validated():
    """Extra keys go to **kwargs, validated against its annotation."""
    spec = build_tool_spec(flexible)
    assert spec.validate_arguments({"q": "x", "depth": "2"}) == ((), {"q": "x", "depth": 2})
    assert "depth" in problems_of(spec, {"q": "x", "depth": "deep"})
