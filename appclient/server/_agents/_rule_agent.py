"""The reference server's default agent: plans tool calls with rules, no model (pure).

A forcing ``tool_choice`` is honoured first; otherwise each clause of the query goes to the
tool sharing the most words with it or wanting a value it states (a client tool before a
cloud component unless the component matches twice as well). Each such tool not yet run in
the turn is called with arguments read from the query, once per place it names; then the
agent answers from the results. Required values only the user can give are asked for, not
guessed. A follow-up such as ``那上海呢？`` reuses the latest turn's tool.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from .._runs._tool_choice import Candidate, candidates_from, resolve_tool_choice
from .._settings import (
    RULE_AGENT_ECHO_CHARS,
    RULE_AGENT_FOLLOW_UP_TURNS,
    RULE_AGENT_MAX_CLAUSES,
    RULE_AGENT_MAX_QUERY_CHARS,
    RULE_AGENT_PLAN_MEMO_SIZE,
)
from ._agent_api import AgentInput, ComponentInfo, Decision, PlannedCall, ToolResult, Turn
from ._argument_filling import ArgumentPlan, parameter_kinds, plan_arguments
from ._components import default_components
from ._query_text import detect_language, split_clauses, states_arithmetic, terms, weight

_GREETINGS = frozenset(
    {"你好", "您好", "嗨", "哈喽", "在吗", "hi", "hello", "hey", "good morning", "good evening"}
)
#: What arithmetic in a clause adds to the score of a tool that takes an expression.
_EXPRESSION_BONUS = 3.0


class _Described(Protocol):
    @property
    def info(self) -> ComponentInfo: ...


@dataclass(frozen=True)
class Intent:
    """A tool the query asks for, and its arguments read from the query."""

    candidate: Candidate
    plan: ArgumentPlan


def _profile(candidate: Candidate) -> tuple[frozenset[str], bool]:
    """A tool's terms (name, description, parameters) and whether it wants arithmetic."""
    properties = candidate.parameters.get("properties")
    described = " ".join(
        f"{k} {v.get('description', '')}" if isinstance(v, Mapping) else str(k)
        for k, v in (properties.items() if isinstance(properties, Mapping) else ())
    )
    wants = "expression" in parameter_kinds(candidate.parameters)
    return terms(f"{candidate.tool_text} {described}"), wants


def _best(
    clause: str, candidates: Sequence[tuple[Candidate, tuple[frozenset[str], bool]]]
) -> Candidate | None:
    said = terms(clause)
    bonus = _EXPRESSION_BONUS if states_arithmetic(clause) else 0.0
    scored = [
        (sum(weight(term) for term in said & tool_terms) + (bonus if wants else 0.0), c)
        for c, (tool_terms, wants) in candidates
    ]
    nothing: tuple[float, Candidate | None] = (0.0, None)
    client = max(((s, c) for s, c in scored if not c.cloud), default=nothing, key=lambda p: p[0])
    cloud = max(((s, c) for s, c in scored if c.cloud), default=nothing, key=lambda p: p[0])
    if cloud[0] >= 1 and cloud[0] >= 2 * client[0]:
        return cloud[1]
    return client[1] if client[0] >= 1 else None


def _intents(query: str, candidates: Sequence[Candidate], today: dt.date) -> list[Intent]:
    """The tools ``query`` asks for, in order, each reading the clauses meant for it."""
    clauses: dict[str, list[tuple[int, str]]] = {}
    chosen: dict[str, Candidate] = {}
    profiles = [(candidate, _profile(candidate)) for candidate in candidates]
    for start, clause in split_clauses(query, limit=RULE_AGENT_MAX_CLAUSES):
        best = _best(clause, profiles)
        if best is not None:
            chosen.setdefault(best.name, best)
            clauses.setdefault(best.name, []).append((start, clause))
    intents = []
    for name, candidate in chosen.items():
        # Clauses meant for other tools are blanked, so no value feeds two tools.
        view = list(query)
        for other, parts in clauses.items():
            for start, clause in parts if other != name else ():
                view[start : start + len(clause)] = " " * len(clause)
        plan = plan_arguments(
            candidate.parameters, "".join(view), today=today, tool_text=candidate.tool_text
        )
        intents.append(Intent(candidate, plan))
    return intents


class RuleAgent:
    """Plans runs by matching the query against tools; the reference server's default agent.

    Args:
        components: The cloud components to offer when a run's :class:`AgentInput` lists
            none; the built-in ones (``WeatherQuery``, ``Calculator``) when ``None``.
        today: Returns today's date, for words such as 明天 and "tomorrow".
    """

    def __init__(
        self,
        components: Iterable[_Described] | None = None,
        *,
        today: Callable[[], dt.date] = dt.date.today,
    ) -> None:
        chosen = tuple(components) if components is not None else default_components()
        self.components: tuple[_Described, ...] = chosen
        self._infos = tuple(component.info for component in chosen)
        self._today = today
        # A turn's later decisions (after each tool result) plan the same query again.
        self._plans: OrderedDict[tuple[Any, ...], list[Intent]] = OrderedDict()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RuleAgent(components=[{', '.join(info.name for info in self._infos)}])"

    def decide(self, agent_input: AgentInput) -> Decision:
        """Return the next step of the turn.

        Raises:
            UnknownToolChoiceError: ``tool_choice`` forces a name that is neither a client
                tool nor a component (the server checks this first and answers 400).
        """
        today = self._today()
        query = agent_input.query[:RULE_AGENT_MAX_QUERY_CHARS]  # a huge query cannot be slow
        components = agent_input.components or self._infos
        results = agent_input.results
        if not results:
            forced = resolve_tool_choice(
                agent_input.tool_choice,
                tools=agent_input.tools,
                components=components,
                query=query,
                today=today,
            )
            if forced is not None:
                return Decision.call(forced, thought=_thought([forced], query, forced=True))
        candidates = candidates_from(agent_input.tools, components)
        intents = self._intents(query, candidates, today)
        if not intents and not results and agent_input.history:
            intents = self._follow_up_chain(query, agent_input.history, candidates, today)
        called = {result.name for result in results}
        ready = [i for i in intents if i.candidate.name not in called and not _lacks_values(i)]
        if ready:
            calls = _calls(ready[0])
            return Decision.call(*calls, thought=_thought(calls, query))
        if results:
            return Decision.reply(_answer_from_results(query, results))
        unmet = next((i for i in intents if _lacks_values(i)), None)
        if unmet is not None:
            return Decision.reply(_ask_for_values(query, unmet))
        return Decision.reply(_plain_answer(query, candidates, agent_input.file_names))

    def _intents(self, query: str, candidates: Sequence[Candidate], today: dt.date) -> list[Intent]:
        """:func:`_intents`, remembered for the last few queries."""
        key = (
            query,
            today,
            *(
                (c.name, c.description, json.dumps(c.parameters, default=str), c.cloud)
                for c in candidates
            ),
        )
        with self._lock:
            if (plan := self._plans.get(key)) is not None:
                self._plans.move_to_end(key)
                return plan
        plan = _intents(query, candidates, today)
        with self._lock:
            self._plans[key] = plan
            while len(self._plans) > RULE_AGENT_PLAN_MEMO_SIZE:
                self._plans.popitem(last=False)
        return plan

    def _follow_up_chain(
        self, query: str, history: Sequence[Turn], candidates: Sequence[Candidate], today: dt.date
    ) -> list[Intent]:
        """The latest turn's tool with each later follow-up's values (北京天气 → 那上海呢)."""
        recent = [  # earlier queries are read as this one is: a bounded prefix
            t.query[:RULE_AGENT_MAX_QUERY_CHARS] for t in history[-RULE_AGENT_FOLLOW_UP_TURNS:]
        ]
        for start in range(len(recent) - 1, -1, -1):
            earlier = self._intents(recent[start], candidates, today)
            if earlier:
                intent = earlier[0]
                for later in recent[start + 1 :]:
                    intent = _follow_up(later, intent, today) or intent
                asked = _follow_up(query, intent, today)
                return [asked] if asked is not None else []
        return []


def _lacks_values(intent: Intent) -> bool:
    # Only the user can give an id, a path or a URL; a cloud component is never guessed for.
    return bool(intent.plan.unsure) or (intent.candidate.cloud and bool(intent.plan.guessed))


def _calls(intent: Intent) -> list[PlannedCall]:
    name, cloud = intent.candidate.name, intent.candidate.cloud
    # Copies: plans are remembered, and whoever gets a call may change its arguments.
    calls = [PlannedCall(name, copy.deepcopy(arguments), cloud) for arguments in intent.plan.calls]
    return [call for i, call in enumerate(calls) if call not in calls[:i]]


def _follow_up(query: str, base: Intent, today: dt.date) -> Intent | None:
    """Ask ``base``'s tool again with the values ``query`` gives (``那上海呢？``), or None."""
    candidate = base.candidate
    now = plan_arguments(candidate.parameters, query, today=today, tool_text=candidate.tool_text)
    if not now.from_query - now.weak:
        # Only a leftover span (谢谢, 好的) is no reason to call the tool again.
        return None
    before = base.plan.arguments
    calls = tuple(
        {**before, **{k: v for k, v in call.items() if k in now.from_query}} for call in now.calls
    )
    return Intent(candidate, replace(now, calls=calls, guessed=now.guessed & base.plan.guessed))


def _thought(calls: Sequence[PlannedCall], query: str, *, forced: bool = False) -> str:
    names = sorted({call.name for call in calls})
    cloud = all(call.cloud for call in calls)
    if query and detect_language(query) == "en":
        joined, kind = ", ".join(names), "cloud component" if cloud else "local tool"
        return f"tool_choice forces {joined}" if forced else f"I need to call the {kind} {joined}"
    joined, kind = "、".join(names), "云端组件" if cloud else "本地工具"
    return f"按 tool_choice 调用 {joined}" if forced else f"需要调用{kind} {joined}"


def _answer_from_results(query: str, results: Sequence[ToolResult]) -> str:
    zh = detect_language(query) == "zh" or not query
    if len(results) == 1:
        name, output = results[0].name, results[0].output
        source = "云端组件" if results[0].cloud else "工具"
        return f"根据{source} {name} 的结果：{output}" if zh else f"According to {name}: {output}"
    lines = ["根据查询结果：" if zh else "Here is what the tools returned:"]
    for result in results:
        values = result.arguments.values()
        detail = ", ".join(str(v) for v in values if isinstance(v, (str, int, float)))
        head = f"（{detail}）：" if zh else f" ({detail}): "
        lines.append(f"- {result.name}{head}{result.output}")
    return "\n".join(lines)


def _ask_for_values(query: str, intent: Intent) -> str:
    candidate, plan = intent.candidate, intent.plan
    properties = candidate.parameters.get("properties")
    details = []
    for name in sorted(plan.guessed if candidate.cloud else plan.unsure):
        schema = properties.get(name) if isinstance(properties, dict) else None
        text = schema.get("description") if isinstance(schema, dict) else None
        details.append(f"{name}（{text}）" if isinstance(text, str) and text else name)
    if detect_language(query) == "zh":
        return f"要用 {candidate.name} 回答，还需要知道：{'、'.join(details)}。请补充后再问我。"
    needed = ", ".join(details)
    return f"To answer with {candidate.name} I need: {needed}. Please tell me and ask again."


def _plain_answer(query: str, candidates: Sequence[Candidate], file_names: Sequence[str]) -> str:
    zh = detect_language(query) == "zh"
    names = [c.name for c in candidates]
    listed = ("、" if zh else ", ").join(names)
    normalized = re.sub(r"[\s!！,，.。?？~～]+", " ", query).strip().lower()
    echo = re.sub(r"\s+", " ", query).strip()
    if len(echo) > RULE_AGENT_ECHO_CHARS:
        echo = echo[: RULE_AGENT_ECHO_CHARS - 1] + "…"
    if not normalized:
        reply = "请问有什么可以帮你？" if zh else "How can I help you?"
    elif normalized in _GREETINGS:
        if zh:
            reply = "你好！我是 appclient 的参考智能体。"
            reply += f"我可以调用这些工具：{listed}。" if names else "目前没有可用的工具。"
        else:
            reply = "Hello! I am appclient's reference agent. "
            reply += f"I can use these tools: {listed}." if names else "No tools are available."
    elif zh:
        reply = f"收到：“{echo}”。"
        reply += (
            f"没有找到适合这个问题的工具（可用：{listed}），请换个说法，或说明要查询的内容。"
            if names
            else "目前没有可用的工具，我只能原样回复。"
        )
    else:
        reply = f"You said: “{echo}”. "
        reply += (
            f"None of the available tools ({listed}) fits this request; "
            "try rephrasing it or say what to look up."
            if names
            else "No tools are available, so I can only echo it."
        )
    if file_names:
        files = ("、" if zh else ", ").join(file_names)
        reply += f"已收到文件：{files}。" if zh else f" Files received: {files}."
    return reply
