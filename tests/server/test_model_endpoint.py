"""A real model behind an OpenAI-compatible endpoint (runs when APPCLIENT_MODEL_URL is set).

    APPCLIENT_MODEL_URL=http://127.0.0.1:11434/v1 APPCLIENT_MODEL=qwen2.5:7b python -m pytest

``APPCLIENT_TOOL_FORMAT`` picks the format (``native`` by default).
"""

from __future__ import annotations

import os

import pytest

from appclient import AppClient
from appclient.testing import ReferenceServer

pytestmark = pytest.mark.model_endpoint


def get_current_weather(location: str) -> str:
    """Get the current weather of a city.

    Args:
        location: The city, e.g. Beijing.
    """
    return f"{location}: sunny, 23 degrees Celsius"


def test_a_real_model_calls_the_local_tool_and_quotes_its_output() -> None:
    """The model plans the call, the client runs the tool, the answer uses its output."""
    with (
        ReferenceServer(
            model_url=os.environ["APPCLIENT_MODEL_URL"],
            model=os.environ.get("APPCLIENT_MODEL", "default"),
            tool_format=os.environ.get("APPCLIENT_TOOL_FORMAT", "native"),
        ) as server,
        AppClient(server.app_id, token=server.token, base_url=server.url) as client,
    ):
        result = client.run_until_answer(
            query="What is the weather in Beijing right now?", tools=[get_current_weather]
        )
    assert [call.name for call in result.tool_calls] == ["get_current_weather"]
    assert "23" in result.answer
