"""The WSGI app end to end (no sockets): routing, auth, limits, errors, every endpoint."""

from __future__ import annotations

import io
import json
import logging
import threading
from pathlib import Path

import pytest

from appclient.server import Decision, PlannedCall
from appclient.server._http._wsgi import ReferenceApp
from tests.server.helpers import (
    APP_ID,
    OTHER_TOKEN,
    TOKEN,
    WEATHER_TOOL,
    EchoComponent,
    ListAgent,
    Reply,
    call_app,
    make_app,
    new_conversation,
    run_body,
)

RUNS = "/v2/app/conversation/runs"
UPLOAD = "/v2/app/conversation/file/upload"
FEEDBACK = "/v2/app/conversation/feedback"


@pytest.fixture
def app():
    made = make_app()
    yield made
    made.close()


def _assert_error(reply: Reply, status: int, code: str) -> dict:
    assert reply.status == status, reply.body
    assert b"\n" not in reply.body
    body = reply.json()
    assert set(body) == {"request_id", "code", "message"}
    assert body["code"] == code
    assert reply.headers["X-Appbuilder-Request-Id"] == body["request_id"]
    return body


def _multipart(fields: dict[str, str], file: tuple[str, bytes] | None = None) -> tuple[bytes, str]:
    boundary = "b0undary"
    body = b""
    for name, value in fields.items():
        disposition = f'form-data; name="{name}"'
        body += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n{value}\r\n".encode()
    if file is not None:
        disposition = f'form-data; name="file"; filename="{file[0]}"'
        head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode()
        body += head + file[1] + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def test_create_conversation_answers_ids_in_body_and_header(app: ReferenceApp) -> None:
    """Create conversation is 200 with request_id (= header) and conversation_id."""
    reply = call_app(app, "/v2/app/conversation", {"app_id": APP_ID})
    assert reply.status == 200
    body = reply.json()
    assert set(body) == {"request_id", "conversation_id"}
    assert reply.headers["X-Appbuilder-Request-Id"] == body["request_id"]
    assert reply.headers["Content-Length"] == str(len(reply.body))


def test_tool_round_trip_non_stream(app: ReferenceApp) -> None:
    """Query with tools interrupts; the outputs give an answer that uses them."""
    cid = new_conversation(app)
    first = call_app(app, RUNS, run_body(cid, query="今天北京天气怎么样？", tools=[WEATHER_TOOL]))
    assert first.status == 200
    assert b"\n" not in first.body
    call = first.json()["content"][-1]["tool_calls"][-1]
    assert call["function"]["arguments"] == {"location": "北京", "unit": "celsius"}
    outputs = [{"tool_call_id": call["id"], "output": "北京今天35度"}]
    second = call_app(app, RUNS, run_body(cid, tool_outputs=outputs))
    body = second.json()
    assert body["answer"] == "根据工具结果：北京今天35度"
    assert body["content"][-1]["event_status"] == "success"
    assert second.headers["X-Appbuilder-Request-Id"] == body["request_id"]


def test_an_interrupt_has_the_same_is_completion_plain_and_streamed(app: ReferenceApp) -> None:
    """A tool round is no completion, in a plain body and in its one SSE message alike."""
    plain = call_app(
        app, RUNS, run_body(new_conversation(app), query="北京天气", tools=[WEATHER_TOOL])
    )
    streamed = call_app(
        app,
        RUNS,
        run_body(new_conversation(app), query="北京天气", tools=[WEATHER_TOOL], stream=True),
    )
    (message,) = streamed.messages()
    assert plain.json()["is_completion"] is message["is_completion"] is False


def test_tool_round_trip_stream(app: ReferenceApp) -> None:
    """The streamed tool round is one message; the answer streams in several deltas."""
    cid = new_conversation(app)
    first = call_app(app, RUNS, run_body(cid, query="北京天气", tools=[WEATHER_TOOL], stream=True))
    assert first.headers["Content-Type"].startswith("text/event-stream")
    assert "Content-Length" not in first.headers
    (message,) = first.messages()
    call = message["content"][-1]["tool_calls"][0]
    second = call_app(
        app,
        RUNS,
        run_body(cid, stream=True, tool_outputs=[{"tool_call_id": call["id"], "output": "25度晴"}]),
    )
    messages = second.messages()
    assert "".join(m["answer"] for m in messages) == "根据工具结果：25度晴"
    assert messages[-1]["content"][-1]["event_status"] == "success"
    assert {m["request_id"] for m in messages} == {second.headers["X-Appbuilder-Request-Id"]}


def test_later_turns_keep_the_tools(app: ReferenceApp) -> None:
    """tools: [] (or null) on a later turn keeps the conversation's tools."""
    cid = new_conversation(app)
    call_app(app, RUNS, run_body(cid, query="你好", tools=[WEATHER_TOOL]))
    for tools in ([], None):
        reply = call_app(app, RUNS, run_body(cid, query="北京天气", tools=tools))
        assert (
            reply.json()["content"][-1]["tool_calls"][0]["function"]["name"]
            == "get_current_weather"
        )


def test_cloud_component_and_local_tool_in_one_run() -> None:
    """A run can call a cloud component and a local tool together."""
    agent = ListAgent(
        [
            Decision.call(
                PlannedCall("Echo", {"text": "x"}, cloud=True),
                PlannedCall("get_current_weather", {"location": "北京", "unit": "celsius"}),
            ),
            Decision.reply("done"),
        ]
    )
    app = make_app(agent, components=[EchoComponent()])
    cid = new_conversation(app)
    events = call_app(app, RUNS, run_body(cid, query="q", tools=[WEATHER_TOOL])).json()["content"]
    assert [(e["event_type"], e["event_status"]) for e in events] == [
        ("function_call", "done"),
        ("Echo", "done"),
        ("function_call", "done"),
        ("Interrupt", "interrupt"),
    ]
    app.close()


@pytest.mark.parametrize(
    ("path", "method", "status", "code"),
    [
        ("/nope", "POST", 404, "NotFound"),
        ("/mount/v2/app/conversation", "POST", 404, "NotFound"),
        (RUNS, "GET", 405, "MethodNotAllowed"),
    ],
)
def test_routing_errors(app: ReferenceApp, path: str, method: str, status: int, code: str) -> None:
    """Unknown paths are 404 and other methods 405 (with Allow)."""
    reply = call_app(app, path, {}, method=method)
    _assert_error(reply, status, code)
    if status == 405:
        assert reply.headers["Allow"] == "POST"


def test_doubled_slashes_in_the_path_still_route(app: ReferenceApp) -> None:
    """A base URL ending in "/" gives //v2/... (the official SDK joins so): still served."""
    reply = call_app(app, "//v2/app//conversation", {"app_id": APP_ID})
    assert reply.status == 200, reply.body


@pytest.mark.parametrize("token", [None, "wrong"])
def test_missing_or_wrong_token_is_401(app: ReferenceApp, token: str | None) -> None:
    """Without a valid bearer token every endpoint answers 401."""
    body = _assert_error(call_app(app, RUNS, {}, token=token), 401, "Unauthorized")
    assert TOKEN not in body["message"]


def test_foreign_conversation_is_404(app: ReferenceApp) -> None:
    """Another token cannot see (or use) a conversation: 404, as if it did not exist."""
    cid = new_conversation(app)
    reply = call_app(app, RUNS, run_body(cid, query="hi"), token=OTHER_TOKEN)
    _assert_error(reply, 404, "ConversationNotFound")


def test_unknown_app_id_is_404(app: ReferenceApp) -> None:
    """An app id this server does not serve is 404."""
    _assert_error(call_app(app, "/v2/app/conversation", {"app_id": "other"}), 404, "AppNotFound")


def test_unknown_app_id_names_the_app_ids_served(app: ReferenceApp) -> None:
    """The 404 for an unknown app id says which app id to use instead."""
    body = _assert_error(
        call_app(app, "/v2/app/conversation", {"app_id": "other"}), 404, "AppNotFound"
    )
    assert "'other'" in body["message"]
    assert "'test-app'" in body["message"]


def test_oversize_body_is_413_without_reading_it() -> None:
    """A body over the limit is refused from its Content-Length."""
    app = make_app(max_body_bytes=100)
    _assert_error(call_app(app, RUNS, b"x" * 101), 413, "PayloadTooLarge")
    app.close()


class _StalledInput:
    """A request body whose client stopped sending: reading it times out."""

    def read(self, size: int = -1) -> bytes:
        raise TimeoutError("timed out")


def test_body_that_stops_arriving_is_408_not_an_internal_error(
    app: ReferenceApp, caplog: pytest.LogCaptureFixture
) -> None:
    """A client that stops sending its body gets a 408, and nothing is logged as a crash."""
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/v2/app/conversation",
        "CONTENT_LENGTH": "100",
        "HTTP_AUTHORIZATION": f"Bearer {TOKEN}",
        "wsgi.input": _StalledInput(),
    }
    with caplog.at_level(logging.ERROR, logger="appclient.server"):
        response = app.handle(environ, request_id="r1")
    assert (response.status, json.loads(response.body)["code"]) == (408, "RequestTimeout")
    assert not caplog.records


def test_a_body_of_unknown_length_is_read_when_the_server_ends_it(app: ReferenceApp) -> None:
    """Under a WSGI server that decodes chunked bodies (wsgi.input_terminated), it is read."""
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/v2/app/conversation",
        "HTTP_AUTHORIZATION": f"Bearer {TOKEN}",
        "HTTP_TRANSFER_ENCODING": "chunked",
        "wsgi.input": io.BytesIO(json.dumps({"app_id": APP_ID}).encode()),
        "wsgi.input_terminated": True,
    }
    response = app.handle(environ, request_id="r1")
    assert response.status == 200
    assert json.loads(response.body)["conversation_id"]


@pytest.mark.parametrize("length", ["+31", "3_1", "0x1f", "٣١"])
def test_a_content_length_that_is_not_ascii_digits_is_a_400(app: ReferenceApp, length: str) -> None:
    """The WSGI layer reads Content-Length as ASCII digits only, like the HTTP server."""
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/v2/app/conversation",
        "CONTENT_LENGTH": length,
        "HTTP_AUTHORIZATION": f"Bearer {TOKEN}",
        "wsgi.input": io.BytesIO(b"{}" * 20),
    }
    response = app.handle(environ, request_id="r2")
    assert (response.status, json.loads(response.body)["code"]) == (400, "InvalidParameter")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"app_id": APP_ID, "conversation_id": "", "query": "q"}, "conversation_id"),
        ({"app_id": APP_ID, "conversation_id": "c"}, "query"),
        ({"app_id": APP_ID, "conversation_id": "c", "query": 5}, "query"),
        ({"app_id": "", "conversation_id": "c", "query": "q"}, "app_id"),
    ],
)
def test_run_fields_are_validated(app: ReferenceApp, body: dict, field: str) -> None:
    """Every invalid run field is a 400 naming it."""
    reply = _assert_error(call_app(app, RUNS, body), 400, "InvalidParameter")
    assert reply["message"].startswith(field + ":")


def test_unknown_tool_call_id_is_400_naming_it(app: ReferenceApp) -> None:
    """An output for an unknown call is a 400 InvalidParameter naming the id."""
    cid = new_conversation(app)
    call_app(app, RUNS, run_body(cid, query="北京", tools=[WEATHER_TOOL]))
    body = _assert_error(
        call_app(app, RUNS, run_body(cid, tool_outputs=[{"tool_call_id": "nope", "output": "x"}])),
        400,
        "InvalidParameter",
    )
    assert "nope" in body["message"]


def test_unknown_tool_choice_is_400(app: ReferenceApp) -> None:
    """tool_choice naming no tool or component is a 400."""
    cid = new_conversation(app)
    choice = {"type": "function", "function": {"name": "nothing", "input": {}}}
    body = _assert_error(
        call_app(app, RUNS, run_body(cid, query="q", tool_choice=choice)), 400, "InvalidParameter"
    )
    assert body["message"].startswith("tool_choice.function.name:")


def test_forced_tool_choice_needs_no_query(app: ReferenceApp) -> None:
    """The seed's ToolChoice call (query "") interrupts with the forced tool and its input."""
    cid = new_conversation(app)
    forced = {"location": "上海", "unit": "celsius"}
    choice = {"type": "function", "function": {"name": "get_current_weather", "input": forced}}
    reply = call_app(app, RUNS, run_body(cid, tools=[WEATHER_TOOL], tool_choice=choice))
    assert reply.status == 200, reply.body
    (call,) = reply.json()["content"][-1]["tool_calls"]
    assert (call["function"]["name"], call["function"]["arguments"]) == (
        "get_current_weather",
        forced,
    )


def test_auto_tool_choice_still_needs_a_query(app: ReferenceApp) -> None:
    """tool_choice auto with an empty query is a 400 naming the query."""
    cid = new_conversation(app)
    choice = {"type": "auto", "function": None}
    body = _assert_error(
        call_app(app, RUNS, run_body(cid, tool_choice=choice)), 400, "InvalidParameter"
    )
    assert body["message"].startswith("query:")


def test_upload_then_use_the_file_id(app: ReferenceApp) -> None:
    """An uploaded file's id is accepted in file_ids; the agent sees its name."""
    cid = new_conversation(app)
    raw, content_type = _multipart(
        {"app_id": APP_ID, "conversation_id": cid}, ("hello 测试.txt", b"hello\n")
    )
    reply = call_app(app, UPLOAD, raw, content_type=content_type)
    body = reply.json()
    assert set(body) == {"request_id", "id", "conversation_id"}
    record = app.store.get_file(body["id"])
    assert record is not None
    assert record.name == "hello 测试.txt"
    assert app.endpoints.uploads.path(record.stored_as).read_bytes() == b"hello\n"
    assert call_app(app, RUNS, run_body(cid, query="总结", file_ids=[body["id"]])).status == 200


def test_a_file_id_repeated_in_file_ids_is_read_once() -> None:
    """A file id sent many times in one run gives the agent its file once, not a huge list."""
    agent = ListAgent([Decision.reply("ok")])
    app = make_app(agent)
    cid = new_conversation(app)
    raw, content_type = _multipart({"app_id": APP_ID, "conversation_id": cid}, ("a.txt", b"a"))
    file_id = call_app(app, UPLOAD, raw, content_type=content_type).json()["id"]
    reply = call_app(app, RUNS, run_body(cid, query="q", file_ids=[file_id] * 1000))
    assert reply.status == 200, reply.body
    assert agent.inputs[0].file_names == ("a.txt",)
    app.close()


def test_upload_file_url_is_remembered(app: ReferenceApp) -> None:
    """A file_url upload records the URL without fetching it."""
    cid = new_conversation(app)
    raw, content_type = _multipart(
        {"app_id": APP_ID, "conversation_id": cid, "file_url": "https://example.com/a.pdf"}
    )
    file_id = call_app(app, UPLOAD, raw, content_type=content_type).json()["id"]
    record = app.store.get_file(file_id)
    assert record is not None
    assert (record.name, record.url, record.size) == ("a.pdf", "https://example.com/a.pdf", 0)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"conversation_id": "c"}, "app_id"),
        ({"app_id": APP_ID}, "conversation_id"),
        ({"app_id": APP_ID, "conversation_id": "c"}, "file"),
        ({"app_id": APP_ID, "conversation_id": "c", "file_url": "ftp://x"}, "file_url"),
    ],
)
def test_upload_fields_are_validated(app: ReferenceApp, fields: dict, field: str) -> None:
    """Missing or bad upload fields are 400s naming them."""
    raw, content_type = _multipart(fields)
    body = _assert_error(
        call_app(app, UPLOAD, raw, content_type=content_type), 400, "InvalidParameter"
    )
    assert body["message"].startswith(field + ":")


def test_oversize_upload_is_413() -> None:
    """A file over the upload limit is a 413."""
    app = make_app(max_upload_bytes=4)
    cid = new_conversation(app)
    raw, content_type = _multipart({"app_id": APP_ID, "conversation_id": cid}, ("a.txt", b"12345"))
    _assert_error(call_app(app, UPLOAD, raw, content_type=content_type), 413, "PayloadTooLarge")
    app.close()


def test_upload_over_the_body_limit_but_within_the_upload_limit_is_stored() -> None:
    """max_upload_bytes above max_body_bytes lets such a file in, as documented."""
    app = make_app(max_body_bytes=1000, max_upload_bytes=5000)
    cid = new_conversation(app)
    fields = {"app_id": APP_ID, "conversation_id": cid}
    raw, content_type = _multipart(fields, ("a.bin", b"x" * 3000))
    assert call_app(app, UPLOAD, raw, content_type=content_type).status == 200
    app.close()


def test_upload_far_over_the_upload_limit_is_413_without_reading_it() -> None:
    """An upload whose Content-Length is far over the upload limit is refused unread."""
    app = make_app(max_upload_bytes=4)
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": UPLOAD,
        "CONTENT_TYPE": "multipart/form-data; boundary=b0undary",
        "CONTENT_LENGTH": str(5 * 1024 * 1024),
        "HTTP_AUTHORIZATION": f"Bearer {TOKEN}",
        "wsgi.input": _StalledInput(),  # reading it would be a 408, not a 413
    }
    response = app.handle(environ, request_id="r1")
    assert (response.status, json.loads(response.body)["code"]) == (413, "PayloadTooLarge")
    app.close()


def test_unknown_file_id_is_400(app: ReferenceApp) -> None:
    """file_ids must name files of this conversation."""
    cid = new_conversation(app)
    body = _assert_error(
        call_app(app, RUNS, run_body(cid, query="q", file_ids=["nope"])), 400, "InvalidParameter"
    )
    assert body["message"].startswith("file_ids[0]:")


def test_feedback_is_recorded_against_a_known_message(app: ReferenceApp) -> None:
    """Feedback on a run's message_id is kept; an unknown message_id is a 400."""
    cid = new_conversation(app)
    message_id = call_app(app, RUNS, run_body(cid, query="你好")).json()["message_id"]
    feedback = {
        "app_id": APP_ID,
        "conversation_id": cid,
        "message_id": message_id,
        "type": "downvote",
        "flag": ["答非所问"],
        "reason": "测试",
    }
    reply = call_app(app, FEEDBACK, feedback)
    assert reply.status == 200
    assert set(reply.json()) == {"request_id"}
    (record,) = app.store.feedback(cid)
    assert (record.type, record.flag, record.reason) == ("downvote", ("答非所问",), "测试")
    body = _assert_error(
        call_app(app, FEEDBACK, {**feedback, "message_id": "nope"}), 400, "InvalidParameter"
    )
    assert body["message"].startswith("message_id:")
    _assert_error(call_app(app, FEEDBACK, {**feedback, "type": "meh"}), 400, "InvalidParameter")


def test_idempotent_retry_of_outputs_is_applied_once(app: ReferenceApp) -> None:
    """The same Idempotency-Key replays the answer; the outputs are not applied twice."""
    cid = new_conversation(app)
    first = call_app(app, RUNS, run_body(cid, query="北京", tools=[WEATHER_TOOL], stream=True))
    call_id = first.messages()[0]["content"][-1]["tool_calls"][0]["id"]
    body = run_body(cid, stream=True, tool_outputs=[{"tool_call_id": call_id, "output": "x"}])
    headers = {"Idempotency-Key": "retry-1"}
    once = call_app(app, RUNS, body, headers=headers)
    again = call_app(app, RUNS, body, headers=headers)
    assert again.body == once.body
    assert again.headers["X-Appbuilder-Request-Id"] == once.headers["X-Appbuilder-Request-Id"]
    state = app.store.get_conversation(cid)
    assert state is not None
    assert len(state.history) == 1
    other = call_app(app, RUNS, {**body, "stream": False}, headers=headers)
    _assert_error(other, 422, "IdempotencyKeyReused")


def test_concurrent_run_on_one_conversation_is_409() -> None:
    """A second run while the first still runs gets 409; the first completes."""
    entered, release = threading.Event(), threading.Event()

    class SlowAgent:
        def decide(self, agent_input):
            entered.set()
            release.wait(10)
            return Decision.reply("slow")

    app = make_app(SlowAgent())
    cid = new_conversation(app)
    results: list[Reply] = []
    worker = threading.Thread(
        target=lambda: results.append(call_app(app, RUNS, run_body(cid, query="one")))
    )
    worker.start()
    assert entered.wait(10)
    busy = call_app(app, RUNS, run_body(cid, query="two"))
    _assert_error(busy, 409, "ConversationBusy")
    assert busy.headers["Retry-After"] == "1"
    release.set()
    worker.join(10)
    assert results[0].json()["answer"] == "slow"
    assert call_app(app, RUNS, run_body(cid, query="three")).status == 200
    app.close()


def test_agent_failure_is_an_error_event_and_leaves_the_conversation_usable() -> None:
    """An agent that raises gives an HTTP 200 error event naming it (not a retried 500)."""
    app = make_app(ListAgent([]))
    cid = new_conversation(app)
    reply = call_app(app, RUNS, run_body(cid, query="q"))
    assert reply.status == 200
    event = reply.json()["content"][-1]
    assert (event["event_status"], event["event_code"]) == ("error", 5003)
    assert "ListAgent" in event["event_message"]
    state = app.store.get_conversation(cid)
    assert state is not None
    assert state.history == ()
    assert state.open_turn is None
    assert app.store.acquire_run(cid, lease_id="x", now=0, lease_seconds=1)
    app.close()


def test_unexpected_exception_is_a_logged_500(
    app: ReferenceApp, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug inside an endpoint is logged with its request id and answered as JSON 500."""

    def broken(context):
        raise KeyError("bug")

    monkeypatch.setitem(app._routes, RUNS, broken)
    with caplog.at_level(logging.ERROR, logger="appclient.server"):
        body = _assert_error(call_app(app, RUNS, {}), 500, "InternalError")
    assert "KeyError" not in body["message"]
    assert body["request_id"] in caplog.text
    assert "bug" in caplog.text


def test_injected_failure_answers_before_anything_else(app: ReferenceApp) -> None:
    """A queued failure answers with its status and Retry-After, even without a token."""
    app.faults.fail_next(1, status=503, retry_after=3)
    reply = call_app(app, RUNS, {}, token=None)
    _assert_error(reply, 503, "ServiceUnavailable")
    assert reply.headers["Retry-After"] == "3"


def test_cut_stream_sends_only_the_first_messages(app: ReferenceApp) -> None:
    """cut_stream_after(k) delivers k messages of the next stream; the run is saved."""
    cid = new_conversation(app)
    app.faults.cut_stream_after(2)
    reply = call_app(app, RUNS, run_body(cid, query="你好世界你好世界", stream=True))
    messages = reply.messages()
    assert len(messages) == 2
    assert messages[-1]["content"][-1]["event_status"] != "success"
    state = app.store.get_conversation(cid)
    assert state is not None
    assert len(state.history) == 1


def test_error_bodies_never_contain_the_token(app: ReferenceApp) -> None:
    """No answer, good or bad, echoes a token."""
    for reply in (
        call_app(app, RUNS, {}, token="Bearer-wrong"),
        call_app(app, RUNS, b"{"),
        call_app(app, "/v2/app/conversation", {"app_id": APP_ID}),
    ):
        assert TOKEN.encode() not in reply.body
        assert json.loads(reply.body)["request_id"]


def test_json_nested_deeply_with_an_escape_is_a_400_not_a_500(app: ReferenceApp) -> None:
    """A body nested hundreds deep holding a surrogate escape (an emoji pair) is a clean 400."""
    body = (
        '{"app_id": "' + APP_ID + '", "x": ' + '{"a":' * 400 + '"\\ud83d\\ude00"' + "}" * 400 + "}"
    ).encode()
    reply = call_app(app, "/v2/app/conversation", body)
    body_json = _assert_error(reply, 400, "InvalidJSON")
    assert "nested deeper than 64 levels" in body_json["message"]


def test_a_deep_tool_choice_input_with_a_database_is_a_400(tmp_path: Path) -> None:
    """A tool_choice input nested hundreds deep is refused before it reaches the SQLite store."""
    app = make_app(db_path=tmp_path / "state.sqlite3")
    cid = new_conversation(app)
    deep: object = "x"
    for _ in range(500):
        deep = {"a": deep}
    choice = {"type": "function", "function": {"name": "WeatherQuery", "input": {"city": deep}}}
    reply = call_app(app, RUNS, run_body(cid, query="", tool_choice=choice))
    _assert_error(reply, 400, "InvalidJSON")
    app.close()


def test_describe_apps_pages_with_its_marker(app: ReferenceApp) -> None:
    """DescribeApps honours MaxKeys and Marker and says when more apps follow."""
    many = make_app(app_ids=["a1", "a2", "a3"])
    first = call_app(many, "/v2/app", {"MaxKeys": 2}, headers={}, query="Action=DescribeApps")
    assert first.status == 200
    page = first.json()
    assert ([a["id"] for a in page["data"]], page["isTruncated"], page["nextMarker"]) == (
        ["a1", "a2"],
        True,
        "a2",
    )
    rest = call_app(many, "/v2/app", {"Marker": "a2"}, query="Action=DescribeApps").json()
    assert ([a["id"] for a in rest["data"]], rest["isTruncated"]) == (["a3"], False)
    many.close()


def test_describe_app_of_an_app_not_served_is_404(app: ReferenceApp) -> None:
    """DescribeApp names the app it does not serve."""
    reply = call_app(app, "/v2/app", {"id": "nope"}, query="Action=DescribeApp")
    _assert_error(reply, 404, "AppNotFound")
