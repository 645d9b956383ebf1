"""The Java client's JUnit suite, run against live reference servers (issue 6).

One module-scoped run of ``java-interop/run-tests.sh`` gets four ``ReferenceServer``
instances sharing one token: a healthy one for the round trips, and three armed through the
documented ``faults`` API (the next request fails with 503, the next stream is cut after one
message, the next request is held past the Java read timeout). It also gets a folder of tool
files written by ``appclient manifest`` from :mod:`tests.java_interop.example_tools`, which
the Java tests load and implement, and the recorded official-SDK response bodies, which a Java
test replays through a loopback stub. A second, smaller run points the fault tests at the healthy
server and expects exactly them to fail, so they cannot pass by accident.

Without Java 17, gson or the JUnit console launcher these tests are skipped, but they FAIL
when ``CI`` is set: CI must install ``default-jdk-headless libgoogle-gson-java junit5``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from appclient.cli import main as appclient_main
from appclient.testing import ReferenceServer
from tests.conftest import RESPONSE_FIXTURES

pytestmark = pytest.mark.java

REPO_ROOT = Path(__file__).resolve().parents[2]
RUN_TESTS = REPO_ROOT / "java-interop" / "run-tests.sh"
EXAMPLE = REPO_ROOT / "java-interop" / "examples" / "ToolCallRoundTrip.java"
GSON_JAR = Path(os.environ.get("GSON_JAR", "/usr/share/java/gson.jar"))
CONSOLE_JAR = Path(
    os.environ.get("JUNIT_CONSOLE_JAR", "/usr/share/java/junit-platform-console-standalone.jar")
)
EXAMPLE_TOOLS = ("get_birthday", "convert_temperature")
#: The Java tests that need a misbehaving server.
FAULT_TESTS = (
    "failingServerGivesServerException",
    "cutStreamGivesStreamInterruptedException",
    "hangingServerGivesRequestTimeoutException",
)
SUMMARY_LINE = re.compile(r"^(\d+) passed, (\d+) failed$")
SKIPPED_LINE = re.compile(r"^skipped: (\d+)\b")
#: Generous: compiling and running takes about 10 s on 2 cores; this only stops a hang.
JAVA_TIMEOUT_SECONDS = 300
#: Environment variables that must not leak into the Java run from a developer's shell.
_INHERITED_SETTINGS = re.compile(r"^(APPCLIENT_TEST_|APPBUILDER_TOKEN$|GATEWAY_URL_V2$)")


@dataclass(frozen=True)
class JavaRun:
    """The outcome of one ``run-tests.sh`` run."""

    returncode: int
    output: str
    passed: int
    failed: int
    skipped: int

    def outcome_of(self, test_name: str) -> str:
        """Return the console launcher's mark for a test method: ✔, ✘, ■ or ''."""
        match = re.search(rf"{re.escape(test_name)}\(\S*\) (\S)", self.output)
        return match.group(1) if match else ""


def missing_java_tooling() -> list[str]:
    """Name every piece of the Java toolchain that is not installed."""
    missing = [tool for tool in ("bash", "java", "javac") if shutil.which(tool) is None]
    missing += [str(jar) for jar in (GSON_JAR, CONSOLE_JAR) if not jar.is_file()]
    return missing


def run_java_suite(
    settings: dict[str, str], *, build_dir: Path, reuse_build: bool = False
) -> JavaRun:
    """Run the Java tests with ``APPCLIENT_TEST_*`` settings and parse the summary.

    Args:
        settings: ``APPCLIENT_TEST_<NAME>`` values by ``NAME``.
        build_dir: Where the classes go.
        reuse_build: Run the classes already compiled in ``build_dir`` instead of compiling.
    """
    env = {name: value for name, value in os.environ.items() if not _INHERITED_SETTINGS.match(name)}
    env.update({f"APPCLIENT_TEST_{name}": value for name, value in settings.items()})
    env["JAVA_INTEROP_BUILD_DIR"] = str(build_dir)
    if reuse_build:
        env["JAVA_INTEROP_REUSE_BUILD"] = "1"
    bash = shutil.which("bash")
    assert bash, "bash is needed to run java-interop/run-tests.sh"
    completed = subprocess.run(  # noqa: S603 - a fixed script of this repository, no shell
        [bash, str(RUN_TESTS)],
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=JAVA_TIMEOUT_SECONDS,
        check=False,
    )
    output = completed.stdout + completed.stderr
    lines = [line.strip() for line in completed.stdout.splitlines() if line.strip()]
    summary = SUMMARY_LINE.match(lines[-1]) if lines else None
    assert summary, f"run-tests.sh did not end with 'N passed, M failed':\n{output}"
    skipped = next((SKIPPED_LINE.match(line) for line in lines if SKIPPED_LINE.match(line)), None)
    return JavaRun(
        returncode=completed.returncode,
        output=output,
        passed=int(summary.group(1)),
        failed=int(summary.group(2)),
        skipped=int(skipped.group(1)) if skipped else -1,
    )


@pytest.fixture(scope="module")
def java_toolchain() -> None:
    """Skip without Java, gson or JUnit, except in CI where their absence is a failure."""
    missing = missing_java_tooling()
    if not missing:
        return
    message = (
        "Java interop needs "
        + ", ".join(missing)
        + " (apt-get install default-jdk-headless libgoogle-gson-java junit5)"
    )
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def tools_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of tool files written by ``appclient manifest``, one tool per file."""
    folder = tmp_path_factory.mktemp("java-tools")
    module = "tests.java_interop.example_tools"
    status = appclient_main(
        ["manifest", *(f"{module}:{name}" for name in EXAMPLE_TOOLS), "-o", str(folder)]
    )
    assert status == 0
    return folder


@dataclass(frozen=True)
class Servers:
    """The four reference servers of the Java run (see the module docstring)."""

    healthy: ReferenceServer
    failing: ReferenceServer
    cut_stream: ReferenceServer
    hanging: ReferenceServer
    token: str
    app_id: str

    def settings(self) -> dict[str, str]:
        """Every server's URL, the token and the app id, as ``APPCLIENT_TEST_*`` names."""
        return {
            "BASE_URL": self.healthy.url,
            "FAILING_BASE_URL": self.failing.url,
            "CUT_STREAM_BASE_URL": self.cut_stream.url,
            "HANGING_BASE_URL": self.hanging.url,
            "TOKEN": self.token,
            "APP_ID": self.app_id,
        }


@pytest.fixture(scope="module")
def servers(java_toolchain: None) -> Iterator[Servers]:
    """Start the healthy server and the three fault-armed ones."""
    token = "java-interop-token"
    with ExitStack() as stack:
        healthy, failing, cut_stream, hanging = (
            stack.enter_context(ReferenceServer(token=token)) for _ in range(4)
        )
        failing.faults.fail_next(1, status=503, retry_after=1)
        cut_stream.faults.cut_stream_after(1)
        hanging.faults.hang_next(1)
        yield Servers(healthy, failing, cut_stream, hanging, token, healthy.app_id)


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the Java classes are compiled once for the module (outside the work tree)."""
    return tmp_path_factory.mktemp("java-build")


@pytest.fixture(scope="module")
def java_run(servers: Servers, tools_dir: Path, build_dir: Path) -> JavaRun:
    """The Java suite compiled and run once against the servers with the generated tools."""
    settings = {
        **servers.settings(),
        "TOOLS_DIR": str(tools_dir),
        "FIXTURES_DIR": str(RESPONSE_FIXTURES),
    }
    return run_java_suite(settings, build_dir=build_dir)


def test_manifest_writes_one_tool_file_per_function(tools_dir: Path) -> None:
    """``appclient manifest -o DIR`` wrote one JSON file per example tool."""
    assert len(list(tools_dir.glob("*.json"))) == len(EXAMPLE_TOOLS)


def test_java_suite_passes(java_run: JavaRun) -> None:
    """The Java suite passes against the reference servers, with tests actually run."""
    assert java_run.returncode == 0, java_run.output
    assert java_run.passed > 0, java_run.output
    assert java_run.failed == 0, java_run.output


def test_no_java_test_was_skipped(java_run: JavaRun) -> None:
    """Every Java integration test ran: the bridge gave all settings."""
    assert java_run.skipped == 0, java_run.output
    for name in (
        "roundTripNonStream",
        "roundTripStream",
        "parallelToolCalls",
        "forcedToolChoice",
        "wrongTokenIsAuthenticationException",
        "generatedToolsDriveARoundTrip",
        "realisticAnswerStream",
        "repeatedToolOutputRunIsDeduplicated",
        "feedbackOnAnAnswer",
        *FAULT_TESTS,
    ):
        assert java_run.outcome_of(name) == "✔", f"{name} did not pass:\n{java_run.output}"


def test_example_round_trip_runs(
    java_run: JavaRun, servers: Servers, tools_dir: Path, build_dir: Path
) -> None:
    """The Java example runs a tool round against the server and prints the answer."""
    env = {name: value for name, value in os.environ.items() if not _INHERITED_SETTINGS.match(name)}
    env.update(
        APPBUILDER_TOKEN=servers.token,
        GATEWAY_URL_V2=servers.healthy.url,
        APPBUILDER_APP_ID=servers.app_id,
    )
    java = shutil.which("java")
    assert java, java_run.output
    completed = subprocess.run(  # noqa: S603 - the JDK running a fixed example of this repository
        [
            java,
            "-Dfile.encoding=UTF-8",
            "-cp",
            f"{build_dir / 'classes'}{os.pathsep}{GSON_JAR}",
            str(EXAMPLE),
            str(tools_dir),
            "请问张三同学的生日是哪天？",
        ],
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=JAVA_TIMEOUT_SECONDS,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "tool call: get_birthday" in completed.stdout, completed.stdout
    assert "张三" in completed.stdout.splitlines()[-1], completed.stdout


def test_fault_servers_served_their_faults(java_run: JavaRun, servers: Servers) -> None:
    """Each armed fault was hit by the Java client (exactly once: no retry)."""
    for server in (servers.failing, servers.cut_stream, servers.hanging):
        assert server.faults.injected == 1, java_run.output


def test_fault_tests_fail_against_a_healthy_server(
    java_run: JavaRun, servers: Servers, build_dir: Path
) -> None:
    """Pointed at a well-behaved server, exactly the Java fault tests fail: they test something."""
    healthy = servers.healthy.url
    settings = {
        "FAILING_BASE_URL": healthy,
        "CUT_STREAM_BASE_URL": healthy,
        "HANGING_BASE_URL": healthy,
        "TOKEN": servers.token,
        "APP_ID": servers.app_id,
    }
    rerun = run_java_suite(settings, build_dir=build_dir, reuse_build=True)
    assert rerun.returncode != 0
    assert rerun.failed == len(FAULT_TESTS), rerun.output
    for name in FAULT_TESTS:
        assert rerun.outcome_of(name) == "✘", rerun.output
