from __future__ import annotations

import pytest

from appclient._core._models import Tool, ToolChoice
from appclient.server._agents._agent_api import PlannedCall
from appclient.server._runs._tool_choice import (
    UnknownToolChoiceError,
    forced_tool_name,
    resolve_tool_choice,
)
from tests.server.agent_tools import COMPONENT_INFOS, SEED_RAW, TODAY


def _choice(name: str | None, given: dict | None = None, kind: str = "function") -> ToolChoice:
    function = None if name is None else {"name": name, "input": given}
    return ToolChoice.model_validate({"type": kind, "function": function})


def _resolve(choice: ToolChoice | None, query: str = "", tools=(SEED_RAW,)):
    return resolve_tool_choice(
        choice, tools=list(tools), components=COMPONENT_INFOS, query=query, today=TODAY
    )


@pytest.mark.parametrize(
    "choice",
    [
        None,
        ToolChoice(type="auto"),
        ToolChoice.model_validate({"type": "auto", "function": {"name": "", "input": None}}),
    ],
)
def test_auto_forces_nothing(choice):
    """auto, a missing function, or Go's empty name force nothing."""
    assert forced_tool_name(choice) is None
    assert _resolve(choice) is None


def test_forcing_a_client_tool_calls_it_with_the_input():
    """A forced client tool is a local call with the given input."""
    call = _resolve(_choice("get_current_weather", {"location": "上海", "unit": "celsius"}))
    assert call == PlannedCall("get_current_weather", {"location": "上海", "unit": "celsius"})


def test_forcing_a_component_is_a_cloud_call():
    """A forced component (the seed's Go example) runs in the cloud."""
    call = _resolve(_choice("WeatherQuery", {"city": "北京"}), tools=())
    assert call == PlannedCall("WeatherQuery", {"city": "北京"}, cloud=True)


def test_one_missing_required_input_is_read_from_the_query():
    """The missing city is the place in the query, not the whole query."""
    call = _resolve(_choice("WeatherQuery", {}), query="北京今天的天气", tools=())
    assert call is not None
    assert call.arguments == {"city": "北京"}


def test_the_missing_input_of_a_client_tool_is_read_from_the_query():
    """A forced client tool missing one required input gets it from the query."""
    call = _resolve(_choice("get_current_weather", {"unit": "fahrenheit"}), query="上海天气")
    assert call is not None
    assert call.arguments == {"unit": "fahrenheit", "location": "上海"}


def test_two_missing_inputs_are_left_as_given():
    """Only one missing required input is filled (docs/protocol.md section 7)."""
    call = _resolve(_choice("get_current_weather", None), query="北京天气")
    assert call is not None
    assert call.arguments == {}


def test_a_client_tool_wins_over_a_component_of_the_same_name():
    """Forcing a name both define calls the client tool."""
    mine = {"type": "function", "function": {"name": "WeatherQuery", "description": "mine"}}
    call = _resolve(_choice("WeatherQuery", {"city": "x"}), tools=(mine,))
    assert call is not None
    assert call.cloud is False


def test_tools_may_be_models_or_dicts():
    """Conversation tools may be given as Tool models."""
    call = resolve_tool_choice(
        _choice("get_current_weather", {"location": "北京", "unit": "celsius"}),
        tools=[Tool.model_validate(SEED_RAW)],
        components=(),
    )
    assert call is not None
    assert call.name == "get_current_weather"


def test_an_unknown_name_is_an_error_naming_it_and_the_known_names():
    """An unknown forced name raises with the name and what exists (the server's 400)."""
    with pytest.raises(UnknownToolChoiceError) as caught:
        _resolve(_choice("Nope", {}))
    assert caught.value.name == "Nope"
    assert caught.value.available == ("get_current_weather", "WeatherQuery", "Calculator")
    assert "'Nope'" in str(caught.value)
    assert isinstance(caught.value, ValueError)
