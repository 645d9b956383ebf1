from __future__ import annotations

import pytest

from appclient.server._parameter_slots import fill_schema, parameter_slots, slot_of
from tests.server.agent_tools import SEED_DECORATOR, SEED_FROM_FUNCTION, SEED_RAW, parameters


@pytest.mark.parametrize(
    ("name", "schema", "kind"),
    [
        ("unit", {"type": "string", "enum": ["celsius", "fahrenheit"]}, "choice"),
        (
            "unit",
            {"type": "string", "description": "温度单位，支持 'celsius' 或 'fahrenheit'"},
            "choice",
        ),
        ("unit", {"type": "string", "description": "one of: celsius, fahrenheit"}, "choice"),
        ("mode", {"const": "fast"}, "choice"),
        ("location", {"type": "string"}, "place"),
        ("q", {"type": "string", "description": "城市名，举例：北京"}, "place"),
        ("start_date", {"type": "string"}, "date"),
        ("when", {"type": "string", "format": "date-time"}, "datetime"),
        ("updated", {"type": "string"}, "text"),
        ("expression", {"type": "string"}, "expression"),
        ("to", {"type": "string", "format": "email"}, "email"),
        ("cc", {"type": "string", "description": "收件人邮箱"}, "email"),
        ("q", {"type": "string", "description": "算术表达式"}, "expression"),
        ("count", {"type": "integer"}, "integer"),
        ("count", {"anyOf": [{"type": "integer"}, {"type": "null"}]}, "integer"),
        ("count", {"type": ["null", "number"]}, "number"),
        ("flag", {"type": "boolean"}, "boolean"),
        ("tags", {"type": "array"}, "array"),
        ("query", {"type": "string"}, "text"),
        ("anything", {}, "text"),
    ],
)
def test_slot_kind(name, schema, kind):
    """Each parameter is read as the kind of value it wants."""
    assert slot_of(name, schema, required=True).kind == kind


@pytest.mark.parametrize(
    ("description", "example", "language"),
    [
        ("城市名，举例：北京", "北京", "zh"),
        ('城市名，例如："北京"。', "北京", "zh"),
        ("省，市名，例如：河北省", "河北省", "zh"),
        ("The city and state, e.g. San Francisco, CA", "San Francisco, CA", "en"),
        ("城市名，中文或英文均可 (city name, in Chinese or English)", None, None),
        ("Beijing 或 北京, e.g. 北京 Beijing", "北京 Beijing", None),
    ],
)
def test_example_and_its_language(description, example, language):
    """The description's example and its language are read (mixed examples have none)."""
    slot = slot_of("location", {"type": "string", "description": description}, required=True)
    assert (slot.example, slot.example_language) == (example, language)


def test_quoted_values_in_the_description_are_options():
    """The official Manifest shape's unit description becomes an implicit enum."""
    unit = next(s for s in parameter_slots(parameters(SEED_DECORATOR)) if s.name == "unit")
    assert (unit.kind, unit.options, unit.explicit) == ("choice", ("celsius", "fahrenheit"), False)


def test_docstring_description_options_use_double_quotes():
    """Way 2's docstring writes "celsius" 或 "fahrenheit"; those are options too."""
    unit = next(s for s in parameter_slots(parameters(SEED_FROM_FUNCTION)) if s.name == "unit")
    assert unit.options == ("celsius", "fahrenheit")


def test_a_single_quoted_value_is_an_example_not_an_option():
    """One quoted value is an example."""
    slot = slot_of("location", {"type": "string", "description": '例如："北京"'}, required=True)
    assert slot.kind == "place"
    assert slot.options == ()


def test_slots_put_required_parameters_first():
    """Required slots come first, each keeping its declared order."""
    schema = {
        "type": "object",
        "properties": {"a": {}, "b": {}, "c": {}},
        "required": ["c", "a"],
    }
    assert [(s.name, s.required) for s in parameter_slots(schema)] == [
        ("a", True),
        ("c", True),
        ("b", False),
    ]


def test_required_names_without_a_property_get_a_slot():
    """A required name the properties forgot still gets filled."""
    slots = parameter_slots({"type": "object", "required": ["ghost"]})
    assert [(s.name, s.kind) for s in slots] == [("ghost", "text")]


def test_parameter_slots_of_garbage_is_empty():
    """A parameters value that is not an object has no slots."""
    assert parameter_slots(None) == []


def test_fill_schema_drops_null_alternatives_and_keeps_the_description():
    """Optional[int] fills as int, keeping the parent's description."""
    schema = {"anyOf": [{"type": "null"}, {"type": "integer"}], "description": "how many"}
    assert fill_schema(schema) == {"type": "integer", "description": "how many"}


def test_number_cues_come_from_the_name():
    """A days parameter is tied to numbers followed by 天 or day."""
    slot = slot_of("days", {"type": "integer"}, required=False)
    assert {"天", "day"} <= set(slot.cues)


def test_seed_raw_tool_slots():
    """The seed's raw tool: a place with a Chinese example and an explicit unit enum."""
    location, unit = parameter_slots(parameters(SEED_RAW))
    assert (location.kind, location.example_language) == ("place", "zh")
    assert (unit.kind, unit.explicit) == ("choice", True)
