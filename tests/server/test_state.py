"""Conversation state values: JSON round trip, history cap, cheap copies."""

from __future__ import annotations

from appclient.server import ToolResult, Turn
from appclient.server._state._state import ConversationState, OpenTurn, PendingCall, TurnRecord

STATE = ConversationState("c", "owner", "app", 1.5)


def test_turn_records_are_turns_for_the_agent() -> None:
    """A stored turn is handed to agents as it is: it is a Turn."""
    record = TurnRecord("q", "a", message_id="m")
    assert isinstance(record, Turn)
    assert (record.query, record.answer) == ("q", "a")


def test_evolve_replaces_only_what_is_given() -> None:
    """Evolving keeps unnamed parts, and open_turn=None really clears the open turn."""
    waiting = STATE.evolve(open_turn=OpenTurn("q", pending=(PendingCall("p", "t", {}),)))
    assert waiting.open_turn is not None
    assert waiting.evolve(tools=()).open_turn == waiting.open_turn
    assert waiting.evolve(open_turn=None).open_turn is None
    assert waiting.evolve(open_turn=None).conversation_id == "c"


def test_json_round_trip_keeps_everything() -> None:
    """to_json/from_json give back an equal state, non-ASCII and nested values included."""
    result = ToolResult("id", "天气", {"城市": ["北京", 1.5, None]}, "晴", cloud=True)
    state = STATE.evolve(
        tools=({"type": "function", "function": {"name": "t", "parameters": {}}},),
        open_turn=OpenTurn("问", (result,), (PendingCall("p", "t", {"a": 1}),), "想", ("f",), "u"),
        history=(TurnRecord("q", "a", "m", (result,)),),
    )
    assert ConversationState.from_json(state.to_json()) == state
    assert state.to_json().isascii()


def test_history_keeps_the_newest_turns() -> None:
    """with_turn_finished drops the oldest turns beyond the limit and closes the turn."""
    state = STATE.evolve(open_turn=OpenTurn("q"))
    for index in range(4):
        state = state.with_turn_finished(TurnRecord(f"q{index}", "a", "m"), keep=2)
    assert [turn.query for turn in state.history] == ["q2", "q3"]
    assert state.open_turn is None
