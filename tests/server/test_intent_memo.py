"""The rule agent plans a turn's query once and reuses the plan only for the same tools."""

from __future__ import annotations

from typing import Any

import pytest

from appclient._models import Tool
from appclient.server import _intent_memo
from appclient.server._agent_api import AgentInput, ToolResult
from appclient.server._intent_memo import IntentMemo
from appclient.server._rule_agent import RuleAgent
from appclient.server._tool_matching import candidates_from, match_intents
from tests.server.agent_tools import COMPONENT_INFOS, SEED_RAW, TODAY

QUERY = "今天北京天气怎么样？"


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every query the memo had to plan from scratch."""
    queries: list[str] = []

    def counting(query: str, candidates: Any, *, today: Any) -> Any:
        queries.append(query)
        return match_intents(query, candidates, today=today)

    monkeypatch.setattr(_intent_memo, "match_intents", counting)
    return queries


def _input(tools: tuple[Tool, ...], query: str = QUERY, **fields: Any) -> AgentInput:
    return AgentInput(query=query, tools=tools, components=COMPONENT_INFOS, **fields)


def test_a_turns_answer_step_reuses_its_plan(planned: list[str]) -> None:
    """After the tool result comes back, the agent answers without planning the query again."""
    agent = RuleAgent(today=lambda: TODAY)
    tools = (Tool.model_validate(SEED_RAW),)
    call = agent.decide(_input(tools)).calls[0]
    result = ToolResult("c1", call.name, call.arguments, "北京今天25度")
    answer = agent.decide(_input(tools, results=(result,)))
    assert "北京今天25度" in answer.answer
    assert planned == [QUERY]


def test_equal_but_distinct_tools_are_planned_afresh(planned: list[str]) -> None:
    """A plan is reused only for the very same tool objects, never for look-alikes."""
    agent = RuleAgent(today=lambda: TODAY)
    agent.decide(_input((Tool.model_validate(SEED_RAW),)))
    agent.decide(_input((Tool.model_validate(SEED_RAW),)))
    assert planned == [QUERY, QUERY]


def test_remembered_plans_give_the_same_decisions() -> None:
    """A decision from memory equals the decision of an agent planning from scratch."""
    tools = (Tool.model_validate(SEED_RAW),)
    queries = [QUERY, "上海和广州的天气", "算一下 3*7", "你好", "What's the weather in Tokyo?"]
    remembering = RuleAgent(today=lambda: TODAY)
    for query in queries:
        remembering.decide(_input(tools, query))
    for query in queries:
        fresh = RuleAgent(today=lambda: TODAY).decide(_input(tools, query))
        assert remembering.decide(_input(tools, query)) == fresh


def test_the_memo_keeps_at_most_its_size(planned: list[str]) -> None:
    """The least recently used plan is dropped first."""
    memo = IntentMemo(size=2)
    candidates = candidates_from((Tool.model_validate(SEED_RAW),), COMPONENT_INFOS)
    for query in ("北京天气", "上海天气", "北京天气", "广州天气", "北京天气", "上海天气"):
        memo.intents(query, candidates, today=TODAY)
    assert len(memo) == 2
    assert planned == ["北京天气", "上海天气", "广州天气", "上海天气"]
