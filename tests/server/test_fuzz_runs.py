"""Fuzzing the runs endpoint: malformed bodies never give a 500, always a JSON answer."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from appclient.server import RuleAgent, create_app, default_components
from tests.server.helpers import APP_ID, TOKEN, call_app, new_conversation

RUNS = "/v2/app/conversation/runs"

_APP = create_app(
    tokens=[TOKEN], app_ids=APP_ID, agent=RuleAgent(), components=default_components()
)
_CONVERSATION = new_conversation(_APP)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=15,
)


def mostly(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Usually a plausible value, sometimes any JSON at all (so deep paths are reached)."""
    # Hypothesis favours boundary values, so the rare branch sits in the middle.
    return st.integers(min_value=0, max_value=9).flatmap(
        lambda pick: json_values if pick == 5 else valid
    )


names = st.sampled_from(["get_current_weather", "WeatherQuery", "Calculator", "a b", ""]) | st.text(
    max_size=70
)
properties = st.dictionaries(
    st.sampled_from(["location", "unit", "city", "expression", "n"]) | st.text(max_size=8),
    mostly(
        st.fixed_dictionaries(
            {},
            optional={
                "type": mostly(
                    st.sampled_from(["string", "integer", "int", "List[int]", "Literal[a, b]"])
                ),
                "enum": mostly(st.lists(scalars, max_size=3)),
                "description": mostly(st.text(max_size=20)),
                "required": json_values,
                "default": json_values,
            },
        )
    ),
    max_size=3,
)
schemas = st.fixed_dictionaries(
    {},
    optional={
        "type": mostly(st.sampled_from(["object", "array", "str"])),
        "properties": mostly(properties),
        "required": mostly(st.lists(st.sampled_from(["location", "unit", "x"]), max_size=3)),
    },
)
tools = st.fixed_dictionaries(
    {},
    optional={
        "type": mostly(st.sampled_from(["function", "code_interpreter"])),
        "function": mostly(
            st.fixed_dictionaries(
                {"name": mostly(names)},
                optional={
                    "description": mostly(st.text(max_size=30)),
                    "parameters": mostly(schemas),
                },
            )
        ),
    },
)
outputs = st.fixed_dictionaries(
    {},
    optional={"tool_call_id": mostly(st.text(max_size=40)), "output": mostly(st.text(max_size=20))},
)
choices = st.fixed_dictionaries(
    {},
    optional={
        "type": mostly(st.sampled_from(["auto", "function", "other"])),
        "function": mostly(
            st.fixed_dictionaries({}, optional={"name": mostly(names), "input": json_values})
        ),
    },
)
run_bodies = st.fixed_dictionaries(
    {
        "app_id": mostly(st.just(APP_ID)),
        "conversation_id": mostly(st.sampled_from([_CONVERSATION, _CONVERSATION, "missing"])),
        "query": mostly(
            st.sampled_from(["北京天气怎么样", "算一下 1/0", "Tokyo and Paris", "你好"])
            | st.text(min_size=1, max_size=30)
        ),
    },
    optional={
        "stream": mostly(st.booleans()),
        "file_ids": mostly(st.lists(st.text(max_size=10), max_size=2)),
        "tools": mostly(st.lists(tools, max_size=3)),
        "tool_outputs": st.none() | mostly(st.lists(outputs, max_size=3)),
        "tool_choice": mostly(choices),
        "end_user_id": mostly(st.text(max_size=10)),
        "action": mostly(st.none() | st.dictionaries(st.text(max_size=5), json_values)),
        "parameters": mostly(st.none() | st.dictionaries(st.text(max_size=5), json_values)),
        "custom_metadata": mostly(st.none() | st.dictionaries(st.text(max_size=5), json_values)),
        "mcp_authorization": json_values,
    },
)
any_bodies = st.dictionaries(
    st.sampled_from(["app_id", "conversation_id", "query", "tools", "tool_outputs"])
    | st.text(max_size=10),
    json_values,
    max_size=6,
)


def _check(reply_status: int, headers: dict[str, str], body: bytes, chunks: list[bytes]) -> None:
    assert reply_status < 500, body
    if reply_status == 200:
        return
    decoded: dict[str, Any] = json.loads(body)
    assert set(decoded) == {"request_id", "code", "message"}
    assert decoded["request_id"] == headers["X-Appbuilder-Request-Id"]
    assert b"\n" not in body


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=run_bodies | any_bodies)
def test_structured_garbage_never_breaks_the_server(body: dict[str, Any]) -> None:
    """Bodies with every field of any shape get a 200 or a JSON 4xx with a request id."""
    reply = call_app(_APP, RUNS, json.dumps(body).encode())
    _check(reply.status, reply.headers, reply.body, reply.chunks)
    if reply.status == 200:
        answers = (
            reply.messages()
            if reply.headers["Content-Type"].startswith("text/")
            else [reply.json()]
        )
        # A stream with cloud components ends with an empty message, as the hosted one does.
        last_event = [answer for answer in answers if answer["content"]][-1]["content"][-1]
        assert last_event["event_status"] in {"success", "interrupt", "error"}


@settings(max_examples=150, deadline=None)
@given(raw=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_arbitrary_bytes_never_break_the_server(raw: bytes) -> None:
    """Any bytes as a body are answered with JSON, never a 500."""
    reply = call_app(_APP, RUNS, raw)
    _check(reply.status, reply.headers, reply.body, reply.chunks)
