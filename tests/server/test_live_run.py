"""live_messages: a streamed run computed in a worker thread while its messages go out."""

from __future__ import annotations

import threading

import pytest

from appclient.server._runs._live_run import live_messages
from appclient.server._runs._run_engine import Emit


def test_a_client_that_leaves_early_does_not_strand_the_run() -> None:
    """Closing the stream after one message lets the run finish (its queue is drained)."""
    finished = threading.Event()

    def work(emit: Emit) -> list[str]:
        try:
            emit("")
            for index in range(1_000):  # far more deltas than the queue holds
                emit(f"delta {index} ")
            raise RuntimeError("the run ends here")
        finally:
            finished.set()

    messages = live_messages(
        work,
        conversation_id="c",
        message_id="m",
        request_id="r",
        date="2026-11-24T00:00:00Z",
    )
    assert "delta 0" in next(messages)
    messages.close()
    assert finished.wait(timeout=10)


def test_a_request_error_before_the_first_byte_is_raised() -> None:
    """Work that fails before the agent starts raises from live_messages itself."""

    def work(emit: Emit) -> list[str]:
        raise LookupError("unknown tool_call_id")

    with pytest.raises(LookupError, match="unknown tool_call_id"):
        live_messages(
            work,
            conversation_id="c",
            message_id="m",
            request_id="r",
            date="2026-11-24T00:00:00Z",
        )
