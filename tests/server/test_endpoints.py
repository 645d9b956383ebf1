"""Endpoint failure paths: a store that fails mid-request leaves nothing half done."""

from __future__ import annotations

import json

from appclient.server import MemoryStore
from appclient.server._state import ConversationState
from tests.server.helpers import Reply, call_app, make_app, new_conversation, run_body

RUNS = "/v2/app/conversation/runs"


def _assert_error(reply: Reply, status: int, code: str) -> None:
    assert reply.status == status, reply.body
    assert json.loads(reply.body)["code"] == code


class _CommitFailsOnce(MemoryStore):
    """A store whose first commit fails, as a locked or full database does."""

    def __init__(self) -> None:
        super().__init__()
        self.failures = 1

    def commit_run(self, state: ConversationState, *, lease_id: str, message_id: str) -> bool:
        if self.failures:
            self.failures -= 1
            raise OSError("disk I/O error")
        return super().commit_run(state, lease_id=lease_id, message_id=message_id)


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
