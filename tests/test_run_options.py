"""One definition of the client settings, run and round-trip options, shared by both clients."""

from __future__ import annotations

import inspect
from typing import Any
from unittest import mock

import pytest

from appclient import AppClient, AsyncAppClient
from tests.async_support import run_scenario


def _weather(location: str) -> str:
    """Get the weather of a city.

    Args:
        location: The city.
    """
    return f"{location}: sunny"


@pytest.fixture
def client() -> AppClient:
    return AppClient("app", token="tok-options", base_url="http://127.0.0.1:9", max_retries=0)


@pytest.fixture
def async_client() -> AsyncAppClient:
    return AsyncAppClient("app", token="tok-options", base_url="http://127.0.0.1:9")


def test_a_misspelt_run_option_is_a_type_error_with_a_hint(client: AppClient) -> None:
    """run(tool=...) fails before sending, as a plain signature would, naming the right one."""
    options: dict[str, Any] = {"tool": [_weather]}
    with pytest.raises(TypeError, match="unexpected keyword argument 'tool'; did you mean 'tools'"):
        client.run("c1", "hi", **options)


def test_the_async_run_refuses_the_same_misspelling(async_client: AsyncAppClient) -> None:
    """AsyncAppClient.run takes the same options, so it refuses the same typo."""
    options: dict[str, Any] = {"tool_output": []}
    with pytest.raises(TypeError, match="did you mean 'tool_outputs'"):
        run_scenario(lambda: async_client.run("c1", "hi", **options))


def test_round_trip_options_are_checked_before_anything_is_sent(client: AppClient) -> None:
    """run_until_answer refuses an unknown option and a missing tools, sending nothing."""
    options: dict[str, Any] = {"tools": [_weather], "max_round": 2}
    with pytest.raises(TypeError, match="did you mean 'max_rounds'"):
        client.run_until_answer("c1", "hi", **options)
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'tools'"):
        client.run_until_answer("c1", "hi")  # type: ignore[call-arg]


def test_the_async_round_trip_checks_the_same_options(async_client: AsyncAppClient) -> None:
    """AsyncAppClient.run_until_answer refuses what the sync one refuses."""
    options: dict[str, Any] = {"tools": [_weather], "aprove": None}
    with pytest.raises(TypeError, match="did you mean 'approve'"):
        run_scenario(lambda: async_client.run_until_answer("c1", "hi", **options))


@pytest.mark.parametrize("client_type", [AppClient, AsyncAppClient])
def test_a_misspelt_client_setting_is_a_type_error_with_a_hint(client_type: type[Any]) -> None:
    """Both clients take their settings from one definition, and refuse the same typo."""
    options: dict[str, Any] = {"timout": 3}
    with pytest.raises(
        TypeError, match=rf"{client_type.__name__}\(\) got an unexpected .* 'timout'; did you mean"
    ):
        client_type("app", token="tok-options", **options)


@pytest.mark.parametrize(
    "name", ["create_conversation", "feedback", "run", "upload_file", "upload_local_file"]
)
def test_the_async_methods_are_coroutine_functions(name: str) -> None:
    """Declared once for both clients, the async client's are still coroutine functions."""
    assert inspect.iscoroutinefunction(getattr(AsyncAppClient, name))
    assert not inspect.iscoroutinefunction(getattr(AppClient, name))
    spec = mock.create_autospec(AsyncAppClient, instance=True)
    assert isinstance(getattr(spec, name), mock.AsyncMock)
