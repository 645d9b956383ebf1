"""Dispatching tool calls: arguments, errors for the agent, execution, secrets, approval."""

from __future__ import annotations

import asyncio
import builtins
import dataclasses
import datetime
import enum
import importlib
import json
import threading
from collections.abc import Iterator
from typing import Any, TypedDict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, field_validator

from appclient import ToolCall, ToolError, ToolOutput, ToolRegistry
from appclient._tools._dispatch import ApprovalRequest
from appclient.errors import (
    ToolApprovalDeniedError,
    ToolArgumentsError,
    ToolExecutionError,
    ToolNotFoundError,
    ToolTimeoutError,
)
from tests.gc_support import frames_left_in_cycles

SECRET = "sk-live-0123456789"


class Unit(enum.Enum):
    """A temperature unit."""

    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Place(BaseModel):
    """A pydantic parameter."""

    city: str
    district: str = ""


@dataclasses.dataclass
class Window:
    """A dataclass parameter."""

    days: int
    start: datetime.date


class Options(TypedDict):
    """A TypedDict parameter."""

    verbose: bool


def weather(location: str, unit: Unit = Unit.CELSIUS) -> dict[str, Any]:
    """Weather of a city.

    Args:
        location: The city.
        unit: The unit.
    """
    return {"location": location, "unit": unit.value, "temperature": 25}


def typed(
    count: int,
    flag: bool,
    when: datetime.datetime,
    place: Place,
    window: Window,
    options: Options,
    tags: list[str],
    note: str = "",
) -> str:
    """Echo the Python types received."""
    return json.dumps(
        {
            "count": type(count).__name__,
            "flag": flag,
            "when": type(when).__name__,
            "place": type(place).__name__,
            "window": type(window).__name__,
            "start": type(window.start).__name__,
            "options": options,
            "tags": tags,
            "note": note,
        }
    )


def positional(a: int, b: int, /, c: int = 0) -> int:
    """Positional-only parameters."""
    return a * 100 + b * 10 + c


def labelled(text: str) -> str:
    """A str parameter receiving JSON-looking text."""
    return text


def fail(city: str) -> str:
    """Always raise."""
    raise ValueError(f"no weather station in {city}")


def leak(query: str, api_key: str) -> str:
    """Raise with the bound key in the message, and echo it in the result."""
    if query == "raise":
        raise RuntimeError(f"401 for key {api_key}")
    return f"used {api_key} for {query}"


async def async_weather(location: str) -> str:
    """An async tool."""
    await asyncio.sleep(0)
    return f"{location}: async sunny"


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """Blocks slow tools until the test ends."""
    event = threading.Event()
    yield event
    event.set()


@pytest.fixture
def registry(gate: threading.Event) -> ToolRegistry:
    registry = ToolRegistry(timeout=5)

    def slow(seconds: float) -> str:
        """Block until released."""
        gate.wait()
        return "late"

    registry.add(weather)
    registry.add(typed)
    registry.add(positional)
    registry.add(labelled)
    registry.add(fail)
    registry.add(leak, api_key=SECRET)
    registry.add(async_weather)
    registry.add(slow, timeout=0.02)
    return registry


def call(name: str, arguments: Any, call_id: str = "c1") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def one(registry: ToolRegistry, name: str, arguments: Any) -> ToolOutput:
    [output] = registry.dispatch([call(name, arguments)])
    return output


# --- point 2: arguments -------------------------------------------------------------------

TYPED_OK = {
    "count": "4",
    "flag": "false",
    "when": "2024-09-23T08:05:00",
    "place": {"city": "北京"},
    "window": {"days": 3, "start": "2024-09-23"},
    "options": {"verbose": True},
    "tags": '["a", "b"]',
}

COERCIONS: list[tuple[str, str, Any, dict[str, Any]]] = [
    ("'4' becomes 4", "typed", TYPED_OK, {"count": "int"}),
    ("'false' becomes False", "typed", TYPED_OK, {"flag": False}),
    ("ISO text becomes datetime", "typed", TYPED_OK, {"when": "datetime"}),
    ("dict becomes a model", "typed", TYPED_OK, {"place": "Place"}),
    ("dict becomes a dataclass", "typed", TYPED_OK, {"window": "Window", "start": "date"}),
    ("dict becomes a TypedDict", "typed", TYPED_OK, {"options": {"verbose": True}}),
    ("list sent as JSON text is parsed", "typed", TYPED_OK, {"tags": ["a", "b"]}),
    ("arguments as JSON text", "typed", json.dumps(TYPED_OK), {"count": "int"}),
    (
        "arguments in a fenced block",
        "typed",
        "```json\n" + json.dumps(TYPED_OK) + "\n```",
        {"flag": False},
    ),
]


def test_refused_calls_leave_no_frame_in_a_reference_cycle(registry: ToolRegistry) -> None:
    """An unknown tool or bad arguments give records that are freed at once, not at a GC."""
    calls = [
        {"id": "1", "type": "function", "function": {"name": "nope", "arguments": {}}},
        {"id": "2", "type": "function", "function": {"name": "weather", "arguments": {"x": 1}}},
    ]
    with frames_left_in_cycles() as frames:
        outputs = registry.dispatch(calls)
        assert [output.output.startswith("Error") for output in outputs] == [True, True]
        del outputs
    assert frames == []


@pytest.mark.parametrize(
    ("case", "tool", "arguments", "expected"), COERCIONS, ids=[c[0] for c in COERCIONS]
)
def test_arguments_are_coerced(
    registry: ToolRegistry, case: str, tool: str, arguments: Any, expected: dict[str, Any]
) -> None:
    """Lax validation turns the agent's values into the parameters' types."""
    received = json.loads(one(registry, tool, arguments).output)
    assert {key: received[key] for key in expected} == expected


def test_value_becomes_an_enum_member(registry: ToolRegistry) -> None:
    """An enum value reaches the function as the Enum member."""
    output = one(registry, "weather", {"location": "北京", "unit": "fahrenheit"}).output
    assert json.loads(output)["unit"] == "fahrenheit"


def test_json_text_is_not_parsed_for_a_string_parameter(registry: ToolRegistry) -> None:
    """A str parameter receives JSON-looking text unchanged."""
    assert one(registry, "labelled", {"text": '["a"]'}).output == '["a"]'


def test_positional_only_parameters_are_passed_positionally(registry: ToolRegistry) -> None:
    """Positional-only parameters are called positionally."""
    assert one(registry, "positional", {"a": 1, "b": 2, "c": 3}).output == "123"


@pytest.mark.parametrize("raw", [None, "", "null", {}])
def test_no_arguments_forms(raw: Any) -> None:
    """None, '', 'null' and {} all mean a call without arguments."""

    def now() -> str:
        """No parameters."""
        return "12:00"

    assert one(ToolRegistry([now]), "now", raw).output == "12:00"


REJECTIONS: list[tuple[str, str, Any, list[str]]] = [
    ("2.5 for an int", "typed", {**TYPED_OK, "count": 2.5}, ["'count'"]),
    ("missing required", "weather", {}, ["'location'"]),
    ("value outside the enum", "weather", {"location": "x", "unit": "kelvin"}, ["'unit'"]),
    ("unknown key", "weather", {"location": "x", "colour": "red"}, ["'colour'"]),
    ("arguments not JSON", "weather", "{location: x}", ["not valid JSON"]),
    ("arguments an array", "weather", "[1]", ["got an array"]),
    ("bound parameter given", "leak", {"query": "q", "api_key": "mine"}, ["'api_key'"]),
]


@pytest.mark.parametrize(
    ("case", "tool", "arguments", "needles"), REJECTIONS, ids=[c[0] for c in REJECTIONS]
)
def test_invalid_arguments_go_back_to_the_agent(
    registry: ToolRegistry, case: str, tool: str, arguments: Any, needles: list[str]
) -> None:
    """Invalid arguments become an output naming the tool and each bad field."""
    output = one(registry, tool, arguments).output
    assert output.startswith("Error: invalid arguments for tool")
    assert repr(tool) in output
    for needle in needles:
        assert needle in output


def test_strict_null_becomes_the_default() -> None:
    """In strict mode a null for a defaulted parameter means its default."""

    def greet(name: str, greeting: str = "你好") -> str:
        """Greet someone."""
        return f"{greeting} {name}"

    registry = ToolRegistry()
    registry.add(greet, strict=True)
    assert one(registry, "greet", {"name": "张三", "greeting": None}).output == "你好 张三"


# --- point 3: errors go back to the agent -----------------------------------------------

ERRORS: list[tuple[str, dict[str, Any], list[str]]] = [
    (
        "unknown tool",
        call("wether", {"location": "北京"}),
        ["no tool named 'wether'", "Did you mean 'weather'", "available tools: weather"],
    ),
    ("invalid call", {"id": "c1", "arguments": {}}, ["invalid tool call"]),
    (
        "tool raised",
        call("fail", {"city": "拉萨"}),
        ["'fail' failed", "no weather station in 拉萨"],
    ),
    ("timeout", call("slow", {"seconds": 1}), ["'slow'", "0.02 seconds"]),
]


@pytest.mark.parametrize(("case", "raw", "needles"), ERRORS, ids=[c[0] for c in ERRORS])
def test_failures_become_outputs(
    registry: ToolRegistry, case: str, raw: dict[str, Any], needles: list[str]
) -> None:
    """Each kind of failure is an output text for the agent, not an exception."""
    [output] = registry.dispatch([raw])
    assert output.tool_call_id == "c1"
    assert output.output.startswith("Error: ")
    for needle in needles:
        assert needle in output.output


def test_exception_output_has_no_traceback(registry: ToolRegistry) -> None:
    """A tool's exception is reported by type and message only."""
    output = one(registry, "fail", {"city": "x"}).output
    assert "Traceback" not in output
    assert "ValueError: no weather station in x" in output


RAISED: list[tuple[str, dict[str, Any], type[ToolError]]] = [
    ("unknown tool", call("nope", {}), ToolNotFoundError),
    ("invalid arguments", call("weather", {}), ToolArgumentsError),
    ("tool raised", call("fail", {"city": "x"}), ToolExecutionError),
    ("timeout", call("slow", {"seconds": 1}), ToolTimeoutError),
]


class UnprintableError(Exception):
    """An exception whose message cannot be read."""

    def __str__(self) -> str:
        raise RuntimeError("no message")


def test_exception_whose_str_fails_still_becomes_an_output() -> None:
    """A tool raising an exception whose str() fails is reported by type, not a crash."""

    def broken(query: str, api_key: str) -> str:
        """Raise an unprintable exception."""
        raise UnprintableError

    registry = ToolRegistry()
    registry.add(broken, api_key=SECRET)
    output = one(registry, "broken", {"query": "q"}).output
    assert output.startswith("Error: tool 'broken' failed: UnprintableError")


@pytest.mark.parametrize(("case", "raw", "kind"), RAISED, ids=[c[0] for c in RAISED])
def test_raise_errors_raises_the_tool_error(
    registry: ToolRegistry, case: str, raw: dict[str, Any], kind: type[ToolError]
) -> None:
    """With raise_errors=True each failure raises its ToolError subclass."""
    with pytest.raises(kind) as caught:
        registry.dispatch([raw], raise_errors=True)
    assert caught.value.tool_call_id == "c1"


def test_raised_execution_error_chains_the_cause(registry: ToolRegistry) -> None:
    """The tool's own exception is the raised error's cause."""
    with pytest.raises(ToolExecutionError) as caught:
        registry.dispatch([call("fail", {"city": "x"})], raise_errors=True)
    assert isinstance(caught.value.__cause__, ValueError)


def test_invalid_call_raises_before_any_tool_runs() -> None:
    """In raise mode a bad call in the round stops it before the good ones run."""
    ran: list[str] = []

    def record(x: str) -> str:
        """Record the call."""
        ran.append(x)
        return x

    registry = ToolRegistry([record])
    with pytest.raises(ToolNotFoundError):
        registry.dispatch([call("record", {"x": "1"}), call("nope", {}, "c2")], raise_errors=True)
    assert ran == []


def test_one_bad_call_does_not_sink_the_round(registry: ToolRegistry) -> None:
    """Good calls of a round still run when another call fails."""
    outputs = registry.dispatch([call("nope", {}, "a"), call("weather", {"location": "北京"}, "b")])
    assert outputs[0].output.startswith("Error:")
    assert json.loads(outputs[1].output)["location"] == "北京"


class Picky(BaseModel):
    """A parameter type whose own validator raises something other than ValueError."""

    code: str

    @field_validator("code")
    @classmethod
    def _known(cls, value: str) -> str:
        raise KeyError(f"unknown code {value}")


def test_parameter_validator_raising_any_exception_is_an_output() -> None:
    """A parameter type's validator raising KeyError gives an error output, not a crash."""

    def lookup(item: Picky) -> str:
        """Look an item up."""
        return item.code

    output = one(ToolRegistry([lookup]), "lookup", {"item": {"code": "x"}}).output
    assert output.startswith("Error: invalid arguments for tool 'lookup'")
    assert "KeyError" in output


def test_a_repeated_call_id_runs_only_once() -> None:
    """A second call with an id already used in the round is refused, not run again."""
    runs: list[str] = []

    def send(text: str) -> str:
        """Record a side effect."""
        runs.append(text)
        return "sent"

    outputs = ToolRegistry([send]).dispatch(
        [call("send", {"text": "hi"}, "a"), call("send", {"text": "hi"}, "a")]
    )
    assert runs == ["hi"]
    assert outputs[0].output == "sent"
    assert "'a'" in outputs[1].output
    assert outputs[1].output.startswith("Error: invalid tool call")


# --- point 4: execution -----------------------------------------------------------------


def test_result_is_json_with_non_ascii_kept(registry: ToolRegistry) -> None:
    """A dict result is JSON with Chinese text kept as is."""
    output = one(registry, "weather", {"location": "北京"}).output
    assert output == '{"location": "北京", "unit": "celsius", "temperature": 25}'


def test_async_tool_is_awaited(registry: ToolRegistry) -> None:
    """An async tool's result is awaited."""
    assert one(registry, "async_weather", {"location": "上海"}).output == "上海: async sunny"


def test_dispatch_inside_a_running_event_loop(registry: ToolRegistry) -> None:
    """Dispatch works when called from code already inside an event loop."""

    async def caller() -> list[ToolOutput]:
        return registry.dispatch([call("async_weather", {"location": "广州"})])

    assert asyncio.run(caller())[0].output == "广州: async sunny"


def test_parallel_calls_run_together_and_keep_call_order() -> None:
    """Two calls that wait for each other both finish, outputs in call order."""
    barrier = threading.Barrier(2, timeout=5)

    def city_weather(city: str) -> str:
        """Wait for the other call, then answer."""
        barrier.wait()
        return f"{city} ok"

    registry = ToolRegistry([city_weather])
    outputs = registry.dispatch(
        [call("city_weather", {"city": "北京"}, "a"), call("city_weather", {"city": "上海"}, "b")]
    )
    assert [(o.tool_call_id, o.output) for o in outputs] == [("a", "北京 ok"), ("b", "上海 ok")]


def test_records_carry_arguments_durations_and_error_flags(registry: ToolRegistry) -> None:
    """dispatch_records returns what was asked, answered and how long it took."""
    ok, bad = registry.dispatch_records(
        [call("weather", {"location": "北京"}, "a"), call("fail", {"city": "x"}, "b")]
    )
    assert (ok.name, dict(ok.arguments), ok.is_error) == ("weather", {"location": "北京"}, False)
    assert ok.duration >= 0
    assert bad.is_error
    assert isinstance(bad.error, ToolExecutionError)


def test_custom_serializer() -> None:
    """A registry can serialise results its own way."""

    def pair() -> tuple[int, int]:
        """Return a pair."""
        return (1, 2)

    registry = ToolRegistry([pair], serialize=lambda value: "|".join(map(str, value)))
    assert one(registry, "pair", {}).output == "1|2"


def test_custom_serializer_returning_non_text_is_an_error_output() -> None:
    """A serializer returning an int or None gives that call an error output, not a crash."""

    def pair() -> tuple[int, int]:
        """Return a pair."""
        return (1, 2)

    def no_text(value: Any) -> Any:
        """Break the serializer's contract."""
        return None

    registry = ToolRegistry([pair], serialize=no_text)
    output = one(registry, "pair", {}).output
    assert output.startswith("Error: tool 'pair' returned a result that cannot be sent")
    assert "NoneType" in output


def test_unserializable_result_is_reported() -> None:
    """A result with no JSON form becomes an error output naming the type."""

    class Opaque:
        """No text form."""

    def make() -> Opaque:
        """Return an opaque object."""
        return Opaque()

    output = one(ToolRegistry([make]), "make", {}).output
    assert "cannot be sent" in output
    assert "Opaque" in output


# --- point 5: bound values --------------------------------------------------------------


def test_bound_value_reaches_the_function_but_not_the_output(registry: ToolRegistry) -> None:
    """The function receives the bound key; the agent never sees it."""
    output = one(registry, "leak", {"query": "天气"}).output
    assert output == "used *** for 天气"


def test_bound_value_is_redacted_from_exception_messages(registry: ToolRegistry) -> None:
    """A tool exception mentioning the key is reported without it."""
    output = one(registry, "leak", {"query": "raise"}).output
    assert SECRET not in output
    assert "401 for key ***" in output


def test_bound_value_is_redacted_from_raised_errors_and_their_cause(
    registry: ToolRegistry,
) -> None:
    """In raise mode neither the error nor its chained cause shows the key."""
    with pytest.raises(ToolExecutionError) as caught:
        registry.dispatch([call("leak", {"query": "raise"})], raise_errors=True)
    assert SECRET not in str(caught.value)
    assert SECRET not in str(caught.value.__cause__)


def test_bound_value_is_redacted_from_the_whole_exception_chain() -> None:
    """A key in an exception the tool's exception was raised from never reaches a traceback."""
    import traceback

    def wrapped(query: str, api_key: str) -> str:
        """Raise from an exception that mentions the key."""
        try:
            raise ValueError(f"401 for key {api_key}")
        except ValueError as exc:
            raise RuntimeError("the search service refused the request") from exc

    registry = ToolRegistry()
    registry.add(wrapped, api_key=SECRET)
    with pytest.raises(ToolExecutionError) as caught:
        registry.dispatch([call("wrapped", {"query": "q"})], raise_errors=True)
    assert SECRET not in "".join(traceback.format_exception(caught.value))


def test_bound_value_is_redacted_from_exception_group_members() -> None:
    """A key in an exception inside an exception group (a TaskGroup's) never reaches a traceback.

    Built directly so it runs on every Python: the built-in ExceptionGroup from 3.11, the
    ``exceptiongroup`` backport (which pytest brings) on 3.10.
    """
    import traceback

    group_type = getattr(builtins, "ExceptionGroup", None)
    if group_type is None:  # Python 3.10
        group_type = importlib.import_module("exceptiongroup").ExceptionGroup

    def gather(query: str, api_key: str) -> str:
        """Fail as a task group does, with the key in a member's message."""
        raise group_type("unhandled errors in a TaskGroup", [ValueError(f"401 for key {api_key}")])

    registry = ToolRegistry()
    registry.add(gather, api_key=SECRET)
    with pytest.raises(ToolExecutionError) as caught:
        registry.dispatch([call("gather", {"query": "q"})], raise_errors=True)
    assert SECRET not in "".join(traceback.format_exception(caught.value))


def test_agent_cannot_override_a_bound_value(registry: ToolRegistry) -> None:
    """Model input for a bound parameter is refused, and the bound value is not echoed."""
    output = one(registry, "leak", {"query": "q", "api_key": "attacker"}).output
    assert "cannot be given" in output
    assert SECRET not in output


def test_partial_bound_value_is_redacted() -> None:
    """Values bound with functools.partial are redacted too."""
    import functools

    registry = ToolRegistry()
    registry.add(functools.partial(leak, api_key=SECRET), name="leak")
    assert SECRET not in one(registry, "leak", {"query": "raise"}).output


# --- point 6: approval --------------------------------------------------------------------


def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def _approval_registry(**options: Any) -> ToolRegistry:
    registry = ToolRegistry(**options)
    registry.add(delete_file, requires_approval=True)
    return registry


def test_approved_call_runs() -> None:
    """An approved call runs; the callback sees the tool and its arguments."""
    seen: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> bool:
        seen.append(request)
        return True

    output = one(_approval_registry(approve=approve), "delete_file", {"path": "/srv/x"})
    assert output.output == "deleted /srv/x"
    assert (seen[0].tool_name, dict(seen[0].arguments)) == ("delete_file", {"path": "/srv/x"})


def test_refused_call_tells_the_agent_the_user_declined() -> None:
    """A refusal becomes an output saying the user declined, and the tool does not run."""
    output = one(_approval_registry(approve=lambda r: False), "delete_file", {"path": "/x"})
    assert "the user declined to run tool 'delete_file'" in output.output


def test_async_approval_callback() -> None:
    """An async approval callback is awaited."""

    async def approve(request: ApprovalRequest) -> bool:
        return request.arguments["path"] == "/ok"

    registry = _approval_registry(approve=approve)
    assert one(registry, "delete_file", {"path": "/ok"}).output == "deleted /ok"
    assert "declined" in one(registry, "delete_file", {"path": "/no"}).output


def test_non_boolean_approval_answer_declines() -> None:
    """Only True approves: a callback returning the text "n" does not run the tool."""
    registry = _approval_registry(approve=lambda request: "n")
    output = one(registry, "delete_file", {"path": "/x"}).output
    assert "declined" in output
    assert "'n'" in output


def test_a_long_approval_answer_is_redacted_before_it_is_shortened() -> None:
    """A non-boolean answer naming a bound secret late in its text shows no part of it."""
    registry = ToolRegistry(approve=lambda request: f"ok, the user approved it with {SECRET}")
    registry.add(leak, api_key=SECRET, requires_approval=True)
    output = one(registry, "leak", {"query": "q"}).output
    assert "declined" in output
    assert SECRET[:4] not in output


def test_no_callback_means_declined() -> None:
    """A tool needing approval never runs without an approval callback."""
    output = one(_approval_registry(), "delete_file", {"path": "/x"}).output
    assert "no approval callback" in output


def test_refusal_reason_reaches_the_agent() -> None:
    """A callback raising ToolApprovalDeniedError gives its reason."""

    def approve(request: ApprovalRequest) -> bool:
        raise ToolApprovalDeniedError("only on weekdays")

    output = one(_approval_registry(approve=approve), "delete_file", {"path": "/x"}).output
    assert "only on weekdays" in output


def test_broken_callback_declines() -> None:
    """A callback that crashes counts as a refusal, with the problem named."""

    def approve(request: ApprovalRequest) -> bool:
        raise RuntimeError("prompt failed")

    output = one(_approval_registry(approve=approve), "delete_file", {"path": "/x"}).output
    assert "declined" in output
    assert "prompt failed" in output


def test_dispatch_callback_overrides_the_registry_callback() -> None:
    """approve= on dispatch wins over the registry's callback."""
    registry = _approval_registry(approve=lambda r: False)
    [output] = registry.dispatch([call("delete_file", {"path": "/x"})], approve=lambda r: True)
    assert output.output == "deleted /x"


def test_refusal_raises_in_raise_mode() -> None:
    """With raise_errors=True a refusal raises ToolApprovalDeniedError."""
    with pytest.raises(ToolApprovalDeniedError):
        _approval_registry(approve=lambda r: False).dispatch(
            [call("delete_file", {"path": "/x"})], raise_errors=True
        )


# --- point 7: other call shapes -----------------------------------------------------------

SHAPES: list[tuple[str, Any]] = [
    ("appbuilder ToolCall", ToolCall.model_validate(call("weather", {"location": "北京"}))),
    ("openai string arguments", call("weather", '{"location": "北京"}')),
    ("agentscope list", [{"name": "weather", "arguments": {"location": "北京"}}]),
    ("agentscope text", '[{"name": "weather", "arguments": {"location": "北京"}}]'),
]


@pytest.mark.parametrize(("case", "calls"), SHAPES, ids=[c[0] for c in SHAPES])
def test_call_shapes_dispatch_alike(registry: ToolRegistry, case: str, calls: Any) -> None:
    """Every supported shape runs the same call."""
    [output] = registry.dispatch(calls)
    assert json.loads(output.output)["location"] == "北京"


# --- robustness ---------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.sampled_from(["weather", "typed", "positional", "labelled", "leak", "unknown"]),
    arguments=JSON | st.dictionaries(st.text(), JSON, max_size=5),
    as_text=st.booleans(),
)
def test_arbitrary_json_arguments_always_give_an_output(
    registry: ToolRegistry, name: str, arguments: Any, as_text: bool
) -> None:
    """Whatever JSON the agent sends as arguments, dispatch answers with one output."""
    raw = json.dumps(arguments) if as_text else arguments
    outputs = registry.dispatch([call(name, raw)])
    assert len(outputs) == 1
    assert isinstance(outputs[0].output, str)
    assert SECRET not in outputs[0].output
