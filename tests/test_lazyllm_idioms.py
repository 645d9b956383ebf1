"""LazyLLM habits: fc_register under another name, and tools given by registered name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from appclient import AppClient, InvalidRequestError, register_tool, tool_group
from appclient.testing import PlannedCall, ReferenceServer, ScriptedAgent


def lazy_weather(location: str) -> str:
    """Get the current weather in a given location.

    Args:
        location: The city, e.g. Tokyo.
    """
    return f"{location}: 10 celsius"


fc_register = register_tool  # what a LazyLLM user's import line becomes


@pytest.fixture(autouse=True)
def _clean_tool_group() -> Iterator[None]:
    """Leave the process-wide "tool" group as each test found it."""
    before = set(tool_group("tool").names())
    yield
    for name in set(tool_group("tool").names()) - before:
        tool_group("tool").remove(name)


def test_registering_under_another_name_works_like_lazyllms() -> None:
    """fc_register("tool")(func, "name") registers func under that name."""
    fc_register("tool")(lazy_weather, "another_get_current_weather")
    agent = ScriptedAgent(
        [
            PlannedCall("another_get_current_weather", {"location": "Tokyo"}),
            ScriptedAgent.echo_outputs("{outputs}"),
        ]
    )
    with (
        ReferenceServer(agent=agent) as server,
        AppClient(server.app_id, token=server.token, base_url=server.url) as client,
    ):
        result = client.run_until_answer(
            query="weather in Tokyo?", tools=["another_get_current_weather"]
        )
    assert result.answer == "Tokyo: 10 celsius"


def test_an_unknown_tool_name_is_refused_with_the_registered_ones() -> None:
    """A name nobody registered is a clear error naming what is registered and the closest."""
    fc_register("tool")(lazy_weather, "lazy_weather_tool")
    with (
        ReferenceServer() as server,
        AppClient(server.app_id, token=server.token, base_url=server.url) as client,
        pytest.raises(InvalidRequestError, match="did you mean 'lazy_weather_tool'"),
    ):
        client.run_until_answer(query="weather?", tools=["lazy_weather_tol"])


def test_lazyllms_function_call_line_gets_a_clear_error() -> None:
    """FunctionCall(llm, tools), LazyLLM's runner, says what appclient's FunctionCall is."""
    from appclient import FunctionCall

    with pytest.raises(TypeError, match="not LazyLLM's FunctionCall"):
        FunctionCall(object(), [lazy_weather])
    assert FunctionCall(name="x", arguments='{"a": 1}').arguments == {"a": 1}
