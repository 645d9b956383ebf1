"""The official Manifest shape becomes JSON Schema; real JSON Schema is left alone."""

from __future__ import annotations

import copy

import jsonschema
import pytest

from appclient._manifest._official_shape import normalize_tool, python_type_to_schema
from tests.conftest import load_request_fixture


def normalize_parameters(parameters: object) -> dict:
    """The parameters of a tool holding ``parameters``, as :func:`normalize_tool` writes them."""
    tool = {"type": "function", "function": {"name": "f", "parameters": parameters}}
    return normalize_tool(tool)["function"]["parameters"]


def _fixture_tool(name: str) -> dict:
    return load_request_fixture(name)["requests"][0]["json"]["tools"][0]


LIST_OF_STR = {"type": "array", "items": {"type": "string"}}
DICT_OF_INT = {"type": "object", "additionalProperties": {"type": "integer"}}


@pytest.mark.parametrize(
    ("type_name", "schema"),
    [
        ("str", {"type": "string"}),
        ("int", {"type": "integer"}),
        ("float", {"type": "number"}),
        ("bool", {"type": "boolean"}),
        ("List[int]", {"type": "array", "items": {"type": "integer"}}),
        ("list", {"type": "array"}),
        ("Dict[str, int]", {"type": "object", "additionalProperties": {"type": "integer"}}),
        ("Dict[str, Any]", {"type": "object"}),
        ("Optional[int]", {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        ("int | None", {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        ("Union[int, str]", {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        ("Literal[a, b]", {"enum": ["a", "b"]}),
        ("Literal['x', 2]", {"enum": ["x", 2]}),
        ("Literal['a,b', 'c|d']", {"enum": ["a,b", "c|d"]}),
        ("int | list[str]", {"anyOf": [{"type": "integer"}, LIST_OF_STR]}),
        ("dict[str, int] | list[str]", {"anyOf": [DICT_OF_INT, LIST_OF_STR]}),
        ("Any", {}),
        ("typing.Any", {}),
        ("WeatherRequest", {"type": "object"}),
    ],
)
def test_python_type_names_translate(type_name: str, schema: dict) -> None:
    """Each Python type name the official SDK writes maps to the expected schema."""
    assert python_type_to_schema(type_name) == schema


def test_annotated_type_name_takes_the_annotated_type() -> None:
    """``Annotated[int, text]`` (official name of an ``Annotated`` hint) is an integer."""
    assert python_type_to_schema("Annotated[int, the count]") == {"type": "integer"}


def test_union_type_name_of_pipe_union_is_a_union() -> None:
    """``UnionType[int, str]`` (official name of an ``int | str`` hint) is a union."""
    assert python_type_to_schema("UnionType[int, str]") == {
        "anyOf": [{"type": "integer"}, {"type": "string"}]
    }


def test_one_member_union_type_name_is_nullable() -> None:
    """``UnionType[float]`` (official name of ``float | None``, None dropped) admits null."""
    assert python_type_to_schema("UnionType[float]") == {
        "anyOf": [{"type": "number"}, {"type": "null"}]
    }


def test_null_property_type_is_dropped() -> None:
    """``"type": null`` (official @manifest_parameter naming no signature parameter) is dropped."""
    official = {"name": "extra", "type": None, "description": "Extra.", "required": True}
    parameters = normalize_parameters({"type": "object", "properties": {"extra": official}})
    assert parameters["properties"]["extra"] == {"description": "Extra."}
    jsonschema.Draft202012Validator.check_schema(parameters)


def test_raw_docstring_keeps_a_note_written_after_args() -> None:
    """A raw docstring's ``Note:`` after ``Args:`` stays in the description for the agent."""
    doc = "Get.\n\n    Args:\n        city (str): The city.\n\n    Note:\n        Only China.\n"
    tool = {"type": "function", "function": {"name": "w", "description": doc, "parameters": {}}}
    assert normalize_tool(tool)["function"]["description"] == "Get.\n\nNote: Only China."


def test_docstring_manifest_is_normalised() -> None:
    """Fixture 04: types become JSON Schema, Args descriptions fill the properties."""
    tool = normalize_tool(_fixture_tool("04_run_tools_manifest_from_function"))
    params = tool["function"]["parameters"]
    location = params["properties"]["location"]
    assert location == {"type": "string", "description": '城市名，例如："北京"。'}
    assert params["required"] == ["location", "unit"]
    assert "Args:" not in tool["function"]["description"]


def test_decorator_manifest_keeps_decorator_descriptions() -> None:
    """Fixture 05: the decorator's descriptions survive, extra keys are dropped."""
    tool = normalize_tool(_fixture_tool("05_run_tools_manifest_decorator"))
    unit = tool["function"]["parameters"]["properties"]["unit"]
    assert unit == {"type": "string", "description": "温度单位，支持 'celsius' 或 'fahrenheit'"}


@pytest.mark.parametrize(
    "name", ["04_run_tools_manifest_from_function", "05_run_tools_manifest_decorator"]
)
def test_normalised_parameters_are_valid_json_schema(name: str) -> None:
    """The normalised parameters pass the JSON Schema meta-schema."""
    params = normalize_tool(_fixture_tool(name))["function"]["parameters"]
    jsonschema.Draft202012Validator.check_schema(params)


def test_real_json_schema_is_unchanged() -> None:
    """Fixture 02's standard tool comes back equal."""
    tool = _fixture_tool("02_run_tools_raw_nonstream")
    assert normalize_tool(copy.deepcopy(tool)) == tool


def test_normalising_twice_changes_nothing() -> None:
    """normalize_tool is idempotent."""
    once = normalize_tool(_fixture_tool("04_run_tools_manifest_from_function"))
    assert normalize_tool(once) == once


def test_input_is_not_mutated() -> None:
    """The caller's dict is left as it was."""
    tool = _fixture_tool("04_run_tools_manifest_from_function")
    before = copy.deepcopy(tool)
    normalize_tool(tool)
    assert tool == before


def test_property_required_flag_joins_required_list() -> None:
    """A property's own required: true is moved into the object's required list."""
    params = normalize_parameters(
        {"type": "object", "properties": {"a": {"type": "int", "required": True}}}
    )
    assert params == {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


def test_missing_parameters_become_empty_object() -> None:
    """None parameters give an empty object schema."""
    assert normalize_parameters(None) == {"type": "object", "properties": {}}


def test_null_description_becomes_empty_text() -> None:
    """A tool with description null gets an empty description."""
    tool = normalize_tool({"type": "function", "function": {"name": "f", "description": None}})
    assert tool["function"]["description"] == ""


@pytest.mark.parametrize("required", [5, "ab", {"a": True}])
def test_malformed_required_is_left_for_validators(required: object) -> None:
    """A required that is not a list is kept as given, never split or dropped."""
    params = normalize_parameters(
        {"type": "object", "properties": {"a": {"type": "str"}}, "required": required}
    )
    assert params["required"] == required
