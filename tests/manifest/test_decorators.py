"""@manifest, @manifest_parameter and @manifest_return."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from appclient import ManifestError
from appclient._manifest import (
    Manifest,
    build_tool_spec,
    get_overrides,
    manifest,
    manifest_parameter,
    manifest_return,
)


def make_weather(order: str) -> Any:
    """Build the seed's decorated function with the decorators stacked in some order."""

    def get_current_weather(location: str, unit: str = "celsius") -> str:
        return "北京今天25度"

    decorators = {
        "m": manifest(description="获取天气。"),
        "l": manifest_parameter(name="location", description="城市名，例如：北京。"),
        "u": manifest_parameter(name="unit", description="温度单位"),
        "r": manifest_return(description="天气情况描述"),
    }
    func = get_current_weather
    for key in reversed(order):  # the last letter is the innermost decorator
        func = decorators[key](func)
    return func


def test_decorators_set_descriptions():
    """The decorators' descriptions reach the tool and its properties."""
    tool = Manifest.from_function(make_weather("mlur"))
    properties = tool["function"]["parameters"]["properties"]
    assert properties["location"]["description"] == "城市名，例如：北京。"
    assert properties["unit"]["description"] == "温度单位"
    assert tool["function"]["description"] == "获取天气。\n\n返回天气情况描述"


@pytest.mark.parametrize("order", ["lurm", "rmul", "umrl", "mrlu"])
def test_decorator_order_does_not_change_the_result(order):
    """Any stacking order of the decorators gives the same tool."""
    assert Manifest.from_function(make_weather(order)) == Manifest.from_function(
        make_weather("mlur")
    )


def test_unknown_parameter_fails_at_decoration_time():
    """Naming a parameter the function lacks raises ManifestError when decorating."""
    with pytest.raises(ManifestError, match="names no parameter"):

        @manifest_parameter(name="city")
        def forecast(location: str) -> str:
            return location


def test_optional_without_default_fails_at_decoration_time():
    """required=False on a parameter without a default is refused."""
    with pytest.raises(ManifestError, match="no default"):

        @manifest_parameter(name="location", required=False)
        def forecast(location: str) -> str:
            return location


def test_conflicting_decorators_are_an_error():
    """Two decorators giving one parameter different descriptions is an error."""
    with pytest.raises(ManifestError, match="two different"):

        @manifest_parameter(name="q", description="one")
        @manifest_parameter(name="q", description="two")
        def find(q: str) -> str:
            return q


def test_repeating_the_same_fact_is_fine():
    """Two decorators saying the same thing do not conflict."""

    @manifest(name="find_it")
    @manifest(name="find_it", description="Find.")
    def find(q: str) -> str:
        return q

    assert build_tool_spec(find).name == "find_it"


def test_decorators_return_the_function_unchanged():
    """The decorated function is the same object and still callable."""

    def add(a: int, b: int) -> int:
        return a + b

    assert manifest(add) is add
    assert add(1, 2) == 3


def test_bare_manifest_marks_the_function():
    """@manifest without parentheses marks the function as a tool."""

    @manifest
    def ping() -> str:
        return "pong"

    record = get_overrides(ping)
    assert record is not None
    assert record.decorated


def test_manifest_parameter_alone_does_not_mark():
    """@manifest_parameter alone describes but does not mark the function."""

    @manifest_parameter(name="q", description="Query.")
    def find(q: str) -> str:
        return q

    record = get_overrides(find)
    assert record is not None
    assert not record.decorated


def test_plain_function_has_no_record():
    """An undecorated function has no manifest record."""

    def plain() -> None:
        return None

    assert get_overrides(plain) is None


def test_manifest_name_is_the_tool_name():
    """@manifest(name=...) names the tool; an explicit name= still wins."""

    @manifest(name="weather")
    def get_current_weather(location: str) -> str:
        return location

    assert build_tool_spec(get_current_weather).name == "weather"
    assert build_tool_spec(get_current_weather, name="explicit").name == "explicit"


def test_type_override_changes_schema_and_validation():
    """type= replaces the annotation for the schema and for validation."""

    @manifest_parameter(name="days", type=int)
    def forecast(days) -> str:
        return str(days)

    spec = build_tool_spec(forecast)
    assert spec.schema["properties"]["days"] == {"type": "integer"}
    assert spec.validate_arguments({"days": "3"}) == ((), {"days": 3})


def test_type_name_string_is_resolved():
    """type= may be a type name, as the official SDK's decorator accepts."""

    @manifest_parameter(name="tags", type="list[str]")
    def tag(tags) -> None:
        return None

    assert build_tool_spec(tag).schema["properties"]["tags"] == {
        "type": "array",
        "items": {"type": "string"},
    }


def test_unresolvable_type_name_is_an_error():
    """A type name that names nothing is an error when building."""

    @manifest_parameter(name="x", type="NoSuchThing")
    def f(x) -> None:
        return None

    with pytest.raises(ManifestError, match="NoSuchThing"):
        build_tool_spec(f)


def test_required_true_makes_a_defaulted_parameter_required():
    """required=True puts a defaulted parameter into required."""

    @manifest_parameter(name="unit", required=True)
    def forecast(city: str, unit: str = "celsius") -> str:
        return city

    assert build_tool_spec(forecast).schema["required"] == ["city", "unit"]


def test_examples_and_schema_keywords_are_written():
    """examples= and schema= add keywords to the property schema."""

    @manifest_parameter(name="city", examples=["北京"], schema={"minLength": 1})
    def forecast(city: str) -> str:
        return city

    assert build_tool_spec(forecast).schema["properties"]["city"] == {
        "type": "string",
        "examples": ["北京"],
        "minLength": 1,
    }


def test_manifest_return_is_structured_data():
    """@manifest_return's description and schema are available on the spec and manifest."""

    @manifest_return(description="The sum.", schema={"type": "integer"})
    def add(a: int, b: int) -> int:
        return a + b

    tool = Manifest.from_function(add)
    assert (tool.return_description, tool.return_schema) == ("The sum.", {"type": "integer"})


def test_decorated_staticmethod_object_works_through_the_class():
    """@manifest above @staticmethod still describes the function reached via the class."""

    class Tools:
        @manifest(description="Double it.")
        @staticmethod
        def double(x: int) -> int:
            return 2 * x

    assert build_tool_spec(Tools.double).description == "Double it."


def test_decorated_method_keeps_its_record_on_instances():
    """A decorated method's bound form carries the record (toolkits rely on it)."""

    class Tools:
        @manifest(description="Ping.")
        def ping(self) -> str:
            return "pong"

    assert build_tool_spec(Tools().ping).description == "Ping."


def test_decorating_a_wrapper_does_not_change_the_wrapped_function():
    """A record copied by functools.wraps is copied again before the wrapper changes it."""

    @manifest(description="Inner.")
    def inner(q: str) -> str:
        return q

    @functools.wraps(inner)
    def outer(q: str) -> str:
        return inner(q)

    manifest_parameter(name="q", description="Outer query.")(outer)
    assert build_tool_spec(inner).schema["properties"]["q"] == {"type": "string"}
    assert build_tool_spec(outer).schema["properties"]["q"]["description"] == "Outer query."


def test_decorating_after_building_rebuilds():
    """A decorator applied after a build is seen by the next build (no stale cache)."""

    def find(q: str) -> str:
        return q

    assert build_tool_spec(find).description == ""
    manifest(description="Find things.")(find)
    assert build_tool_spec(find).description == "Find things."


def test_invalid_manifest_name_fails_at_decoration_time():
    """@manifest(name=...) breaking the naming rule fails when decorating, stating the rule."""
    with pytest.raises(ManifestError, match="1 to 64 characters"):
        manifest(name="天气")


def test_callable_object_holding_a_decorated_func_attribute_is_not_that_function():
    """An object whose .func is a decorated function keeps its own name and parameters."""

    @manifest(name="inner_tool")
    @manifest_parameter(name="city", description="The city.")
    def weather(city: str) -> str:
        return city

    class Logged:
        """Logs, then runs a query."""

        def __init__(self, func: Any) -> None:
            self.func = func

        def __call__(self, query: str) -> str:
            return str(self.func(query))

    assert get_overrides(Logged(weather)) is None
    assert build_tool_spec(Logged(weather)).name == "Logged"


def test_official_sdk_decorators_are_read():
    """A function decorated with the official appbuilder decorators keeps their descriptions."""
    appbuilder = pytest.importorskip("appbuilder")

    @appbuilder.manifest(description="获取天气。")
    @appbuilder.manifest_parameter(name="location", description="城市名，例如：北京。")
    def get_current_weather(location: str, unit: str) -> str:
        return "北京今天25度"

    function = Manifest.from_function(get_current_weather)["function"]
    assert function["description"] == "获取天气。"
    assert function["parameters"]["properties"]["location"]["description"] == "城市名，例如：北京。"
    assert function["parameters"]["required"] == ["location", "unit"]


def test_official_sdk_manifest_without_description_keeps_the_docstring_reading():
    """The official @manifest() copies the raw docstring; appclient still reads it cleanly."""
    appbuilder = pytest.importorskip("appbuilder")

    @appbuilder.manifest()
    def get_current_weather(location: str) -> str:
        """Get the weather.

        Args:
            location: 城市名
        """
        return "北京今天25度"

    function = Manifest.from_function(get_current_weather)["function"]
    assert function["description"] == "Get the weather."
    assert function["parameters"]["properties"]["location"]["description"] == "城市名"


def test_official_sdk_parameter_type_applies_only_without_an_annotation():
    """An official type= fills an unannotated parameter; an annotation wins, as there."""
    appbuilder = pytest.importorskip("appbuilder")

    @appbuilder.manifest_parameter(name="count", type="int")
    @appbuilder.manifest_parameter(name="city", type="int")
    def lookup(city: str, count):  # type: ignore[no-untyped-def] # unannotated on purpose
        return city * count

    properties = Manifest.from_function(lookup)["function"]["parameters"]["properties"]
    assert properties == {"city": {"type": "string"}, "count": {"type": "integer"}}


def test_official_sdk_parameter_type_that_cannot_be_read_is_left_out():
    """An official type= naming nothing appclient can resolve describes nothing, and no error."""
    appbuilder = pytest.importorskip("appbuilder")

    @appbuilder.manifest_parameter(name="when", type="NoSuchType", description="日期")
    def lookup(when):  # type: ignore[no-untyped-def] # unannotated on purpose
        return when

    properties = Manifest.from_function(lookup)["function"]["parameters"]["properties"]
    assert properties == {"when": {"description": "日期"}}


def test_official_sdk_parameter_naming_no_parameter_is_ignored():
    """An official @manifest_parameter naming no parameter is ignored, as the official SDK does."""
    appbuilder = pytest.importorskip("appbuilder")

    @appbuilder.manifest(description="查询。")
    @appbuilder.manifest_parameter(name="citty", description="城市")
    def lookup(city: str) -> str:
        return city

    function = Manifest.from_function(lookup)["function"]
    assert list(function["parameters"]["properties"]) == ["city"]
    assert function["description"] == "查询。"


def test_decorated_functions_offer_the_official_ab_manifest_view() -> None:
    """func.__ab_manifest__ (which official-SDK code reads) shows the decorated tool."""

    @manifest(description="anotated function")
    @manifest_parameter(name="param", description="a parameter")
    def func(param: str) -> str:
        return param

    view = func.__ab_manifest__
    assert view.type == "function"
    assert view.function["name"] == "func"
    assert view.function["description"] == "anotated function"
    assert view.function["parameters"]["properties"]["param"]["description"] == "a parameter"
    assert view.model_dump()["function"]["name"] == "func"
