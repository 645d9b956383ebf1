"""Fixtures for the compat tests: a ReferenceServer the official SDK finds via its env vars."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from appclient.testing import ReferenceServer


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ReferenceServer]:
    """A running ReferenceServer named by GATEWAY_URL_V2 and APPBUILDER_TOKEN."""
    with ReferenceServer() as running:
        monkeypatch.setenv("GATEWAY_URL_V2", running.url)
        monkeypatch.setenv("APPBUILDER_TOKEN", running.token)
        yield running


@pytest.fixture
def client(server: ReferenceServer) -> Any:
    """An official AppBuilderClient for the server's app (token and URL from the env)."""
    import appbuilder

    return appbuilder.AppBuilderClient(server.app_id)
