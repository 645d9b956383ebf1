"""``appclient demo``: the weather round trip, printed step by step."""

from __future__ import annotations

import argparse
import io
import subprocess
import sys

import pytest

from appclient import AppClient, RunError
from appclient._demo import _Printer, _styler, add_arguments, get_current_weather
from appclient._tools._loop_events import (
    AnswerDone,
    RoundFinished,
    RoundRecord,
    RoundTripResult,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from appclient.cli import main
from appclient.types import ToolCallRecord
from tests.conftest import REPO_ROOT, child_environment


def _demo(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["demo", "--no-color", *args])
    return status, capsys.readouterr().out


def test_demo_runs_the_weather_round_trip(capsys: pytest.CaptureFixture[str]) -> None:
    """The demo exits 0 and shows the call, the local result, the answer and a summary."""
    status, out = _demo(capsys)
    assert status == 0, out
    assert "calls get_current_weather" in out
    assert "local  <- ok get_current_weather" in out
    assert "agent> " in out
    assert "summary: 1 round(s), 2 local tool call(s)" in out


def test_demo_with_a_query(capsys: pytest.CaptureFixture[str]) -> None:
    """--query changes what is asked."""
    status, out = _demo(capsys, "--query", "What's the weather like today in Tokyo?")
    assert status == 0, out
    assert "you> What's the weather like today in Tokyo?" in out
    assert '"location": "Tokyo"' in out


def test_demo_without_streaming(capsys: pytest.CaptureFixture[str]) -> None:
    """--no-stream waits for whole answers and still shows every step."""
    status, out = _demo(capsys, "--no-stream")
    assert status == 0, out
    assert "agent> " in out


def test_demo_as_a_console_command() -> None:
    """`python -m appclient.cli demo` works in a fresh process."""
    env = child_environment()
    result = subprocess.run(
        [sys.executable, "-m", "appclient.cli", "demo", "--no-color"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "summary:" in result.stdout


def test_options() -> None:
    """The demo's options parse with their defaults."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([])
    assert (args.no_color, args.no_stream, args.max_rounds) == (False, False, 4)
    assert args.query


@pytest.mark.parametrize("value", ["0", "-1"])
def test_max_rounds_below_one_is_a_usage_error(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--max-rounds below 1 is refused by the parser (exit 2), before any server starts."""
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--max-rounds", value])
    captured = capsys.readouterr()
    assert exit_info.value.code == 2
    assert "--max-rounds" in captured.err
    assert "at least 1" in captured.err
    assert "embedded server" not in captured.out


def test_blank_query_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """An empty --query is refused by the parser, naming the option."""
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--query", "  "])
    captured = capsys.readouterr()
    assert exit_info.value.code == 2
    assert "--query" in captured.err
    assert "embedded server" not in captured.out


def test_demo_error_goes_to_standard_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed round trip exits 1 with the error on stderr, so `demo > file` still shows it."""

    def fail(*args: object, **kwargs: object) -> None:
        raise RunError("the agent failed", code="500")

    monkeypatch.setattr(AppClient, "run_until_answer", fail)
    status = main(["demo", "--no-color"])
    captured = capsys.readouterr()
    assert status == 1
    assert "the agent failed" not in captured.out
    assert captured.err.startswith("error: ")
    assert "the agent failed" in captured.err


def _record(output: str = '{"temperature": 25}', *, error: bool = False) -> ToolCallRecord:
    return ToolCallRecord("c1", "get_current_weather", {"location": "北京"}, output, error)


def _tty() -> io.StringIO:
    tty = io.StringIO()
    tty.isatty = lambda: True  # type: ignore[method-assign]
    return tty


def _printed(*events: object, color: bool = False) -> str:
    out = _tty() if color else io.StringIO()
    printer = _Printer(out, _styler(argparse.Namespace(no_color=False), out))
    for event in events:
        printer(event)  # type: ignore[arg-type]
    return out.getvalue()


def test_printer_streams_text_on_one_line() -> None:
    """Text deltas are printed as they come, on one answer line."""
    text = _printed(TextDelta("北京", 1), TextDelta("25度", 1), AnswerDone(_result()))
    assert text == "agent> 北京25度\n"


def test_printer_shows_calls_with_arguments() -> None:
    """A started call shows the tool, its JSON arguments and the round."""
    text = _printed(ToolCallStarted(1, "c1", "get_current_weather", {"location": "北京"}))
    assert 'calls get_current_weather {"location": "北京"}' in text
    assert "round 1" in text


def test_printer_marks_failures() -> None:
    """A failed local call is marked x and shows the error text."""
    text = _printed(ToolCallFinished(1, _record("Error: boom", error=True)))
    assert "local  <- x get_current_weather" in text
    assert "Error: boom" in text


def test_printer_announces_the_outputs_being_sent() -> None:
    """A finished round says how many outputs go back."""
    text = _printed(RoundFinished(RoundRecord(1, (_record(),))))
    assert "sending 1 output(s) of round 1 back" in text


def test_colors_only_when_asked_and_possible(monkeypatch: pytest.MonkeyPatch) -> None:
    """Colour is off for --no-color, NO_COLOR and non-terminals."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    args = argparse.Namespace(no_color=False)
    assert _styler(args, io.StringIO())("bold", "x") == "x"
    assert _styler(args, _tty())("bold", "x") == "\x1b[1mx\x1b[0m"
    assert _styler(argparse.Namespace(no_color=True), _tty())("bold", "x") == "x"
    monkeypatch.setenv("NO_COLOR", "1")
    assert _styler(args, _tty())("bold", "x") == "x"


def test_colored_output_has_escape_codes() -> None:
    """With colour on, the lines carry ANSI codes."""
    assert "\x1b[" in _printed(ToolCallFinished(1, _record()), color=True)


@pytest.mark.parametrize(("unit", "temperature"), [("celsius", 25.0), ("fahrenheit", 77.0)])
def test_demo_weather_tool(unit: str, temperature: float) -> None:
    """The demo's local tool converts units."""
    assert get_current_weather("北京", unit)["temperature"] == temperature  # type: ignore[arg-type]


def _result() -> RoundTripResult:
    return RoundTripResult(answer="北京25度", conversation_id="c")
