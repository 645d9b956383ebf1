"""The app-management API the official SDK calls: ``get_app_list``, ``describe_app(s)`` (pure).

Each served app id is a published agent app; request values in, response bodies out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final
from urllib.parse import parse_qs

from ._responses import HTTPProblem, bad_parameter

_MAX_KEYS: Final = 100
_DESCRIPTION: Final = (
    "An app of appclient's reference agent server (local tools, cloud components)."
)


def _overview(app_id: str) -> dict[str, Any]:
    return {
        "id": app_id,
        "name": app_id,
        "description": _DESCRIPTION,
        "appType": "agent",
        "isPublished": True,
        "updateTime": 0,
    }


def _page(ids: list[str], *, after: str, limit: int) -> list[str]:
    start = ids.index(after) + 1 if after in ids else 0
    return ids[start : start + limit]


def _limit(value: Any, name: str) -> int:
    try:
        limit = int(value)
    except (TypeError, ValueError):
        limit = 0
    if not 1 <= limit <= _MAX_KEYS:
        raise bad_parameter(name, f"must be a whole number from 1 to {_MAX_KEYS}")
    return limit


def app_list(app_ids: Iterable[str], query: str) -> dict[str, Any]:
    """``GET /v2/apps?limit=&after=``: ``{"data": [app overview, ...]}`` (400 for a bad limit)."""
    values = parse_qs(query)
    limit = _limit((values.get("limit") or ["10"])[0], "limit")
    after = (values.get("after") or [""])[0]
    return {"data": [_overview(i) for i in _page(sorted(app_ids), after=after, limit=limit)]}


def describe_apps(app_ids: Iterable[str], body: Mapping[str, Any]) -> dict[str, Any]:
    """``DescribeApps``: a page of app overviews with the official marker fields."""
    limit = _limit(body.get("MaxKeys", body.get("maxKeys", 10)), "MaxKeys")
    marker = body.get("Marker", body.get("marker")) or ""
    ids = sorted(app_ids)
    page = _page(ids, after=str(marker), limit=limit)
    truncated = bool(page) and page[-1] != ids[-1]
    return {
        "marker": str(marker),
        "isTruncated": truncated,
        "nextMarker": page[-1] if truncated else "",
        "maxKeys": limit,
        "data": [_overview(i) for i in page],
    }


def describe_app(app_ids: Iterable[str], body: Mapping[str, Any]) -> dict[str, Any]:
    """``DescribeApp``: one app's details (404 for an app not served)."""
    app_id = body.get("id")
    if not isinstance(app_id, str) or not app_id:
        raise bad_parameter("id", "must name an app")
    if app_id not in set(app_ids):
        raise HTTPProblem(404, "AppNotFound", f"id: {app_id!r} is not served here")
    return {
        **_overview(app_id),
        "instruction": "",
        "prologue": "",
        "exampleQueries": [],
        "followupQueries": {},
        "components": [],
        "knowledgeBaseConfig": None,
        "modelConfig": None,
        "background": None,
    }
