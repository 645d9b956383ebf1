"""The shared seed tool is the one the official client really sent."""

from __future__ import annotations

from tests.conftest import load_request_fixture
from tests.seed import SEED_WEATHER_TOOL


def test_seed_weather_tool_matches_fixture_02() -> None:
    """SEED_WEATHER_TOOL equals the tool recorded in fixture 02."""
    recorded = load_request_fixture("02_run_tools_raw_nonstream")["requests"][0]["json"]
    assert recorded["tools"] == [SEED_WEATHER_TOOL]
