"""The official SDK's app-management calls against the reference server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from appclient.testing import ReferenceServer

appbuilder = pytest.importorskip("appbuilder")
pytestmark = pytest.mark.compat


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[ReferenceServer]:
    with ReferenceServer(app_id=["app-a", "app-b", "app-c"]) as server:
        monkeypatch.setenv("GATEWAY_URL_V2", server.url)
        monkeypatch.setenv("APPBUILDER_TOKEN", server.token)
        yield server


def test_get_app_list_lists_the_apps_served(served: ReferenceServer) -> None:
    """get_app_list (GET /v2/apps) pages through the served apps with limit and after."""
    # The SDK deprecates the call itself and forces its warning filter on.
    with pytest.warns(DeprecationWarning, match="get_app_list"):
        first: Any = appbuilder.get_app_list(limit=2)
    with pytest.warns(DeprecationWarning, match="get_app_list"):
        rest: Any = appbuilder.get_app_list(limit=2, after=first[-1].id)
    assert [app.id for app in first + rest] == ["app-a", "app-b", "app-c"]
    assert first[0].isPublished is True


def test_describe_apps_and_get_all_apps(served: ReferenceServer) -> None:
    """describe_apps (DescribeApps) lists the apps; get_all_apps follows its markers."""
    assert [app.id for app in appbuilder.describe_apps()] == ["app-a", "app-b", "app-c"]
    assert [app.id for app in appbuilder.get_all_apps()] == ["app-a", "app-b", "app-c"]


def test_describe_app_describes_a_served_app(served: ReferenceServer) -> None:
    """describe_app (DescribeApp) answers with the app's details."""
    detail = appbuilder.describe_app("app-b")
    assert (detail.id, detail.name) == ("app-b", "app-b")
    assert detail.requestId


def test_a_server_of_any_app_describes_whichever_app_is_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With any app id served, describe_app answers for the id asked (its runs would work)."""
    with ReferenceServer(app_id=None) as server:
        monkeypatch.setenv("GATEWAY_URL_V2", server.url)
        monkeypatch.setenv("APPBUILDER_TOKEN", server.token)
        detail = appbuilder.describe_app("b2a972c5-e082-46e5-b313-acbf51792422")
    assert detail.id == "b2a972c5-e082-46e5-b313-acbf51792422"
