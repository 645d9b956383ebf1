"""Failure messages for the agent name the tool, the field and the problem."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from appclient import ApprovalRequest, ToolError, ToolRegistry
from appclient._core._errors import suggest_names
from appclient._tools._tool_results import (
    ResultSerializationError,
    describe_exception,
    failure_output,
    invalid_arguments,
    invalid_call,
    unknown_tool,
)
from appclient.errors import (
    ToolApprovalDeniedError,
    ToolArgumentsError,
    ToolExecutionError,
    ToolNotFoundError,
    ToolTimeoutError,
)

NAMES = ["get_weather", "get_forecast", "Weather__alerts", "calculator"]


def _raised(registry: ToolRegistry, name: str) -> ToolError:
    """The error a registry's dispatch raises for one call of ``name`` without arguments."""
    with pytest.raises(ToolError) as caught:
        registry.dispatch([{"id": "c1", "function": {"name": name}}], raise_errors=True)
    return caught.value


def _call_failed() -> ToolError:
    def get_weather() -> str:
        """Fail."""
        raise ValueError("unknown city")

    return _raised(ToolRegistry([get_weather]), "get_weather")


def _timed_out(name: str = "slow") -> ToolError:
    release = threading.Event()

    def slow() -> None:
        """Wait to be released."""
        release.wait(5)

    registry = ToolRegistry()
    registry.add(slow, name=name, timeout=0.05)
    try:
        return _raised(registry, name)
    finally:
        release.set()


def _approval_declined() -> ToolError:
    def refuse(request: ApprovalRequest) -> bool:
        """Refuse with a reason."""
        raise ToolApprovalDeniedError("not today")

    def delete_file() -> None:
        """Never runs."""

    registry = ToolRegistry(approve=refuse)
    registry.add(delete_file, requires_approval=True)
    return _raised(registry, "delete_file")


def _unserializable_result() -> ToolError:
    def f() -> Any:
        """Return what the serializer refuses."""
        return object()

    def no_json_form(value: Any) -> str:
        """Refuse every value."""
        raise ResultSerializationError("no JSON form")

    return _raised(ToolRegistry([f], serialize=no_json_form), "f")


CASES: list[tuple[str, Callable[[], ToolError], type[ToolError], list[str]]] = [
    (
        "unknown tool",
        lambda: unknown_tool("get_wether", NAMES),
        ToolNotFoundError,
        ["'get_wether'", "Did you mean 'get_weather'", "available tools: get_weather"],
    ),
    (
        "invalid arguments",
        lambda: invalid_arguments(
            "get_weather", [("city", "field required"), ("days", "not an int")]
        ),
        ToolArgumentsError,
        ["'get_weather'", "'city': field required", "'days': not an int", "again"],
    ),
    (
        "invalid call",
        lambda: invalid_call("the tool call has no tool name"),
        ToolArgumentsError,
        ["invalid tool call", "no tool name"],
    ),
    (
        "tool raised",
        _call_failed,
        ToolExecutionError,
        ["'get_weather' failed", "ValueError: unknown city"],
    ),
    (
        "timeout",
        _timed_out,
        ToolTimeoutError,
        ["'slow'", "0.05 seconds"],
    ),
    (
        "declined",
        _approval_declined,
        ToolApprovalDeniedError,
        ["user declined", "'delete_file'", "not today"],
    ),
    (
        "unserializable",
        _unserializable_result,
        ToolExecutionError,
        ["'f'", "no JSON form"],
    ),
]


@pytest.mark.parametrize(("case", "make", "kind", "needles"), CASES, ids=[c[0] for c in CASES])
def test_failure_messages(
    case: str, make: Callable[[], ToolError], kind: type, needles: list[str]
) -> None:
    """Each failure is the right ToolError subclass and its output names what went wrong."""
    error = make()
    assert isinstance(error, kind)
    text = failure_output(error)
    assert text.startswith("Error: ")
    for needle in needles:
        assert needle in text


def test_timeout_does_not_claim_the_tool_was_stopped() -> None:
    """A timed-out thread cannot be stopped, so the agent is warned it may still take effect."""
    text = str(_timed_out("send_email"))
    assert "stopped" not in text
    assert "may still" in text


def test_huge_names_and_problem_lists_are_shortened_for_the_agent() -> None:
    """A megabyte tool name or thousands of bad keys are not echoed back in full."""
    assert len(str(unknown_tool("x" * 1_000_000, NAMES))) < 1_000
    problems = [(f"key{i}", "unknown argument") for i in range(10_000)]
    text = str(invalid_arguments("t", problems))
    assert len(text) < 2_000
    assert "9980 more" in text


def test_problems_are_kept_on_the_error() -> None:
    """Argument problems stay available as data."""
    error = invalid_arguments("t", [("a", "bad")])
    assert isinstance(error, ToolArgumentsError)
    assert error.problems == (("a", "bad"),)
    assert error.tool_name == "t"


def test_whole_argument_problem_has_no_field_prefix() -> None:
    """A problem with the arguments as a whole is stated without a field name."""
    text = str(invalid_arguments("t", [("<arguments>", "not valid JSON")]))
    assert "'<arguments>'" not in text
    assert "not valid JSON" in text


def test_unknown_tool_with_no_tools() -> None:
    """With nothing registered, the message says so."""
    assert "no tools are registered" in str(unknown_tool("x", []))


def test_unknown_tool_long_listing_is_summarised() -> None:
    """Only the first names are listed when there are many."""
    names = [f"tool_{i}" for i in range(30)]
    assert "and 10 more" in str(unknown_tool("zzz", names))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("GET_WEATHER", "get_weather"),
        ("Weather.alerts", "Weather__alerts"),
        ("calculater", "calculator"),
    ],
)
def test_suggestions(name: str, expected: str) -> None:
    """Case slips, Lagent-style dots and typos suggest the registered name."""
    assert suggest_names(name, NAMES)[0] == expected


def test_no_suggestion_for_unrelated_name() -> None:
    """An unrelated name suggests nothing."""
    assert suggest_names("zzzzzz", NAMES) == []


def test_describe_exception_without_message() -> None:
    """An exception without a message is described by its type."""
    assert describe_exception(KeyError()) == "KeyError"
    assert describe_exception(ValueError("bad")) == "ValueError: bad"
