"""The official appbuilder-sdk 1.1.5 MCP pattern (its MCPClient and handler) against our server.

appbuilder-sdk 1.1.5 pins mcp 1.3.0, which imports a pydantic private that pydantic 2.12
removed, so it runs in a venv of its own, named by ``APPCLIENT_OFFICIAL_MCP_PYTHON`` (made by
``.ci/run``: ``pip install appbuilder-sdk==1.1.5 'pydantic<2.12'``); skipped without it,
except under CI.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from appclient.server import PlannedCall
from appclient.testing import ReferenceServer, ScriptedAgent

PYTHON = os.environ.get("APPCLIENT_OFFICIAL_MCP_PYTHON", "")
SCRIPT = Path(__file__).parent / "official_mcp" / "run_official_client.py"

pytestmark = pytest.mark.skipif(
    not PYTHON and not os.environ.get("CI"),
    reason="set APPCLIENT_OFFICIAL_MCP_PYTHON to a venv with appbuilder-sdk 1.1.5 (.ci/run does)",
)


def test_the_official_mcp_client_pattern_runs_two_rounds_against_the_server() -> None:
    """MCP tools from the SDK's MCPClient, called by its handler: plain, then streamed."""
    assert PYTHON, "CI must set APPCLIENT_OFFICIAL_MCP_PYTHON"
    agent = ScriptedAgent(
        [
            PlannedCall("get_forecast", {"city": "北京"}),
            ScriptedAgent.echo_outputs("预报：{outputs}"),
            PlannedCall("translate", {"text": "hello world"}),
            ScriptedAgent.echo_outputs("译文：{outputs}"),
        ]
    )
    with ReferenceServer(agent=agent) as server:
        env = {**os.environ, "GATEWAY_URL_V2": server.url, "APPBUILDER_TOKEN": server.token}
        done = subprocess.run(  # noqa: S603 - the configured interpreter, a fixed script
            [PYTHON, str(SCRIPT), server.app_id],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [a["answer"] for a in answers] == [
        "预报：北京: sunny, 26 degrees tomorrow",
        "译文：你好，世界",
    ]
