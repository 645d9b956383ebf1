"""The reference server under gunicorn: four worker processes over one SQLite file."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from appclient import AppClient, ToolRegistry
from appclient.server import SQLiteStore
from tests.conftest import REPO_ROOT, child_environment

pytest.importorskip("gunicorn", reason="gunicorn is a test dependency (the test extra)")
if sys.platform == "win32":  # pragma: no cover - gunicorn is POSIX-only
    pytest.skip("gunicorn runs on POSIX only", allow_module_level=True)

TOKEN = "gunicorn-token"
APP_ID = "gunicorn-app"
CLIENTS = 16
ROUND_TRIPS = 50
WORKERS = 4


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def gunicorn_url(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """Gunicorn serving create_app over one SQLite file; yields its URL and the file."""
    db = tmp_path / "state.sqlite3"
    port = _free_port()
    app = (
        f"appclient.server:create_app(tokens=[{TOKEN!r}], app_ids=[{APP_ID!r}], "
        f"db_path={str(db)!r})"
    )
    env = child_environment()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    process = subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
        [sys.executable, "-m", "gunicorn", "-w", str(WORKERS), "-b", f"127.0.0.1:{port}", app],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    booted = threading.Event()
    log: list[str] = []

    def read_log() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            log.append(line)
            if sum("Booting worker" in seen for seen in log) == WORKERS:
                booted.set()

    threading.Thread(target=read_log, daemon=True).start()
    try:
        assert booted.wait(timeout=60), "".join(log)
        yield f"http://127.0.0.1:{port}", db
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert not any("Traceback" in line for line in log), "".join(log)


def test_sixteen_clients_complete_every_round_trip_across_four_workers(
    gunicorn_url: tuple[str, Path],
) -> None:
    """16 clients x 50 tool round trips: no error, and every conversation holds all 50 turns."""
    url, db = gunicorn_url
    failures: list[BaseException] = []
    conversations: dict[int, str] = {}

    def client_work(index: int) -> None:
        served = 0

        def get_current_weather(location: str) -> str:
            """Get the current weather of a city.

            Args:
                location: The city, e.g. 北京.
            """
            return f"{location} client-{index} reading-{served}"

        registry = ToolRegistry([get_current_weather])
        try:
            with AppClient(APP_ID, token=TOKEN, base_url=url) as client:
                conversation_id = client.create_conversation()
                conversations[index] = conversation_id
                for _ in range(ROUND_TRIPS):
                    served += 1
                    result = client.run_until_answer(
                        conversation_id, "北京天气怎么样？", tools=registry
                    )
                    assert f"client-{index} reading-{served}" in result.answer
        except BaseException as exc:  # reported below, with the others
            failures.append(exc)

    threads = [threading.Thread(target=client_work, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    store = SQLiteStore(db)
    try:
        for index, conversation_id in conversations.items():
            state = store.get_conversation(conversation_id)
            assert state is not None
            assert state.open_turn is None
            assert len(state.history) == ROUND_TRIPS
            assert f"client-{index} reading-{ROUND_TRIPS}" in state.history[-1].answer
    finally:
        store.close()
