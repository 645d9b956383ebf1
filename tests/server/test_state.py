"""Conversation state values: JSON round trip, history cap, cheap copies."""

from __future__ import annotations

from appclient.server import ToolResult, Turn
from appclient.server._state._state import (
    ConversationState,
    OpenTurn,
    PendingCall,
    ToolMemo,
    TurnRecord,
)

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


def test_a_tool_memo_weighs_a_tool_with_what_it_is_told() -> None:
    """A memo given the weight measures a tool once per call; one over 16 KiB is not kept."""
    measured: list[int] = []

    class BigTool(dict):
        def __str__(self) -> str:
            measured.append(1)
            return "x" * 20_000

    memo = ToolMemo(lambda tool: len(str(tool)), weigh=lambda _, chars: chars)
    tool = BigTool(name="big")
    assert [memo(tool), memo(tool)] == [20_000, 20_000]
    assert len(measured) == 2


def test_a_tool_memo_keeps_a_small_tool_by_identity() -> None:
    """A small tool's value is derived once, and the oldest entry goes first when full."""
    derived: list[str] = []
    memo = ToolMemo(lambda tool: derived.append(tool["name"]) or tool["name"], size=2)
    a, b, c = {"name": "a"}, {"name": "b"}, {"name": "c"}
    for tool in (a, b, a, c, a):
        memo(tool)
    assert derived == ["a", "b", "c", "a"]
