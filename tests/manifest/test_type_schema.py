"""Python types -> JSON Schema: one test per supported type, plus where types come from."""

from __future__ import annotations

import datetime
import sys
import typing
from collections.abc import Callable
from typing import Any, Literal, Optional, Union

import jsonschema
import pytest
from pydantic import Field

from appclient import ManifestError
from appclient._manifest import build_tool_spec
from appclient._manifest._signature import EMPTY
from appclient._manifest._type_schema import (
    arguments_schema,
    build_arguments_model,
    fast_schema,
    infer_from_default,
    prepare_annotation,
    resolve_type_name,
    type_schema,
)

from . import samples


def prop(func, name: str) -> dict[str, Any]:
    """The property schema of one parameter."""
    return build_tool_spec(func).schema["properties"][name]


def test_str_is_string():
    """Str becomes {"type": "string"}."""
    assert prop(samples.scalars, "text") == {"type": "string"}


def test_int_is_integer():
    """Int becomes {"type": "integer"}."""
    assert prop(samples.scalars, "count") == {"type": "integer"}


def test_float_is_number():
    """Float becomes {"type": "number"}."""
    assert prop(samples.scalars, "ratio") == {"type": "number"}


def test_bool_is_boolean():
    """Bool becomes {"type": "boolean"}."""
    assert prop(samples.scalars, "flag") == {"type": "boolean"}


def test_none_is_null():
    """None becomes {"type": "null"}."""
    assert prop(samples.scalars, "nothing") == {"type": "null"}


def test_optional_is_nullable_and_required_without_default():
    """Optional[int] without a default is nullable and still required."""
    schema = build_tool_spec(samples.scalars).schema
    assert schema["properties"]["maybe"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert "maybe" in schema["required"]


def test_pipe_none_matches_optional():
    """Int | None gives the same schema as Optional[int]."""
    assert prop(samples.scalars, "either") == prop(samples.scalars, "maybe")


def test_union_is_any_of():
    """Union[int, str] becomes anyOf of both."""
    assert prop(samples.scalars, "union") == {"anyOf": [{"type": "integer"}, {"type": "string"}]}


def test_literal_is_enum():
    """Literal["a", "b"] becomes a string enum."""
    assert prop(samples.scalars, "choice") == {"type": "string", "enum": ["a", "b"]}


def test_any_has_no_type():
    """Any becomes the empty schema (anything goes)."""
    assert prop(samples.scalars, "anything") == {}


def test_str_enum_lists_values():
    """A str Enum lists its values as a string enum."""
    schema = prop(samples.enums, "unit")
    assert schema["type"] == "string"
    assert schema["enum"] == ["celsius", "fahrenheit"]


def test_int_enum_default_is_its_value():
    """An IntEnum is an integer enum whose default is written as the value."""
    schema = prop(samples.enums, "level")
    assert (schema["type"], schema["enum"], schema["default"]) == ("integer", [1, 2], 1)


def test_plain_enum_with_mixed_values():
    """A plain Enum with str and int values lists both, without a single type."""
    schema = prop(samples.enums, "mixed")
    assert schema["enum"] == ["red", 1]
    assert "type" not in schema
    assert schema["default"] == "red"


def test_list_has_items():
    """list[str] becomes an array of strings."""
    assert prop(samples.containers, "names") == {"type": "array", "items": {"type": "string"}}


def test_set_has_unique_items():
    """set[int] becomes an array with uniqueItems."""
    assert prop(samples.containers, "tags") == {
        "type": "array",
        "items": {"type": "integer"},
        "uniqueItems": True,
    }


def test_fixed_tuple_uses_prefix_items():
    """tuple[int, str] becomes prefixItems with exactly two items."""
    schema = prop(samples.containers, "pair")
    assert schema["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    assert (schema["minItems"], schema["maxItems"]) == (2, 2)


def test_variable_tuple_uses_items():
    """tuple[float, ...] becomes an array of numbers."""
    assert prop(samples.containers, "many") == {"type": "array", "items": {"type": "number"}}


def test_dict_of_str_uses_additional_properties():
    """dict[str, float] becomes an object whose values are numbers."""
    assert prop(samples.containers, "scores") == {
        "type": "object",
        "additionalProperties": {"type": "number"},
    }


def test_dict_with_int_keys_admits_only_integer_keys():
    """dict[int, str] says its keys are integers in text, so the agent sends no other key."""

    def lookup(codes: dict[int, str]) -> None:
        """Look up."""

    validator = jsonschema.Draft202012Validator(build_tool_spec(lookup).schema)
    assert validator.is_valid({"codes": {"-12": "a"}})
    assert not validator.is_valid({"codes": {"twelve": "a"}})


@pytest.mark.parametrize("key_type", [float, bool])
def test_dict_key_pattern_admits_only_keys_validation_accepts(key_type):
    """Every key the schema admits for dict[float|bool, int] is accepted by validation."""

    def lookup(table: dict[str, int]) -> None:
        """Look up."""

    lookup.__annotations__["table"] = dict[key_type, int]  # evaluated: key_type is local
    spec = build_tool_spec(lookup)
    validator = jsonschema.Draft202012Validator(spec.schema)
    assert not validator.is_valid({"table": {"abc": 1}})
    for key in ("1", "-2.5", "true", "false"):
        if validator.is_valid({"table": {key: 1}}):
            spec.validate_arguments({"table": {key: 1}})


def test_pydantic_model_is_inlined_with_its_docstring():
    """A pydantic model parameter is an inline object described by its docstring."""
    assert prop(samples.structured, "address") == {
        "type": "object",
        "description": "A postal address.",
        "properties": {
            "street": {"type": "string"},
            "city": {"type": "string", "default": "Beijing"},
        },
        "required": ["street"],
    }


def test_dataclass_is_an_object():
    """A dataclass parameter is an object with its fields."""
    schema = prop(samples.structured, "point")
    assert schema["properties"] == {
        "x": {"type": "integer"},
        "y": {"type": "integer", "default": 0},
    }
    assert schema["required"] == ["x"]


def test_typing_typeddict_is_an_object():
    """A typing.TypedDict (refused by pydantic before 3.12) is an object with required keys."""
    schema = prop(samples.structured, "movie")
    assert schema["properties"] == {"title": {"type": "string"}, "year": {"type": "integer"}}
    assert schema["required"] == ["title", "year"]


def test_total_false_typeddict_requires_nothing():
    """A TypedDict with total=False has no required keys."""
    assert "required" not in prop(samples.structured, "patch")


def test_not_required_key_is_optional():
    """A NotRequired key of a TypedDict is left out of required."""
    assert prop(samples.structured, "rating")["required"] == ["stars"]


def test_nested_models_are_inlined():
    """A model inside a model is inlined too (no $defs when nothing recurses)."""
    schema = build_tool_spec(samples.structured).schema
    order = schema["properties"]["order"]["anyOf"][0]
    assert order["properties"]["address"]["properties"]["street"] == {"type": "string"}
    assert "$defs" not in schema


def test_recursive_model_uses_defs():
    """A recursive model stays in $defs and is referenced with $ref."""
    schema = build_tool_spec(samples.recursive).schema
    assert schema["properties"]["tree"] == {"$ref": "#/$defs/Node"}
    node = schema["$defs"]["Node"]
    assert node["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}


def test_annotated_text_is_the_description():
    """Annotated[str, "text"] gives the description."""
    assert prop(samples.annotated, "city") == {
        "type": "string",
        "description": "The city to look up.",
    }


def test_annotated_field_gives_constraints_and_description():
    """Annotated[int, Field(ge=1, le=7, description=...)] keeps both."""
    assert prop(samples.annotated, "days") == {
        "type": "integer",
        "description": "How many days.",
        "maximum": 7,
        "minimum": 1,
        "default": 1,
    }


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("when", {"type": "string", "format": "date-time"}),
        ("day", {"type": "string", "format": "date"}),
        ("at", {"type": "string", "format": "time"}),
        ("span", {"type": "string", "format": "duration"}),
        ("ident", {"type": "string", "format": "uuid"}),
        ("path", {"type": "string", "format": "path"}),
        ("blob", {"type": "string", "format": "binary"}),
    ],
)
def test_formatted_strings(name, expected):
    """datetime, date, time, timedelta, UUID, Path and bytes are formatted strings."""
    assert prop(samples.special, name) == expected


def test_decimal_is_number_or_numeric_string():
    """Decimal accepts a number or a string that looks like a number."""
    schema = prop(samples.special, "amount")
    assert schema["anyOf"][0] == {"type": "number"}
    assert schema["anyOf"][1]["type"] == "string"
    assert "pattern" in schema["anyOf"][1]


def test_string_annotations_are_evaluated():
    """Postponed (string) annotations are evaluated in the function's module."""
    spec = build_tool_spec(samples.structured)
    assert spec.parameters[0].annotation is samples.Address


def test_date_default_is_written_as_json():
    """A date default is written as its ISO text."""
    assert prop(samples.defaults, "when")["default"] == "2024-01-01"


def test_unannotated_parameter_takes_the_default_type():
    """limit=10 without annotation is an integer."""
    assert prop(samples.untyped, "limit")["type"] == "integer"


def test_unannotated_parameter_takes_the_docstring_type():
    """An unannotated parameter documented as (int) with a None default is a nullable integer."""
    assert prop(samples.untyped, "nothing")["anyOf"] == [{"type": "integer"}, {"type": "null"}]


def test_no_evidence_means_no_type():
    """With no annotation, default or docstring type, no type is guessed."""
    schema = prop(samples.untyped, "whatever")
    assert "type" not in schema
    assert "anyOf" not in schema


def test_prose_docstring_type_is_ignored():
    """A docstring type that is prose ("list of things") gives no type."""
    assert "type" not in prop(samples.untyped, "mystery")


@pytest.mark.parametrize(
    "annotation",
    [
        str,
        int,
        float,
        bool,
        type(None),
        Any,
        Optional[int],  # noqa: UP045 - the typing spelling is under test
        Union[int, str],  # noqa: UP007 - the typing spelling is under test
        int | None,
        Literal["a"],
        Literal["a", "b"],
        Literal[1, 2],
        Literal[True],
        list,
        list[int],
        dict,
        dict[str, int],
        dict[str, Any],
        list[str | None],
    ],
    ids=repr,
)
def test_fast_path_matches_pydantic(annotation):
    """Every type the fast path handles gets exactly the schema pydantic writes."""
    assert fast_schema(annotation) == type_schema(annotation, mode="validation")


def test_fast_path_defaults_match_pydantic():
    """Defaults written by the fast path equal pydantic's JSON defaults."""
    fields = [
        ("a", float, 1),
        ("b", list[int], [1, 2]),
        ("c", dict[str, Any], {"k": [None]}),
        ("d", Optional[str], None),  # noqa: UP045
    ]

    def fast(
        a: float = 1,
        b: list[int] = [1, 2],  # noqa: B006 - never mutated; the default is under test
        c: dict[str, Any] = {"k": [None]},  # noqa: B006 - same
        d: str | None = None,
    ) -> None:
        """Fast."""

    slow = arguments_schema(build_arguments_model(fields, module=__name__), fields)
    assert build_tool_spec(fast).schema["properties"] == slow["properties"]


def test_enum_member_defaults_are_written_as_plain_json():
    """A str or int enum member as the default of a plain type is written as its value."""

    def unit(
        u: str = samples.Unit.CELSIUS,
        many: list[str] = [samples.Unit.CELSIUS],  # noqa: B006 - never mutated
    ) -> None:
        """Unit."""

    properties = build_tool_spec(unit).schema["properties"]
    assert type(properties["u"]["default"]) is str
    assert [type(item) for item in properties["many"]["default"]] == [str]


def test_fast_path_declines_unknown_types():
    """Types outside the plain set go to pydantic."""
    assert fast_schema(datetime.date) is None
    assert fast_schema(samples.Unit) is None


def test_infer_from_default_ignores_none():
    """A None default says nothing about the type."""
    assert infer_from_default(None) is EMPTY
    assert infer_from_default(True) is bool


def test_resolve_type_name_reads_or_as_union():
    """The docstring type 'str or None' is read as str | None."""
    assert resolve_type_name("str or None", globalns={}, localns={}) == (str | None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("string", str), ("integer", int), ("number", float), ("boolean", bool), ("array", list)],
)
def test_resolve_type_name_reads_json_schema_type_names(text, expected):
    """JSON Schema type names (official-SDK code passes type="string") resolve to Python types."""
    namespace = {"string": __import__("string")}  # a module must not hide the JSON name
    assert resolve_type_name(text, globalns=namespace, localns={}) is expected


@pytest.mark.parametrize("text", ["__import__('os')", "print", "os.system", "list of str", "1 + 1"])
def test_resolve_type_name_never_runs_code(text):
    """Text that is not a type name is refused, without being executed as code."""
    assert resolve_type_name(text, globalns={"os": __import__("os")}, localns={}) is EMPTY


def test_typing_typeddict_inside_a_list_keeps_its_docstring():
    """A typing.TypedDict in list[...] reaches pydantic with its docstring, on every Python.

    Before 3.12 it is rewritten as a typing_extensions.TypedDict (pydantic refuses the
    typing one there); from 3.12 on it is passed as it is.
    """
    rewritten = prepare_annotation(list[samples.Movie])
    inner = typing.get_args(rewritten)[0]
    assert (type(inner).__module__ == "typing") is (sys.version_info >= (3, 12))
    assert inner.__doc__ == samples.Movie.__doc__


def test_typing_typeddict_inside_annotated_keeps_the_metadata():
    """Annotated[TypedDict, "text"] is rewritten inside before 3.12; its metadata stays."""
    rewritten = prepare_annotation(Optional[typing.Annotated[samples.Movie, "a film"]])  # noqa: UP045
    annotated = typing.get_args(rewritten)[0]
    inner = typing.get_args(annotated)[0]
    assert (type(inner).__module__ == "typing") is (sys.version_info >= (3, 12))
    assert annotated.__metadata__ == ("a film",)


def test_callable_parameter_is_a_clear_error():
    """A parameter whose type has no JSON Schema fails naming the parameter."""

    def bad(callback: Callable[[int], int]) -> None:
        """Bad."""

    with pytest.raises(ManifestError, match="'callback'"):
        build_tool_spec(bad)


def test_unresolvable_annotation_names_the_parameter():
    """A string annotation that does not resolve names its parameter."""

    def bad(value: NoSuchType) -> None:  # noqa: F821 - the missing name is the point
        """Bad."""

    with pytest.raises(ManifestError, match="'value'"):
        build_tool_spec(bad)


def test_field_default_with_an_alias_keeps_the_parameter_name():
    """x: int = Field(5, alias="X") is the property x (a call needs x=), with the Field's facts."""

    def scale(x: int = Field(5, alias="X", ge=0)) -> int:
        """Scale."""
        return x

    spec = build_tool_spec(scale)
    assert spec.schema["properties"] == {"x": {"type": "integer", "minimum": 0, "default": 5}}
    assert spec.validate_arguments({"x": 7}) == ((), {"x": 7})
