"""The README's promises: every Python block runs, its commands match CI."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT, child_environment

README = (REPO_ROOT / "README.md").read_text("utf-8")
#: Every Python block: each must run as it stands, offline, in a fresh process.
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)


def _marked_command(marker: str) -> str:
    match = re.search(rf"<!-- {marker} -->\n```sh\n(.*?)\n```\n<!-- /{marker} -->", README, re.S)
    assert match, f"README has no {marker} block"
    return match.group(1)


def test_readme_has_python_blocks() -> None:
    """The README shows Python code (so the test below has something to run)."""
    assert len(PYTHON_BLOCKS) >= 5


@pytest.mark.parametrize(
    "code", PYTHON_BLOCKS, ids=[f"block{i}" for i in range(len(PYTHON_BLOCKS))]
)
def test_every_python_block_runs_as_it_stands(code: str) -> None:
    """Each README Python block exits 0 as a script in a fresh process, with no app set up."""
    result = subprocess.run(  # noqa: S603 - runs README code from this repository
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=REPO_ROOT,
        env=child_environment(),
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


def test_the_test_command_installs_into_its_own_environment() -> None:
    """The test command's venv is not the demo's, so test tools stay out of the demo's."""
    demo, test = _marked_command("demo-command"), _marked_command("test-command")
    demo_venv = re.search(r"venv (\S+)", demo)
    test_venv = re.search(r"venv (\S+)", test)
    assert demo_venv is not None
    assert test_venv is not None
    assert demo_venv.group(1) != test_venv.group(1)


def test_the_type_stubs_are_pinned_so_pip_does_not_backtrack() -> None:
    """types-requests is pinned to the release matching the official SDK's urllib3<2."""
    pyproject = (REPO_ROOT / "pyproject.toml").read_text("utf-8")
    assert '"types-requests==2.31.0.6"' in pyproject
