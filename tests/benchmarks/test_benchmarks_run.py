"""Every benchmark script runs end to end in its quick mode and prints its figures."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = sorted(Path(__file__).parent.glob("bench_*.py"))


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"_bench_{path.stem}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_there_are_benchmarks() -> None:
    """The benchmark folder is not empty."""
    assert BENCHMARKS


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.stem)
def test_benchmark_runs_quickly(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The script's main(['--quick']) exits 0 and prints a ratio."""
    status = _load(path).main(["--quick"])
    out = capsys.readouterr().out
    assert status == 0
    assert "ratio" in out.lower()
