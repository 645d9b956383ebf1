"""The README's promises: its runnable snippets run, its commands match CI."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text("utf-8")
RUNNABLE = re.findall(r"<!-- runnable -->\n```python\n(.*?)```", README, flags=re.DOTALL)


def _marked_command(marker: str) -> str:
    match = re.search(rf"<!-- {marker} -->\n```sh\n(.*?)\n```\n<!-- /{marker} -->", README, re.S)
    assert match, f"README has no {marker} block"
    return match.group(1)


def test_readme_has_runnable_snippets() -> None:
    """At least one README snippet is marked runnable."""
    assert RUNNABLE


@pytest.mark.parametrize("code", RUNNABLE, ids=lambda code: code.splitlines()[0][:40])
def test_runnable_snippet_runs(code: str) -> None:
    """A snippet marked runnable exits 0 when run as a script."""
    result = subprocess.run(  # noqa: S603 - runs README code from this repository
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr


def test_demo_command_installs_and_runs_the_demo() -> None:
    """The first README command installs the package and runs appclient demo."""
    assert _marked_command("demo-command").endswith("pip install . && appclient demo")


def test_ci_runs_the_readme_test_command() -> None:
    """.ci/run extracts the README's test command, which runs pytest."""
    ci = (REPO_ROOT / ".ci" / "run").read_text("utf-8")
    assert "<!-- test-command -->" in ci
    assert "python -m pytest" in _marked_command("test-command")
