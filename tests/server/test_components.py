from __future__ import annotations

import datetime as dt
import logging
import re
from typing import Optional

import pytest

from appclient._core._constants import TOOL_NAME_PATTERN
from appclient.server._agents._agent_api import ComponentInfo
from appclient.server._agents._components import (
    Calculator,
    CloudComponent,
    WeatherQuery,
    default_components,
)

TODAY = dt.date(2024, 5, 1)


@pytest.fixture
def weather() -> WeatherQuery:
    return WeatherQuery(today=lambda: TODAY)


def test_default_components_are_weather_and_calculator():
    """The built-in components are WeatherQuery and Calculator, with valid tool names."""
    names = [c.info.name for c in default_components()]
    assert names == ["WeatherQuery", "Calculator"]
    assert all(TOOL_NAME_PATTERN.match(name) for name in names)


def test_default_components_are_fresh_instances():
    """Each call returns new objects, so servers never share component state."""
    assert default_components()[0] is not default_components()[0]


def test_component_parameters_are_json_schema_objects():
    """Every built-in component describes its arguments as a JSON Schema object."""
    for component in default_components():
        assert component.info.parameters["type"] == "object"
        assert set(component.info.parameters["required"]) <= set(
            component.info.parameters["properties"]
        )


def test_weather_is_deterministic(weather):
    """The same city and date always give the same text."""
    assert weather.run({"city": "北京"}) == weather.run({"city": "北京"})


def test_weather_differs_between_cities(weather):
    """Different cities get different weather."""
    assert weather.run({"city": "Tokyo"}) != weather.run({"city": "Paris"})


def test_weather_answers_in_chinese_for_a_chinese_city(weather):
    """A city written in Chinese gets a Chinese answer about today."""
    text = weather.run({"city": "北京"})
    assert text.startswith("北京今天")
    assert "°C" in text
    assert "湿度" in text


def test_weather_answers_in_english_for_an_english_city(weather):
    """A city written in English gets an English answer."""
    text = weather.run({"city": "Paris"})
    assert text.startswith("Paris today: ")
    assert "humidity" in text


def test_weather_same_place_in_both_languages_agrees(weather):
    """北京 and Beijing get the same temperature."""
    chinese = re.search(r"(-?\d+)°C", weather.run({"city": "北京"}))
    english = re.search(r"(-?\d+)°C", weather.run({"city": "Beijing"}))
    assert chinese is not None
    assert english is not None
    assert chinese.group(1) == english.group(1)


def test_weather_in_fahrenheit_converts(weather):
    """unit=fahrenheit converts the same temperature to °F."""
    celsius = int(re.search(r"(-?\d+)°C", weather.run({"city": "Paris"})).group(1))
    text = weather.run({"city": "Paris", "unit": "fahrenheit"})
    assert f"{round(celsius * 9 / 5 + 32)}°F" in text


def test_weather_on_another_date_names_it(weather):
    """A date other than today is named in the answer."""
    assert "2024-05-02" in weather.run({"city": "Paris", "date": "2024-05-02"})


def test_weather_without_city_reports_the_missing_argument(weather):
    """A missing required argument comes back as text naming it."""
    assert weather.run({}) == "WeatherQuery failed: missing required argument 'city'"


def test_weather_with_a_bad_unit_reports_the_allowed_values(weather):
    """An enum miss names the allowed values, in the language of the arguments."""
    text = weather.run({"city": "北京", "unit": "kelvin"})
    assert text.startswith("WeatherQuery 调用失败：")
    assert '"celsius", "fahrenheit"' in text


def test_weather_with_a_bad_date_names_the_format(weather):
    """A date that is not ISO is reported with the expected format."""
    assert "YYYY-MM-DD" in weather.run({"city": "Paris", "date": "tomorrow"})


def test_weather_with_blank_city_is_an_error_text(weather):
    """A blank city is reported, not looked up."""
    assert "blank" in weather.run({"city": "   "})


def test_weather_ignores_unknown_arguments(weather):
    """Arguments the schema does not declare are ignored."""
    assert weather.run({"city": "Paris", "extra": 1}) == weather.run({"city": "Paris"})


def test_weather_query_of_a_non_mapping_is_an_error_text(weather):
    """Arguments that are not an object are reported as missing values."""
    assert "missing required argument" in weather.run([])  # type: ignore[arg-type]


def test_calculator_evaluates_an_expression():
    """The Calculator answers with the expression and its value."""
    assert Calculator().run({"expression": "(3 + 4) * 2"}) == "(3 + 4) * 2 = 14"


def test_calculator_reports_a_bad_expression():
    """A bad expression comes back as an error text naming it."""
    text = Calculator().run({"expression": "3 +"})
    assert text.startswith("Calculator failed: cannot evaluate '3 +'")


def test_calculator_refuses_code():
    """Code never runs: a call is refused."""
    text = Calculator().run({"expression": "__import__('os').getcwd()"})
    assert "function call is not allowed" in text


def test_calculator_with_a_number_instead_of_text_is_an_error_text():
    """A wrongly typed argument is reported by name."""
    assert "argument 'expression' must be a string" in Calculator().run({"expression": 3})


def test_from_function_reads_the_signature():
    """A function becomes a component with a schema read from its annotations."""

    def add(a: int, b: int = 2) -> int:
        """Add two numbers.

        More text.
        """
        return a + b

    component = CloudComponent.from_function(add)
    assert component.info == ComponentInfo(
        name="add",
        description="Add two numbers.",
        parameters={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a"],
        },
    )
    assert component.run({"a": 1}) == "3"


def test_from_function_types_optional_and_generic_annotations():
    """``Optional[int]`` and ``list[int]`` get their full schema, as Manifest.from_function does."""

    def pick(first: int | None, rest: list[int]) -> str:
        return str(first)

    # Evaluated typing objects, as a module without ``from __future__ import annotations`` has.
    pick.__annotations__ = {"first": Optional[int], "rest": list[int]}  # noqa: UP045 - on purpose

    properties = CloudComponent.from_function(pick).info.parameters["properties"]
    assert properties == {
        "first": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "rest": {"type": "array", "items": {"type": "integer"}},
    }


def test_from_function_dumps_structured_results_as_json():
    """A dict result becomes JSON text with non-ASCII kept."""
    component = CloudComponent.from_function(
        lambda city: {"city": city}, name="echo", parameters={"type": "object"}
    )
    assert component.run({"city": "北京"}) == '{"city": "北京"}'


def test_from_function_turns_exceptions_into_text(caplog):
    """An exception inside the function comes back as text and is logged."""

    def boom(x: str) -> str:
        raise RuntimeError("kaput")

    with caplog.at_level(logging.WARNING, logger="appclient.server"):
        text = CloudComponent.from_function(boom).run({"x": "a"})
    assert text == "boom failed: RuntimeError: kaput"
    assert "boom" in caplog.text


def test_from_function_rejects_a_bad_name():
    """A component name must follow the tool-name rule."""
    with pytest.raises(ValueError, match="component name: invalid tool name 'bad name'"):
        CloudComponent.from_function(lambda: "", name="bad name")


def test_components_have_short_reprs():
    """Reprs name the component."""
    assert repr(Calculator()) == "Calculator()"
    assert repr(WeatherQuery()) == "WeatherQuery()"
