"""The ``appclient`` command line: subcommand wiring and how it ends."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO_ROOT, child_environment


def test_output_pipe_closed_early_ends_quietly() -> None:
    """`appclient demo | head -1` stops without a BrokenPipeError traceback."""
    env = child_environment()
    process = subprocess.Popen(
        [sys.executable, "-m", "appclient.cli", "demo", "--no-color"],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # the reader goes away, as `head -1` does
    stderr = process.stderr.read().decode("utf-8", errors="replace")
    process.stderr.close()
    process.wait(timeout=120)
    assert "Traceback" not in stderr
    assert "BrokenPipeError" not in stderr


def test_python_m_appclient_is_the_command() -> None:
    """`python -m appclient serve --help` works where the script is not on PATH."""
    result = subprocess.run(
        [sys.executable, "-m", "appclient", "serve", "--help"],
        cwd=REPO_ROOT,
        env=child_environment(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: appclient serve")
