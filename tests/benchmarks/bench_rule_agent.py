"""What one decision of the rule agent costs, next to a scripted agent's decision.

The reference server asks its agent once per turn start, per round of tool outputs and per
round of cloud calls, so the agent's planning is on every request's path. This prints the
time per ``RuleAgent.decide`` for typical inputs (the seed's query, the answer after the
output, the two-city parallel call, a weather-then-calculator chain) and the same figure
for a ``ScriptedAgent`` that just returns its next step: the least an agent can cost. Both
are measured in the same run, interleaved, and the ratio is printed.

Run: ``python tests/benchmarks/bench_rule_agent.py [--quick] [--rounds N]``
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from appclient._models import Tool
from appclient.server import RuleAgent, ScriptedAgent
from appclient.server._agent_api import AgentInput, ComponentInfo, ToolResult
from appclient.server._components import default_components
from tests.seed import SEED_WEATHER_TOOL

SEED_TOOL = SEED_WEATHER_TOOL
COMPONENTS: tuple[ComponentInfo, ...] = tuple(c.info for c in default_components())
TOOLS = (Tool.model_validate(SEED_TOOL),)
OUTPUT = ToolResult("c1", "get_current_weather", {"location": "北京", "unit": "celsius"}, "25度")

SCENARIOS: dict[str, AgentInput] = {
    "seed query -> local call": AgentInput("今天北京天气怎么样？", TOOLS, COMPONENTS),
    "output -> answer": AgentInput("今天北京天气怎么样？", TOOLS, COMPONENTS, (OUTPUT,)),
    "two cities -> 2 calls": AgentInput(
        "What's the weather like today in celsius in Tokyo and Paris.", TOOLS, COMPONENTS
    ),
    "weather, then calculator": AgentInput(
        "北京天气怎么样？再算一下 (3+4)*2", TOOLS, COMPONENTS, (OUTPUT,)
    ),
    "no tool -> plain answer": AgentInput("查询订单状态", TOOLS, COMPONENTS),
}


def _per_decision(decide: Callable[[], Any], iterations: int) -> float:
    start = time.perf_counter()
    for _ in range(iterations):
        decide()
    return (time.perf_counter() - start) / iterations


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
    print(f"{'scenario':<28} {'rule us':>9} {'scripted us':>12} {'ratio':>7}")
    for name, agent_input in SCENARIOS.items():
        rule_times: list[float] = []
        scripted_times: list[float] = []
        for _ in range(rounds):
            scripted = ScriptedAgent(["answer"] * iterations)
            scripted_times.append(
                _per_decision(lambda s=scripted, i=agent_input: s.decide(i), iterations)
            )
            rule_times.append(_per_decision(lambda i=agent_input: agent.decide(i), iterations))
        rule = statistics.median(rule_times) * 1e6
        baseline = statistics.median(scripted_times) * 1e6
        print(f"{name:<28} {rule:>9.1f} {baseline:>12.1f} {rule / baseline:>7.1f}")
    print("ratio = rule agent time / scripted agent time per decision")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
