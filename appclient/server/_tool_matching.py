"""Which tools does a query ask for? Matching queries to tools by their words (pure).

A query is split into clauses (:func:`._query_values.split_clauses`); each clause goes to the
tool whose name, description and parameters share the most terms with it
(:mod:`._text_terms`: English words, Chinese character pairs, and concepts that join the two
languages, so ``天气`` finds ``get_current_weather``). The result is a list of
:class:`Intent`: the tools to call, in the order the query asks for them, each with the view
of the query it should read its arguments from (clauses meant for other tools blanked out).
Clauses that give one tool's parameter different values (``查询订单1，查询订单2``) become
parallel calls of that tool.

Two rules keep the user's own tools first, which is the point of local tools:

- a client (local) tool wins a clause over a cloud component unless the component matches
  at least twice as well;
- a cloud component is only chosen when the query gives evidence for every required
  parameter (``WeatherQuery`` needs a city in the query), while a client tool that matches
  is called with sensible values for what the query leaves out.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .._limits import cache_short_keys
from .._models import Tool
from ._agent_api import ComponentInfo
from ._argument_filling import ArgumentPlan, plan_arguments
from ._query_values import Found, blank_spans, find_dates, find_expression, split_clauses
from ._settings import RULE_AGENT_MAX_CLAUSES, RULE_AGENT_MAX_PARALLEL_CALLS
from ._text_terms import GENERIC_TERMS, text_terms

__all__ = [
    "CLIENT_THRESHOLD",
    "COMPONENT_THRESHOLD",
    "Candidate",
    "Intent",
    "candidates_from",
    "match_intents",
    "score",
]

#: Least score for a client tool to match a clause.
CLIENT_THRESHOLD = 0.5
#: Least score for a cloud component to match a clause.
COMPONENT_THRESHOLD = 1.0
#: A component beats a matching client tool only when it scores this many times higher.
COMPONENT_ADVANTAGE = 2.0
#: Least score for a component the query lacks required values for to be reported (so the
#: agent asks for them rather than answering plainly).
UNMET_THRESHOLD = 2.0
_NAME_WEIGHT, _DESCRIPTION_WEIGHT, _PARAMETER_WEIGHT = 1.5, 1.0, 0.5
_GENERIC_WEIGHT = 0.25


@dataclass(frozen=True)
class Candidate:
    """A tool the agent may call: a client tool (``cloud=False``) or a cloud component."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    cloud: bool

    @property
    def tool_text(self) -> str:
        """The tool's own words: name, description and parameter names."""
        properties = self.parameters.get("properties")
        names = " ".join(properties) if isinstance(properties, Mapping) else ""
        return f"{self.name} {self.description} {names}"


@dataclass(frozen=True)
class Intent:
    """A tool the query asks for, and the query as that tool should read it.

    Attributes:
        candidate: The tool.
        text: The query with the clauses meant for other tools blanked (same length).
        score: How well the tool matched.
        arguments: The arguments planned from ``text``.
    """

    candidate: Candidate
    text: str
    score: float
    arguments: ArgumentPlan


def candidates_from(tools: Sequence[Tool], components: Sequence[ComponentInfo]) -> list[Candidate]:
    """Return the client tools, then the components, as candidates.

    A component that shares a client tool's name is left out: the client tool is called.
    """
    candidates = [
        Candidate(t.function.name, t.function.description or "", t.function.parameters, False)
        for t in tools
        if t.function is not None
    ]
    local = {c.name for c in candidates}
    candidates += [
        Candidate(c.name, c.description, c.parameters, True)
        for c in components
        if c.name not in local
    ]
    return candidates


@cache_short_keys(512, max_chars=16 * 1024)
def _terms(name: str, description: str, parameters_json: str) -> tuple[frozenset[str], ...]:
    parameters = json.loads(parameters_json)
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    parameter_text = ""
    if isinstance(properties, dict):
        for key, schema in properties.items():
            text = schema.get("description") if isinstance(schema, dict) else None
            parameter_text += f" {key} {text if isinstance(text, str) else ''}"
    return text_terms(name), text_terms(description), text_terms(parameter_text)


def _weight(term: str) -> float:
    if term.startswith("#"):
        return 1.0
    return _GENERIC_WEIGHT if term in GENERIC_TERMS or "的" in term else 1.0


def score(query_terms: frozenset[str], candidate: Candidate) -> float:
    """Return how well ``candidate`` matches a query with ``query_terms`` (0 = not at all)."""
    name_terms, description_terms, parameter_terms = _terms(
        candidate.name,
        candidate.description,
        json.dumps(candidate.parameters, sort_keys=True, ensure_ascii=False, default=str),
    )
    total = 0.0
    for term in query_terms:
        if term in name_terms:
            place = _NAME_WEIGHT
        elif term in description_terms:
            place = _DESCRIPTION_WEIGHT
        elif term in parameter_terms:
            place = _PARAMETER_WEIGHT
        else:
            continue
        total += place * _weight(term)
    return total


def _query_terms(text: str, today: dt.date) -> frozenset[str]:
    terms = text_terms(text)
    dates = [(d.start, d.end) for d in find_dates(text, today=today)]
    if find_expression(blank_spans(text, dates)) is not None:
        terms = terms | {"#math"}
    return terms


def _best(
    clause: str, candidates: Sequence[Candidate], today: dt.date
) -> tuple[Candidate, float, ArgumentPlan | None] | None:
    """The tool ``clause`` asks for, its score, and its plan when choosing needed one.

    Choosing a cloud component needs its plan (one that lacks values loses); a client
    tool is chosen by score alone, so its plan is left to the caller, who may plan a
    different text anyway (the whole query with other tools' clauses blanked).
    """
    terms = _query_terms(clause, today)
    scored = sorted(
        ((score(terms, c), index, c) for index, c in enumerate(candidates)),
        key=lambda item: (-item[0], item[1]),
    )
    best_client = next(
        ((c, v) for v, _, c in scored if not c.cloud and v >= CLIENT_THRESHOLD), None
    )
    # A component must beat the best client tool by COMPONENT_ADVANTAGE; below that its
    # arguments need not even be planned.
    bar = COMPONENT_ADVANTAGE * best_client[1] if best_client else 0.0
    unmet_component: tuple[Candidate, float, ArgumentPlan] | None = None
    for value, _, candidate in scored:
        if value < max(COMPONENT_THRESHOLD, bar):
            break
        if not candidate.cloud:
            continue
        plan = plan_arguments(
            candidate.parameters, clause, today=today, tool_text=candidate.tool_text
        )
        if not plan.guessed:
            return candidate, value, plan
        if unmet_component is None and value >= UNMET_THRESHOLD:
            unmet_component = (candidate, value, plan)
    if best_client is not None:
        return best_client[0], best_client[1], None
    # A component the query lacks required values for is returned only when nothing else
    # matches, so the agent can ask for what is missing.
    return unmet_component


def _choose(clause: str, candidates: Sequence[Candidate], today: dt.date) -> Intent | None:
    best = _best(clause, candidates, today)
    if best is None:
        return None
    candidate, value, plan = best
    if plan is None:
        plan = plan_arguments(
            candidate.parameters, clause, today=today, tool_text=candidate.tool_text
        )
    return Intent(candidate, clause, value, plan)


def match_intents(query: str, candidates: Sequence[Candidate], *, today: dt.date) -> list[Intent]:
    """Return the tools ``query`` asks for, in the order it asks, one intent per tool.

    Args:
        query: The user's query.
        candidates: Client tools and cloud components (see :func:`candidates_from`).
        today: The date relative words count from.

    Returns:
        The intents; empty when no tool matches.
    """
    if not query.strip() or not candidates:
        return []
    clauses = split_clauses(query)
    if len(clauses) > RULE_AGENT_MAX_CLAUSES:
        # Bounded work for any query: the tail counts as one last clause.
        last = clauses[RULE_AGENT_MAX_CLAUSES - 1]
        tail = Found(query[last.start :], last.start, len(query), query[last.start :])
        clauses = [*clauses[: RULE_AGENT_MAX_CLAUSES - 1], tail]
    chosen: list[tuple[Found, Candidate, float]] = []
    for clause in clauses if len(clauses) > 1 else []:
        picked = _best(clause.text, candidates, today)
        if picked is not None:
            chosen.append((clause, picked[0], picked[1]))
    if not chosen:
        whole = _choose(query, candidates, today)
        return [whole] if whole is not None else []
    intents: list[Intent] = []
    for name in dict.fromkeys(c.name for _, c, _ in chosen):
        candidate = next(c for _, c, _ in chosen if c.name == name)
        others = [(cl.start, cl.end) for cl, c, _ in chosen if c.name != name]
        view = blank_spans(query, others)
        best = max(s for _, c, s in chosen if c.name == name)
        plan = plan_arguments(
            candidate.parameters, view, today=today, tool_text=candidate.tool_text
        )
        own = [clause for clause, c, _ in chosen if c.name == name]
        if len(own) > 1:
            plan = _calls_per_clause(plan, own, candidate, today)
        intents.append(Intent(candidate, view, best, plan))
    return intents


def _calls_per_clause(
    plan: ArgumentPlan, clauses: Sequence[Found], candidate: Candidate, today: dt.date
) -> ArgumentPlan:
    """One call per clause when clauses give one parameter different values (订单1，订单2).

    Clauses that add different parameters (北京天气，用华氏度) keep the one merged plan.
    """
    given: list[dict[str, Any]] = []
    for clause in clauses:
        read = plan_arguments(
            candidate.parameters, clause.text, today=today, tool_text=candidate.tool_text
        )
        strong = read.from_query - read.weak
        given += [{k: v for k, v in call.items() if k in strong} for call in read.calls]
    differ = any(
        key in later and later[key] != values[key]
        for index, values in enumerate(given)
        for later in given[index + 1 :]
        for key in values
    )
    if not differ:
        return plan
    calls: list[dict[str, Any]] = []
    for values in given:
        call = {**plan.arguments, **values}
        if values and call not in calls:
            calls.append(call)
    return replace(plan, calls=tuple(calls[:RULE_AGENT_MAX_PARALLEL_CALLS]))
