"""Dispatch overhead per tool call, next to calling the function directly.

What one local tool call costs on top of the function itself: reading the call, decoding
and validating the arguments (lax pydantic), running it on a worker thread with a timeout,
and serialising the result as JSON text. The baseline is the function called directly with
the same arguments, measured in the same run, interleaved with the dispatch timings.

Run: ``python tests/benchmarks/bench_dispatch.py [--quick] [--rounds N]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from appclient import ToolCall, ToolRegistry


def get_current_weather(
    location: str, unit: Literal["celsius", "fahrenheit"] = "celsius", days: int = 1
) -> dict[str, Any]:
    """Weather of a Chinese city.

    Args:
        location: The city, for example 北京.
        unit: The temperature unit.
        days: How many days.
    """
    return {"location": location, "unit": unit, "days": days, "temperature": 25, "sky": "晴"}


ARGUMENTS = {"location": "北京", "unit": "celsius", "days": "3"}
DIRECT_ARGUMENTS = {"location": "北京", "unit": "celsius", "days": 3}


def _call(index: int) -> ToolCall:
    return ToolCall.model_validate(
        {
            "id": f"call-{index}",
            "type": "function",
            "function": {"name": "get_current_weather", "arguments": ARGUMENTS},
        }
    )


def _per_call(func: Callable[[], Any], calls_per_run: int, iterations: int) -> float:
    start = time.perf_counter()
    for _ in range(iterations):
        func()
    return (time.perf_counter() - start) / (iterations * calls_per_run)


def measure(*, iterations: int, repeats: int) -> dict[str, float]:
    """Return the median seconds per call of each way of making the call."""
    registry = ToolRegistry([get_current_weather])
    spec = registry.get("get_current_weather")
    assert spec is not None
    one = [_call(0)]
    four = [_call(i) for i in range(4)]

    def direct() -> Any:
        return get_current_weather(**DIRECT_ARGUMENTS)  # type: ignore[arg-type]

    def direct_json() -> Any:
        return json.dumps(get_current_weather(**DIRECT_ARGUMENTS), ensure_ascii=False)  # type: ignore[arg-type]

    def validate_only() -> Any:
        return spec.spec.validate_arguments(ARGUMENTS)

    def dispatch_one() -> Any:
        return registry.dispatch(one)

    def dispatch_four() -> Any:
        return registry.dispatch(four)

    ways: dict[str, tuple[Callable[[], Any], int]] = {
        "direct call": (direct, 1),
        "direct call + json.dumps": (direct_json, 1),
        "validation only": (validate_only, 1),
        "dispatch, 1 call per round": (dispatch_one, 1),
        "dispatch, 4 calls per round": (dispatch_four, 4),
    }
    samples: dict[str, list[float]] = {name: [] for name in ways}
    for func, _ in ways.values():  # warm caches, threads and pydantic validators
        func()
    for _ in range(repeats):  # interleaved, so drift affects every way alike
        for name, (func, per_run) in ways.items():
            samples[name].append(_per_call(func, per_run, iterations))
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    """Print per-call times and their ratio to the direct call."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few iterations (smoke run)")
    parser.add_argument("--rounds", type=int, default=None, help="repeats per way")
    args = parser.parse_args(argv)
    iterations, repeats = (20, 3) if args.quick else (2000, 7)
    if args.rounds:
        repeats = args.rounds
    figures = measure(iterations=iterations, repeats=repeats)
    baseline = figures["direct call"]
    print(f"dispatch overhead ({iterations} calls x {repeats} repeats, median per call)")
    print(f"{'way':<30} {'us/call':>10} {'ratio vs direct':>16} {'overhead us':>12}")
    for name, seconds in figures.items():
        print(
            f"{name:<30} {seconds * 1e6:>10.1f} {seconds / baseline:>15.1f}x "
            f"{(seconds - baseline) * 1e6:>12.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
