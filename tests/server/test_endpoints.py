"""Endpoint failure paths: nothing half done, and what a conversation holds is bounded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from appclient.server import Decision, MemoryStore
from appclient.server._http import _endpoints
from appclient.server._runs import _live_run
from appclient.server._state._state import ConversationState, FileRecord
from tests.server.helpers import (
    APP_ID,
    Reply,
    call_app,
    make_app,
    new_conversation,
    run_body,
    upload_form,
)

RUNS = "/v2/app/conversation/runs"
UPLOAD = "/v2/app/conversation/file/upload"
FEEDBACK = "/v2/app/conversation/feedback"


def _assert_error(reply: Reply, status: int, code: str) -> None:
    assert reply.status == status, reply.body
    assert json.loads(reply.body)["code"] == code


class _CommitFailsOnce(MemoryStore):
    """A store whose first commit fails, as a locked or full database does."""

    def __init__(self) -> None:
        super().__init__()
        self.failures = 1

    def commit_run(self, state: ConversationState, **kwargs: Any) -> bool:
        if self.failures:
            self.failures -= 1
            raise OSError("disk I/O error")
        return super().commit_run(state, **kwargs)


def test_failed_commit_releases_the_conversation() -> None:
    """A run whose commit raised is a 500 that leaves the conversation free for a retry."""
    app = make_app(store=_CommitFailsOnce())
    try:
        conversation_id = new_conversation(app)
        _assert_error(
            call_app(app, RUNS, run_body(conversation_id, query="hi")), 500, "InternalError"
        )
        assert call_app(app, RUNS, run_body(conversation_id, query="hi")).status == 200
    finally:
        app.close()


class _StreamingAgent:
    """Streams its answer as it writes it, as a model agent does (a live run)."""

    streams_text = True

    def decide(self, agent_input: Any, emit: Any = None) -> Decision:
        return Decision.reply("hi")


class _NoThreads:
    """Stands in for the threading module when no thread can be started."""

    class Thread:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

        def start(self) -> None:
            raise RuntimeError("can't start new thread")


def test_live_run_that_cannot_start_releases_the_conversation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A live run whose worker thread cannot start is a 500 that leaves the conversation free."""
    app = make_app(_StreamingAgent())
    try:
        conversation_id = new_conversation(app)
        with monkeypatch.context() as patch:
            patch.setattr(_live_run, "threading", _NoThreads)
            reply = call_app(app, RUNS, run_body(conversation_id, query="hi", stream=True))
            _assert_error(reply, 500, "InternalError")
        assert call_app(app, RUNS, run_body(conversation_id, query="hi", stream=True)).status == 200
    finally:
        app.close()


class _AddFileFails(MemoryStore):
    """A store that cannot record files (a locked or full database)."""

    def add_file(self, record: FileRecord) -> None:
        raise OSError("disk full")


def test_upload_that_cannot_be_recorded_leaves_no_file_behind(tmp_path: Path) -> None:
    """When the store refuses an upload's record, its bytes are removed from the data dir."""
    app = make_app(store=_AddFileFails(), data_dir=tmp_path)
    try:
        cid = new_conversation(app)
        raw, content_type = upload_form(cid)
        _assert_error(call_app(app, UPLOAD, raw, content_type=content_type), 500, "InternalError")
    finally:
        app.close()
    assert list(tmp_path.iterdir()) == []


def test_file_url_upload_as_a_url_encoded_form_is_recorded() -> None:
    """A file_url sent as an application/x-www-form-urlencoded form (aiohttp) is stored."""
    app = make_app()
    try:
        conversation_id = new_conversation(app)
        body = urlencode(
            {"app_id": APP_ID, "conversation_id": conversation_id, "file_url": "https://x/报告.pdf"}
        ).encode()
        reply = call_app(
            app, UPLOAD, body, content_type="application/x-www-form-urlencoded; charset=utf-8"
        )
        assert reply.status == 200, reply.body
        record = app.store.get_file(json.loads(reply.body)["id"])
        assert record is not None
        assert (record.url, record.name) == ("https://x/报告.pdf", "报告.pdf")
    finally:
        app.close()


def test_a_conversation_refuses_one_file_past_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """An upload past the per-conversation file limit is a 400 on conversation_id, not stored."""
    monkeypatch.setattr(_endpoints, "MAX_FILES_PER_CONVERSATION", 2)
    app = make_app()
    try:
        cid = new_conversation(app)
        raw, content_type = upload_form(cid)
        for _ in range(2):
            assert call_app(app, UPLOAD, raw, content_type=content_type).status == 200
        reply = call_app(app, UPLOAD, raw, content_type=content_type)
        _assert_error(reply, 400, "InvalidParameter")
        assert (
            reply.json()["message"]
            == "conversation_id: the conversation holds 2 files, the most it may"
        )
        assert len(app.store.files(cid)) == 2
    finally:
        app.close()


def test_a_conversation_refuses_feedback_past_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Feedback past the per-conversation limit is a 400 on conversation_id, not recorded."""
    monkeypatch.setattr(_endpoints, "MAX_FEEDBACK_PER_CONVERSATION", 2)
    app = make_app()
    try:
        cid = new_conversation(app)
        run = call_app(app, RUNS, run_body(cid, query="hi"))
        feedback = {
            "app_id": APP_ID,
            "conversation_id": cid,
            "message_id": run.json()["message_id"],
            "type": "upvote",
        }
        for _ in range(2):
            assert call_app(app, FEEDBACK, feedback).status == 200
        reply = call_app(app, FEEDBACK, feedback)
        _assert_error(reply, 400, "InvalidParameter")
        assert "holds 2 feedback records" in reply.json()["message"]
        assert len(app.store.feedback(cid)) == 2
    finally:
        app.close()


def test_an_unknown_id_is_repeated_cut_short() -> None:
    """A 404 for a megabyte-long conversation id repeats only its first 80 characters."""
    app = make_app()
    try:
        cid = "c" * 1_000_000
        reply = call_app(app, RUNS, run_body(cid, query="hi"))
        _assert_error(reply, 404, "ConversationNotFound")
        assert reply.json()["message"] == f"conversation_id: {'c' * 80!r} not found for this app"
    finally:
        app.close()
