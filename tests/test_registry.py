"""The registry: functions, raw-schema tools, toolkits, groups, bound values, options."""

from __future__ import annotations

import copy
import functools
import math
from typing import Any

import pytest

from appclient import InvalidRequestError, Manifest, ManifestError, ToolRegistry
from appclient._manifest import manifest
from appclient._tools._tool_groups import ToolGroup


def get_current_weather(location: str, unit: str = "celsius") -> str:
    """Get the current weather of a Chinese city.

    Args:
        location: The city, for example 北京.
        unit: celsius or fahrenheit.
    """
    return f"{location} 25 {unit}"


def search(query: str, api_key: str, num_results: int = 3) -> list[str]:
    """Search the web.

    Args:
        query: What to look for.
        api_key: The search service key.
        num_results: How many results.
    """
    return [query] * num_results


class Weather:
    """A toolkit: its @manifest methods are tools."""

    def __init__(self) -> None:
        self.calls = 0

    @manifest(description="Today's weather of a city.")
    def today(self, city: str) -> str:  # noqa: D102 - described by @manifest
        self.calls += 1
        return f"{city}: sunny"

    @manifest()
    def forecast(self, city: str, days: int, api_key: str) -> str:
        """Forecast for some days."""
        return f"{city}: {days} days"

    def helper(self) -> str:
        """Not a tool: no @manifest."""
        return "no"


def _properties(tool: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = tool["function"]["parameters"].get("properties", {})
    return props


def test_function_becomes_a_tool() -> None:
    """add(func) produces the function's JSON Schema tool."""
    registry = ToolRegistry()
    registry.add(get_current_weather)
    [tool] = registry.tools()
    assert tool["type"] == "function"
    assert tool["function"]["name"] == "get_current_weather"
    assert set(_properties(tool)) == {"location", "unit"}


def test_constructor_accepts_functions() -> None:
    """ToolRegistry([f, g]) registers each."""
    registry = ToolRegistry([get_current_weather, search])
    assert registry.names() == ["get_current_weather", "search"]
    assert len(registry) == 2
    assert "search" in registry


def test_name_and_description_override() -> None:
    """Explicit name and description win."""
    registry = ToolRegistry()
    registry.add(get_current_weather, name="weather", description="Weather now.")
    function = registry.tools()[0]["function"]
    assert (function["name"], function["description"]) == ("weather", "Weather now.")


def test_raw_schema_tool_is_advertised_as_given() -> None:
    """add(func, tool=dict) sends the given JSON Schema tool under its own name."""
    raw = {
        "type": "function",
        "function": {
            "name": "get_weather_raw",
            "description": "仅支持中国城市的天气查询",
            "parameters": {
                "type": "object",
                "properties": {"location": {"type": "string"}, "unit": {"type": "string"}},
                "required": ["location"],
            },
        },
    }
    registry = ToolRegistry()
    entry = registry.add(get_current_weather, tool=raw)
    assert entry.name == "get_weather_raw"
    assert registry.tools() == [raw]


def test_duplicate_names_are_refused() -> None:
    """Two tools of the same name cannot be registered."""
    registry = ToolRegistry([get_current_weather])
    with pytest.raises(ManifestError, match="already registered"):
        registry.add(get_current_weather)


def test_invalid_name_states_the_rule() -> None:
    """A name outside ^[A-Za-z0-9_-]{1,64}$ is refused with the rule."""
    with pytest.raises(ManifestError, match="64"):
        ToolRegistry().add(get_current_weather, name="天气")


def test_bound_parameter_is_hidden_from_the_schema() -> None:
    """add(func, api_key=...) removes api_key from the tool's parameters."""
    registry = ToolRegistry()
    registry.add(search, api_key="sk-secret-123")
    props = _properties(registry.tools()[0])
    assert "api_key" not in props
    assert "query" in props


def test_partial_hides_its_keywords() -> None:
    """A functools.partial's keywords are hidden from the schema too."""
    registry = ToolRegistry()
    registry.add(functools.partial(search, api_key="sk-secret-123"), name="search")
    assert "api_key" not in _properties(registry.tools()[0])
    assert registry.get("search") is not None
    assert registry.get("search").secrets == ("sk-secret-123",)  # type: ignore[union-attr]


def test_binding_a_missing_parameter_is_refused() -> None:
    """Binding a name the function does not have is an error naming it."""
    with pytest.raises(ManifestError, match="'token'"):
        ToolRegistry().add(search, token="x")


def test_bind_mapping_for_names_clashing_with_options() -> None:
    """bind= supplies parameters whose names clash with add()'s own options."""

    def slow(query: str, timeout: float) -> str:
        """Query with a timeout."""
        return query

    entry = ToolRegistry().add(slow, bind={"timeout": 5.0})
    assert entry.bound == {"timeout": 5.0}
    assert entry.timeout is not None


def test_secret_values_never_appear_in_reprs() -> None:
    """Neither the tool's nor the registry's repr shows a bound value."""
    registry = ToolRegistry()
    entry = registry.add(search, api_key="sk-secret-123")
    assert "sk-secret-123" not in repr(entry)
    assert "sk-secret-123" not in repr(registry)


def test_short_bound_values_are_not_treated_as_secrets() -> None:
    """A bound number or short text is a setting, not a secret to redact."""
    entry = ToolRegistry().add(search, api_key="sk-secret-123", num_results=5)
    assert entry.secrets == ("sk-secret-123",)


@pytest.mark.parametrize(
    ("registry_timeout", "tool_timeout", "expected"),
    [
        (60.0, None, 60.0),
        (60.0, 2.0, 2.0),
        (None, None, None),
        (60.0, math.inf, None),
    ],
)
def test_timeouts(
    registry_timeout: float | None, tool_timeout: float | None, expected: Any
) -> None:
    """A tool's timeout defaults to the registry's; inf means no limit."""
    registry = ToolRegistry(timeout=registry_timeout)
    assert registry.add(get_current_weather, timeout=tool_timeout).timeout == expected


def test_non_positive_timeout_is_refused() -> None:
    """A zero or negative timeout is a clear error."""
    with pytest.raises(InvalidRequestError, match="positive"):
        ToolRegistry().add(get_current_weather, timeout=0)


@pytest.mark.parametrize("timeout", [math.nan, -math.inf])
def test_nan_and_negative_infinity_timeouts_are_refused(timeout: float) -> None:
    """NaN (which never expires, so the dispatcher spins) and -inf are refused, not accepted."""
    with pytest.raises(InvalidRequestError, match="positive"):
        ToolRegistry().add(get_current_weather, timeout=timeout)


def test_toolkit_methods_become_class_method_tools() -> None:
    """add_toolkit names @manifest methods Class__method and skips the others."""
    registry = ToolRegistry()
    registry.add_toolkit(Weather(), api_key="weather-key-1")
    assert registry.names() == ["Weather__today", "Weather__forecast"]


def test_toolkit_reverse_mapping() -> None:
    """A toolkit tool name maps back to the object and its method."""
    kit = Weather()
    registry = ToolRegistry()
    registry.add_toolkit(kit, api_key="weather-key-1")
    assert registry.toolkit_method("Weather__forecast") == (kit, "forecast")
    assert registry.toolkit_method("nope") is None


def test_toolkit_binds_only_methods_with_the_parameter() -> None:
    """A toolkit binding goes to the methods that have that parameter."""
    registry = ToolRegistry()
    registry.add_toolkit(Weather(), api_key="weather-key-1")
    assert registry.get("Weather__forecast").bound == {"api_key": "weather-key-1"}  # type: ignore[union-attr]
    assert registry.get("Weather__today").bound == {}  # type: ignore[union-attr]
    assert "api_key" not in _properties(registry.tools()[1])


def test_toolkit_prefix() -> None:
    """prefix= replaces the class name."""
    registry = ToolRegistry()
    registry.add_toolkit(Weather(), prefix="wx", api_key="weather-key-1")
    assert registry.names()[0] == "wx__today"


def test_toolkit_binding_no_method_takes_is_refused() -> None:
    """A binding that no method can take is an error, and nothing stays registered."""
    registry = ToolRegistry()
    with pytest.raises(ManifestError, match="'token'"):
        registry.add_toolkit(Weather(), token="x")
    assert len(registry) == 0


def test_toolkit_without_tool_methods_is_refused() -> None:
    """An object with no @manifest method is not a toolkit."""
    with pytest.raises(ManifestError, match="no methods decorated with @manifest"):
        ToolRegistry().add_toolkit(object())


def test_toolkit_class_instead_of_instance_is_refused() -> None:
    """Passing the class instead of an instance is a clear error."""
    with pytest.raises(ManifestError, match="instance"):
        ToolRegistry().add_toolkit(Weather)


def test_extend_recognises_toolkits_groups_and_registries() -> None:
    """The constructor sorts out functions, toolkit objects, groups and registries."""
    group = ToolGroup("g")
    group.tool(get_current_weather)
    other = ToolRegistry()
    other.add(search, api_key="sk-secret-123")
    registry = ToolRegistry([group, other, Weather()], timeout=None)
    assert registry.names()[:2] == ["get_current_weather", "search"]
    assert "Weather__today" in registry


def test_extend_explains_that_tool_dicts_need_a_function() -> None:
    """A bare tool dict cannot be dispatched; the error says how to register it."""
    with pytest.raises(InvalidRequestError, match="tool="):
        ToolRegistry([{"type": "function", "function": {"name": "x"}}])


def test_a_manifest_runs_the_function_it_was_built_from() -> None:
    """Manifest.from_function keeps its function, so a registry given it can dispatch calls."""
    tool = Manifest.from_function(get_current_weather, name="weather")
    registry = ToolRegistry([tool])
    assert registry.tools() == [dict(tool)]
    [record] = registry.dispatch(
        [{"id": "c1", "name": "weather", "arguments": {"location": "北京"}}]
    )
    assert record.output == "北京 25 celsius"


def test_a_copied_manifest_is_a_plain_tool_dict_again() -> None:
    """A copy carries no function, so it is refused like any other tool dict."""
    tool = copy.copy(Manifest.from_function(get_current_weather))
    assert tool.func is None
    with pytest.raises(InvalidRequestError, match="tool="):
        ToolRegistry([tool])


def test_extend_refuses_other_objects() -> None:
    """A non-callable object is refused with its type named."""
    with pytest.raises(InvalidRequestError, match=r"tools\[0\] must be .* got int"):
        ToolRegistry([42])


def test_group_options_reach_the_registry() -> None:
    """add_group keeps each entry's name and options."""
    group = ToolGroup("g")
    group.tool(name="weather", requires_approval=True)(get_current_weather)
    registry = ToolRegistry()
    [entry] = registry.add_group(group)
    assert (entry.name, entry.requires_approval) == ("weather", True)


def test_remove_unregisters() -> None:
    """remove() takes a tool out."""
    registry = ToolRegistry([get_current_weather])
    registry.remove("get_current_weather")
    assert registry.tools() == []


def test_tools_are_plain_json() -> None:
    """tools() is JSON-serialisable as is."""
    import json

    registry = ToolRegistry([get_current_weather])
    assert json.loads(json.dumps(registry.tools())) == registry.tools()


def test_changing_the_tools_list_does_not_change_the_registry() -> None:
    """Editing the dicts tools() returned never renames or rewrites a registered tool."""
    registry = ToolRegistry([get_current_weather])
    tools = registry.tools()
    tools[0]["function"]["name"] = "renamed"
    tools[0]["function"]["parameters"]["properties"].clear()
    fresh = registry.tools()[0]["function"]
    assert fresh["name"] == "get_current_weather"
    assert "location" in fresh["parameters"]["properties"]


def test_a_lone_function_group_or_registry_is_accepted_where_a_list_is_expected() -> None:
    """ToolRegistry(func), ToolRegistry(group) and ToolRegistry(registry) add that one item."""
    group = ToolGroup("registry-test-lone")
    group.tool(search)
    assert ToolRegistry(get_current_weather).names() == ["get_current_weather"]
    assert ToolRegistry(group).names() == ["search"]
    assert ToolRegistry(ToolRegistry([get_current_weather])).names() == ["get_current_weather"]


def test_toolkit_registration_is_all_or_nothing() -> None:
    """When one method's name is taken, none of the toolkit's tools is registered."""
    registry = ToolRegistry()
    registry.add(get_current_weather, name="Weather__forecast")
    with pytest.raises(ManifestError, match="already registered"):
        registry.add_toolkit(Weather(), api_key="weather-key-1")
    assert registry.names() == ["Weather__forecast"]


class _Forecasts:
    @manifest
    def today(self, city: str) -> str:
        """Today's weather.

        Args:
            city: The city.
        """
        return city


def test_a_toolkit_class_instead_of_an_instance_says_to_instantiate_it() -> None:
    """Registering the toolkit class itself asks for an instance, naming the class."""
    with pytest.raises(InvalidRequestError, match=r"_Forecasts\(\)"):
        ToolRegistry([_Forecasts])


def test_an_object_without_tool_methods_says_what_is_missing() -> None:
    """An object that is neither callable nor a toolkit is refused naming @manifest."""

    class Plain:
        def today(self) -> str:
            return "sunny"

    with pytest.raises(InvalidRequestError, match=r"tools\[0\] must be .*@manifest.*got Plain"):
        ToolRegistry([Plain()])


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        ({"name": "x"}, "needs a 'function' object"),
        (42, "got int"),
        ({"type": "function", "function": {"name": "f", "parameters": "nope"}}, "parameters"),
    ],
)
def test_a_ready_tool_that_is_not_a_json_schema_tool_is_a_manifest_error(tool, expected) -> None:
    """add(tool=...) with something that is not a tool raises ManifestError naming the problem."""

    def f(x: int) -> int:
        """Echo x."""
        return x

    with pytest.raises(ManifestError, match=expected):
        ToolRegistry().add(f, tool=tool)


def test_the_default_tool_timeout_is_documented_where_timeout_is() -> None:
    """The registry's docs state the default tool timeout, and it is the one applied."""
    from appclient._core._constants import DEFAULT_TOOL_TIMEOUT

    assert ToolRegistry().timeout == DEFAULT_TOOL_TIMEOUT == 60
    assert "60 when omitted" in (ToolRegistry.__doc__ or "")
