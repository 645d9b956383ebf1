"""`appclient serve` and `python -m appclient.server` print where and how to connect."""

from __future__ import annotations

import io
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from typing import Any

import pytest
import requests

from appclient.cli import build_parser
from appclient.server._http import _serve_command


class _Banner(io.StringIO):
    """Collects the banner and signals when its last line ("Press Ctrl-C") is written."""

    def __init__(self) -> None:
        super().__init__()
        self.complete = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if "Ctrl-C" in text:
            self.complete.set()
        return written


def _serve(argv: list[str]) -> tuple[threading.Event, threading.Thread, io.StringIO]:
    args = build_parser().parse_args(["serve", *argv])
    stop, out = threading.Event(), _Banner()
    worker = threading.Thread(
        target=_serve_command.run, args=(args,), kwargs={"stop": stop, "out": out}
    )
    worker.start()
    assert out.complete.wait(timeout=30), out.getvalue()
    return stop, worker, out


def _record_servers(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The options each ReferenceServer that serve makes is given, as it makes them."""
    made: list[dict[str, Any]] = []
    real = _serve_command.ReferenceServer

    def recording(**kwargs: Any) -> Any:
        made.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(_serve_command, "ReferenceServer", recording)
    return made


def _url_and_headers(banner: str) -> tuple[str, dict[str, str]]:
    """The URL and the Authorization header that a serve banner prints."""
    url = re.search(r"listening on (\S+)", banner)
    token = re.search(r"token:\s+(\S+)", banner)
    assert url is not None
    assert token is not None
    return url.group(1), {"Authorization": f"Bearer {token.group(1)}"}


def test_serve_prints_url_token_and_app_id_and_serves() -> None:
    """The banner shows a working URL, a generated token and the app id."""
    stop, worker, out = _serve(["--port", "0"])
    try:
        text = out.getvalue()
        url = re.search(r"listening on (http://127\.0\.0\.1:\d+)", text)
        token = re.search(r"token:\s+(\S+)", text)
        assert url is not None
        assert token is not None
        assert "app id: appclient-demo-app" in text
        assert f"GATEWAY_URL_V2={url.group(1)}" in text
        reply = requests.post(
            f"{url.group(1)}/v2/app/conversation",
            json={"app_id": "appclient-demo-app"},
            headers={"Authorization": f"Bearer {token.group(1)}"},
            timeout=10,
        )
        assert reply.status_code == 200
    finally:
        stop.set()
        worker.join(10)
    assert not worker.is_alive()


def test_serve_accepts_several_tokens_app_id_and_db(tmp_path) -> None:
    """Repeated --token values, --app-id and --db are used; the chosen tokens are not printed."""
    db = tmp_path / "state.db"
    stop, worker, out = _serve(
        [
            *("--port", "0", "--token", "tok-one-9f", "--token", "tok-two-7c"),
            *("--app-id", "mine", "--db", str(db)),
        ]
    )
    try:
        url = re.search(r"listening on (\S+)", out.getvalue())
        assert url is not None
        assert f"sqlite {db}" in out.getvalue()
        assert "tok-one-9f" not in out.getvalue()  # tokens the user chose are not printed
        assert "tok-two-7c" not in out.getvalue()
        for token in ("tok-one-9f", "tok-two-7c"):
            reply = requests.post(
                f"{url.group(1)}/v2/app/conversation",
                json={"app_id": "mine"},
                headers={"Authorization": f"Bearer {token}"},
                timeout=10,
            )
            assert reply.status_code == 200
    finally:
        stop.set()
        worker.join(10)
    assert db.exists()


def test_python_dash_m_shows_the_same_options() -> None:
    """`python -m appclient.server --help` documents the serve options."""
    result = subprocess.run(
        [sys.executable, "-m", "appclient.server", "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    for option in ("--host", "--port", "--token", "--app-id", "--db"):
        assert option in result.stdout


def test_default_host_is_loopback() -> None:
    """Without --host the server binds 127.0.0.1 only."""
    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM ends a process at once on Windows")
def test_sigterm_stops_cleanly_and_removes_the_temporary_upload_folder(tmp_path) -> None:
    """SIGTERM (docker stop, systemd) stops the server like Ctrl-C: exit 0, no temp folder left."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "appclient.server", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if "Ctrl-C" in line:
                break
        assert list(tmp_path.glob("appclient-uploads-*"))
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    finally:
        process.kill()
        process.communicate()  # reads and closes both pipes
    assert not list(tmp_path.glob("appclient-uploads-*"))


def test_busy_port_is_a_one_line_error_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    """A port already in use ends with exit status 1 and a message naming host and port."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = build_parser().parse_args(["serve", "--port", str(port)])
        status = _serve_command.run(args, stop=threading.Event(), out=io.StringIO())
    assert status == 1
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


@pytest.mark.parametrize("option", [["--port", "70000"], ["--port", "-1"], ["--token", " "]])
def test_bad_port_or_empty_token_is_a_usage_error(option: list[str]) -> None:
    """A port outside 0-65535 or a blank --token is refused by the option parser (exit 2)."""
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["serve", *option])
    assert stopped.value.code == 2


def test_unopenable_database_is_a_one_line_error(tmp_path, capsys) -> None:
    """A --db in a folder that does not exist ends with status 1 naming the file."""
    db = tmp_path / "missing" / "state.db"
    args = build_parser().parse_args(["serve", "--port", "0", "--db", str(db)])
    status = _serve_command.run(args, stop=threading.Event(), out=io.StringIO())
    assert status == 1
    assert f"cannot open the database {db}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),  # noqa: S104 - a value to classify, nothing binds it
        ("::", False),
        ("192.168.1.5", False),
        ("example.com", False),
    ],
)
def test_hosts_other_than_loopback_are_flagged(host: str, loopback: bool) -> None:
    """Only loopback hosts count as private; the banner warns for every other host."""
    assert _serve_command.is_loopback(host) is loopback


def test_the_printed_exports_point_appclient_at_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pasting the three export lines makes AppClient() (no arguments) use the server."""
    from appclient import AppClient

    stop, worker, out = _serve(["--port", "0"])
    try:
        exports = dict(re.findall(r"export (\w+)=(\S+)", out.getvalue()))
        assert set(exports) == {"GATEWAY_URL_V2", "APPBUILDER_TOKEN", "APPBUILDER_APP_ID"}
        for name, value in exports.items():
            monkeypatch.setenv(name, value)
        with AppClient() as client:
            assert client.app_id == "appclient-demo-app"
            assert client.create_conversation()
    finally:
        stop.set()
        worker.join()


def test_the_printed_curl_line_works() -> None:
    """The banner's curl line, run as printed, creates a conversation."""
    stop, worker, out = _serve(["--port", "0"])
    try:
        line = next(line for line in out.getvalue().splitlines() if "curl " in line)
        result = subprocess.run(  # noqa: S602 - the banner's own line, run as a user would
            line.strip(), shell=True, capture_output=True, text=True, timeout=30, check=False
        )
        assert result.returncode == 0, result.stderr
        assert "conversation_id" in result.stdout
    finally:
        stop.set()
        worker.join()


def test_the_banner_links_the_run_inspector() -> None:
    """The banner names the inspector's address, which serves its page."""
    stop, worker, out = _serve(["--port", "0"])
    try:
        link = re.search(r"Watch the runs: (http://\S+/) ", out.getvalue())
        assert link is not None
        page = requests.get(link.group(1), timeout=10)
        assert page.status_code == 200
        assert "run inspector" in page.text
    finally:
        stop.set()
        worker.join()


def test_several_app_ids_are_served_and_any_with_any_app_id() -> None:
    """--app-id repeats; --any-app-id accepts every app id."""
    for argv, app_id, expected in [
        (["--app-id", "a1", "--app-id", "a2"], "a2", 200),
        (["--app-id", "a1", "--app-id", "a2"], "a3", 404),
        (["--any-app-id"], "whatever-id", 200),
    ]:
        stop, worker, out = _serve(["--port", "0", *argv])
        try:
            url, headers = _url_and_headers(out.getvalue())
            reply = requests.post(
                f"{url}/v2/app/conversation", json={"app_id": app_id}, headers=headers, timeout=10
            )
            assert reply.status_code == expected, (argv, app_id, reply.text)
        finally:
            stop.set()
            worker.join()


def test_a_busy_port_says_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    """When the port is taken, serve exits 1 and suggests --port 0 or another port."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = build_parser().parse_args(["serve", "--port", str(port)])
        assert _serve_command.run(args, stop=threading.Event(), out=io.StringIO()) == 1
    assert "use --port 0 for a free port, or another --port" in capsys.readouterr().err


def test_serve_help_names_the_endpoints(capsys: pytest.CaptureFixture[str]) -> None:
    """Appclient serve --help lists every endpoint and points to the protocol reference."""
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    text = capsys.readouterr().out
    for path in (
        "/v2/app/conversation",
        "/v2/app/conversation/runs",
        "/v2/app/conversation/file/upload",
        "/v2/app/conversation/feedback",
    ):
        assert path in text
    assert "docs/protocol.md" in text


@pytest.mark.parametrize("tool_format", ["native", "react_zh"])
def test_serve_plans_with_the_model_given_by_model_url(tool_format: str) -> None:
    """Appclient serve --model-url/--model/--tool-format plans a round trip with that model."""
    pytest.importorskip("openai")
    from appclient import AppClient
    from appclient.formats import get_format
    from appclient.testing import ModelReply, ScriptedModel

    def weather(city: str) -> str:
        """Get the weather.

        Args:
            city: The city.
        """
        return f"{city}: 晴"

    if tool_format == "native":
        call: object = ModelReply(tool_calls=(("weather", {"city": "北京"}),))
        answer = "北京晴"
    else:
        call = get_format(tool_format).write_calls([("weather", {"city": "北京"})])
        answer = "Thought: 好\nFinal Answer: 北京晴"
    with ScriptedModel([call, answer]) as model:
        argv = [
            "--port",
            "0",
            "--model-url",
            model.url,
            "--model",
            "m",
            "--tool-format",
            tool_format,
        ]
        stop, worker, out = _serve(argv)
        try:
            text = out.getvalue()
            assert f"agent:  model m at {model.url} ({tool_format}, fc)" in text
            url = re.search(r"listening on (\S+)", text)
            token = re.search(r"token:\s+(\S+)", text)
            assert url is not None
            assert token is not None
            with AppClient(
                "appclient-demo-app", token=token.group(1), base_url=url.group(1)
            ) as client:
                result = client.run_until_answer(query="北京天气？", tools=[weather])
            assert (result.tool_calls[0].output, result.answer) == ("北京: 晴", "北京晴")
        finally:
            stop.set()
            worker.join()


def test_serve_refuses_a_model_url_without_a_model(capsys: pytest.CaptureFixture[str]) -> None:
    """--model-url needs --model: exit 2 with a message, no server."""
    args = build_parser().parse_args(["serve", "--model-url", "http://127.0.0.1:9/v1"])
    assert _serve_command.run(args, stop=threading.Event(), out=io.StringIO()) == 2
    assert "--model-url needs --model NAME" in capsys.readouterr().err


def test_an_empty_model_url_serves_the_rule_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    """--model-url "" (an unset variable in a script) is no model: the rule agent plans."""
    made = _record_servers(monkeypatch)
    stop, worker, _ = _serve(["--port", "0", "--model-url", ""])
    stop.set()
    worker.join()
    assert [kwargs["model_url"] for kwargs in made] == [None]


def test_serve_takes_the_run_lease_from_lease_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """--lease-seconds reaches the server: how long a crashed run keeps its conversation busy."""
    made = _record_servers(monkeypatch)
    stop, worker, out = _serve(["--port", "0", "--lease-seconds", "5"])
    try:
        assert "listening on" in out.getvalue()
    finally:
        stop.set()
        worker.join()
    assert [kwargs["lease_seconds"] for kwargs in made] == [5.0]


def test_any_app_id_with_app_ids_serves_any_and_lists_those() -> None:
    """--any-app-id --app-id a1 --app-id a2: other ids run, and the app list is a1 and a2."""
    stop, worker, out = _serve(["--port", "0", "--any-app-id", "--app-id", "a1", "--app-id", "a2"])
    try:
        url, headers = _url_and_headers(out.getvalue())
        assert "listed: a1, a2" in out.getvalue()
        other = requests.post(
            f"{url}/v2/app/conversation", json={"app_id": "a3"}, headers=headers, timeout=10
        )
        assert other.status_code == 200
        listed = requests.get(f"{url}/v2/apps?limit=2", headers=headers, timeout=10)
        assert [app["id"] for app in listed.json()["data"]] == ["a1", "a2"]
    finally:
        stop.set()
        worker.join()
