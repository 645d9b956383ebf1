"""The package is ruff clean and mypy --strict clean (the project's style gate)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - fixed argument lists, no shell
        command, cwd=REPO_ROOT, capture_output=True, text=True, check=False, timeout=300
    )


def test_ruff_reports_nothing() -> None:
    """Ruff finds no problem in the package, tests or examples."""
    result = _run(sys.executable, "-m", "ruff", "check", "appclient", "tests", "examples")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_changes_nothing() -> None:
    """Every file is already in ruff's format."""
    result = _run(
        sys.executable, "-m", "ruff", "format", "--check", "appclient", "tests", "examples"
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_reports_nothing() -> None:
    """Mypy in strict mode (configured in pyproject.toml) finds no error in the package."""
    result = _run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_tracked_file_points_outside_the_repository() -> None:
    """No tracked file names a path beside the repository (a plain clone has nothing there)."""
    # Built from parts so that this file does not match its own pattern.
    pattern = r"\.\./" + "shared|" + "PROTOCOL" + r"\.md|" + "SHARED" + "_DIR"
    result = _run("git", "grep", "-nE", pattern, "--", ".", ":!CHANGELOG.md")
    if result.returncode == 128:  # not a git checkout (an sdist): nothing is tracked
        return
    assert result.stdout == "", "tracked files point outside the repository:\n" + result.stdout
