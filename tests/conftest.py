"""Shared test fixtures: where the protocol fixtures live, and a fresh environment."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Recorded official-client data, kept in the repository (see its README for the source).
OFFICIAL_FIXTURES = REPO_ROOT / "tests" / "fixtures" / "official-sdk"
REQUEST_FIXTURES = OFFICIAL_FIXTURES / "requests"
RESPONSE_FIXTURES = OFFICIAL_FIXTURES / "responses"


def load_request_fixture(name: str) -> dict[str, Any]:
    """Return one recorded scenario from ``fixtures/official-sdk/requests`` by file stem."""
    data: dict[str, Any] = json.loads((REQUEST_FIXTURES / f"{name}.json").read_text("utf-8"))
    return data


def child_environment() -> dict[str, str]:
    """Return the environment for a child Python process: no real token or gateway, UTF-8."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("APPBUILDER_", "GATEWAY_"))}
    env["PYTHONIOENCODING"] = "utf-8"
    return env


@pytest.fixture(autouse=True)
def _no_appbuilder_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep a developer's real token or gateway out of every test."""
    for name in ("APPBUILDER_TOKEN", "GATEWAY_URL_V2", "APPBUILDER_APP_ID"):
        monkeypatch.delenv(name, raising=False)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the tests that need a real model endpoint unless APPCLIENT_MODEL_URL names one."""
    if os.environ.get("APPCLIENT_MODEL_URL"):
        return
    kept = [item for item in items if item.get_closest_marker("model_endpoint") is None]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept
