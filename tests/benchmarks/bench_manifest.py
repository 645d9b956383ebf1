"""Building tool manifests: appclient's Manifest.from_function next to the official SDK's.

For each function of a small set, three timings (median over repeats, microseconds per build):

- ``first``: appclient on a function it has never seen (a fresh function object each time,
  the docstring cache cleared), i.e. signature, annotations, docstring and schema work;
- ``repeat``: appclient on the same function again (the per-callable cache);
- ``official``: ``appbuilder.Manifest.from_function`` (appbuilder-sdk, the ``compat`` extra) on
  the same functions, measured in the same run, interleaved with ours. It keeps no cache, so
  its first and repeated builds cost the same. Functions it cannot describe (it crashes on
  pydantic models, dataclasses and TypedDicts) are reported as such.

Ratios are official / appclient: above 1 means appclient is faster.

Run: ``python tests/benchmarks/bench_manifest.py [--quick] [--repeats N]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Optional

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from appclient._manifest import Manifest
from appclient._manifest._docstrings import parse_docstring
from tests.manifest.samples import Address, Point, get_current_weather


def search_flights(
    origin: str,
    destination: str,
    date: str,
    passengers: int = 1,
    cabin: Literal["economy", "business", "first"] = "economy",
    max_price: Optional[float] = None,  # noqa: UP045 - the spelling users write
    airlines: list[str] | None = None,
    direct_only: bool = False,
) -> list[dict[str, Any]]:
    """Search flights between two cities.

    Args:
        origin: Departure city.
        destination: Arrival city.
        date: Departure date, YYYY-MM-DD.
        passengers: Number of travellers.
        cabin: Cabin class.
        max_price: Highest acceptable price.
        airlines: Only these airlines.
        direct_only: Only direct flights.

    Returns:
        Matching flights.
    """
    return []


def ship(address: Address, parcel: Point, express: bool = False) -> str:
    """Ship a parcel to an address."""
    return "ok"


FUNCTIONS: tuple[Callable[..., Any], ...] = (get_current_weather, search_flights, ship)


def _fresh_copy(func: Any) -> Any:
    """The same function as a new object, so no per-callable cache can answer."""
    copy = types.FunctionType(
        func.__code__, func.__globals__, func.__name__, func.__defaults__, func.__closure__
    )
    copy.__doc__ = func.__doc__
    copy.__annotations__ = dict(func.__annotations__)
    copy.__kwdefaults__ = func.__kwdefaults__
    copy.__qualname__ = func.__qualname__
    return copy


def _seconds_per_build(build: Callable[[Any], Any], funcs: list[Any]) -> float:
    start = time.perf_counter()
    for func in funcs:
        build(func)
    return (time.perf_counter() - start) / len(funcs)


def _ours_first(func: Any, iterations: int) -> float:
    copies = [_fresh_copy(func) for _ in range(iterations)]
    total = 0.0
    for copy in copies:
        parse_docstring.cache_clear()
        total += _seconds_per_build(Manifest.from_function, [copy])
    return total / iterations


def _official() -> Callable[[Any], Any] | None:
    try:
        import appbuilder  # optional (the compat extra), and slow to import
    except Exception:  # not installed (the compat extra), or broken: no baseline
        return None
    from_function: Callable[[Any], Any] = appbuilder.Manifest.from_function
    return from_function


def _official_works(official: Callable[[Any], Any], func: Any) -> str | None:
    try:
        official(func)
    except Exception as exc:  # the official SDK's failure is a result to report
        return f"{type(exc).__name__}"
    return None


def measure(*, iterations: int, repeats: int) -> list[dict[str, Any]]:
    """Return one row of median timings (seconds per build) per function."""
    official = _official()
    rows = []
    for func in FUNCTIONS:
        Manifest.from_function(func)  # warm imports and pydantic's own caches
        failure = _official_works(official, func) if official is not None else "not installed"
        first, repeat, theirs = [], [], []
        for _ in range(repeats):
            first.append(_ours_first(func, iterations))
            repeat.append(_seconds_per_build(Manifest.from_function, [func] * iterations))
            if official is not None and failure is None:
                copies = [_fresh_copy(func) for _ in range(iterations)]
                theirs.append(_seconds_per_build(official, copies))
        rows.append(
            {
                "name": func.__name__,
                "first": statistics.median(first),
                "repeat": statistics.median(repeat),
                "official": statistics.median(theirs) if theirs else None,
                "official_failure": failure,
            }
        )
    return rows


def _micro(seconds: float) -> str:
    return f"{seconds * 1e6:9.1f}"


def report(rows: list[dict[str, Any]]) -> str:
    """Format the rows as a table with ratios."""
    lines = [
        "Manifest build time, microseconds per build (median); ratio = official / appclient",
        f"{'function':22} {'first':>9} {'repeat':>9} {'official':>9}  ratio first  ratio repeat",
    ]
    for row in rows:
        official = row["official"]
        if official is None:
            tail = f"{'-':>9}  official: {row['official_failure']}"
        else:
            first_ratio = official / row["first"]
            repeat_ratio = official / row["repeat"]
            tail = f"{_micro(official)}  {first_ratio:11.2f}x  {repeat_ratio:11.2f}x"
        lines.append(f"{row['name']:22} {_micro(row['first'])} {_micro(row['repeat'])} {tail}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="few iterations (smoke run)")
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats per function")
    parser.add_argument("--iterations", type=int, default=200, help="builds per repeat")
    args = parser.parse_args(argv)
    iterations, repeats = (5, 1) if args.quick else (args.iterations, args.repeats)
    print(report(measure(iterations=iterations, repeats=repeats)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
