"""What one decision of the rule agent costs, next to a scripted agent's decision.

The reference server asks its agent once per turn start, per round of tool outputs and per
round of cloud calls, so the agent's planning is on every request's path. This prints the
time per ``RuleAgent.decide`` for typical inputs (the seed's query, the answer after the
output, the two-city parallel call, a weather-then-calculator chain), each with a query the
agent has not planned before (the answer after an output reuses its turn's plan, as in a
server), and the same figure
for a ``ScriptedAgent`` that just returns its next step: the least an agent can cost. Both
are measured in the same run, interleaved, and the ratio is printed.

Run: ``python tests/benchmarks/bench_rule_agent.py [--quick] [--rounds N]``
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from appclient._core._models import Tool
from appclient.server import RuleAgent
from appclient.server._agents._agent_api import AgentInput, ComponentInfo, ToolResult
from appclient.server._agents._components import default_components
from appclient.testing import ScriptedAgent
from tests.seed import SEED_WEATHER_TOOL

SEED_TOOL = SEED_WEATHER_TOOL
COMPONENTS: tuple[ComponentInfo, ...] = tuple(c.info for c in default_components())
TOOLS = (Tool.model_validate(SEED_TOOL),)
OUTPUT = ToolResult("c1", "get_current_weather", {"location": "北京", "unit": "celsius"}, "25度")


class Scenario(NamedTuple):
    """A kind of decision: its query and results, and whether its turn was planned before."""

    query: str
    results: tuple[ToolResult, ...] = ()
    same_turn: bool = False


# Every decision reads a query it has not seen (a number is appended), as a server's turns
# do: the agent remembers a query's plan, and timing one repeated query would time that
# memory. "Same turn" decisions come after the turn's first decision, whose plan they reuse.
SCENARIOS: dict[str, Scenario] = {
    "seed query -> local call": Scenario("今天北京天气怎么样？"),
    "output -> answer (same turn)": Scenario("今天北京天气怎么样？", (OUTPUT,), same_turn=True),
    "two cities -> 2 calls": Scenario(
        "What's the weather like today in celsius in Tokyo and Paris."
    ),
    "weather, then calculator": Scenario("北京天气怎么样？再算一下 (3+4)*2", (OUTPUT,)),
    "no tool -> plain answer": Scenario("查询订单状态"),
}

_numbers = itertools.count(1)


def _per_decision(
    decide: Callable[[AgentInput], Any], scenario: Scenario, iterations: int
) -> float:
    """Mean seconds per decision, each on a new query (its turn's first decision untimed)."""
    spent = 0.0
    for _ in range(iterations):
        query = f"{scenario.query} #{next(_numbers)}"
        agent_input = AgentInput(query, TOOLS, COMPONENTS, scenario.results)
        if scenario.same_turn:
            decide(AgentInput(query, TOOLS, COMPONENTS))
        start = time.perf_counter()
        decide(agent_input)
        spent += time.perf_counter() - start
    return spent / iterations


def main(argv: list[str] | None = None) -> int:
    """Print microseconds per decision for each scenario and the ratio to a scripted agent."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few iterations (smoke run)")
    parser.add_argument("--rounds", type=int, default=5, help="measurement rounds")
    args = parser.parse_args(argv)
    iterations = 20 if args.quick else 2000
    rounds = 1 if args.quick else max(1, args.rounds)
    agent = RuleAgent(today=lambda: dt.date(2024, 5, 1))
    print(f"rule agent decisions ({iterations} per round, median of {rounds} rounds)")
    print(f"{'scenario':<30} {'rule us':>9} {'scripted us':>12} {'ratio':>7}")
    for name, scenario in SCENARIOS.items():
        rule_times: list[float] = []
        scripted_times: list[float] = []
        for _ in range(rounds):
            scripted = ScriptedAgent(["answer"] * iterations * 2)
            scripted_times.append(_per_decision(scripted.decide, scenario, iterations))
            rule_times.append(_per_decision(agent.decide, scenario, iterations))
        rule = statistics.median(rule_times) * 1e6
        baseline = statistics.median(scripted_times) * 1e6
        print(f"{name:<30} {rule:>9.1f} {baseline:>12.1f} {rule / baseline:>7.1f}")
    print("ratio = rule agent time / scripted agent time per decision")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
