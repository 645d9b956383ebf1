"""LazyLLM habits: fc_register under another name, and tools given by registered name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from appclient import (
    AppClient,
    ApprovalRequest,
    InvalidRequestError,
    ToolRegistry,
    register_tool,
    tool_group,
)
from appclient._tools._dispatch import ApprovalCallback
from appclient.errors import ToolApprovalDeniedError
from appclient.server import PlannedCall
from appclient.testing import ReferenceServer, ScriptedAgent
from appclient.types import ToolCallRecord


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


def delete_folder(path: str, allow_unsafe: bool = False) -> dict[str, str]:
    """Delete a folder.

    Args:
        path: The folder.
        allow_unsafe: Set only after the user agreed.
    """
    if not allow_unsafe:
        return {"status": "needs_approval", "reason": f"deleting {path} cannot be undone"}
    return {"deleted": path}


def _delete(approve: ApprovalCallback | None) -> ToolCallRecord:
    registry = ToolRegistry([delete_folder], approve=approve)
    call = {"id": "1", "function": {"name": "delete_folder", "arguments": {"path": "old"}}}
    (record,) = registry.dispatch_records([call])
    return record


def test_a_tool_that_needs_approval_runs_again_when_approved() -> None:
    """needs_approval asks the approval callback, then re-runs with allow_unsafe=True."""
    asked: list[str] = []

    def approve(request: ApprovalRequest) -> bool:
        asked.append(request.tool_name)
        return True

    record = _delete(approve)
    assert asked == ["delete_folder"]
    assert record.output == '{"deleted": "old"}'


def test_a_tool_that_needs_approval_is_refused_without_it() -> None:
    """Declined (or no callback), the call fails and the agent reads why; nothing ran."""
    record = _delete(lambda request: False)
    assert record.is_error
    assert isinstance(record.error, ToolApprovalDeniedError)
    assert _delete(None).is_error
