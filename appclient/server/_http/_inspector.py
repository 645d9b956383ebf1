"""The run inspector: a read-only page at ``/`` showing a token's conversations and runs.

The page (``inspector/`` in the package) sends the token as the ``Authorization`` header to
the JSON endpoints under ``/inspector/api/``, never in a URL; a token sees its own
conversations only, shown as text under a content security policy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from importlib import resources
from typing import Any, Final

from .._state._state import MAX_TEXT_CHARS, ConversationState, RunRecord, run_view
from ._endpoints import Endpoints
from ._responses import HTTPProblem, Response, json_response

_API = "/inspector/api/conversations"
#: Conversations the list shows, newest first.
_LIST_LIMIT: Final = 200
_STATIC = {
    "/": ("index.html", "text/html"),
    "/inspector/app.js": ("app.js", "text/javascript"),
    "/inspector/style.css": ("style.css", "text/css"),
}
_PAGE_HEADERS = (
    (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
)


def serves(path: str) -> bool:
    """Whether ``path`` is the inspector's."""
    return path in _STATIC or path.startswith(_API)


class Inspector:
    """Answers the inspector's page and JSON endpoints (``owner``: environ -> owner, or 401)."""

    def __init__(self, *, endpoints: Endpoints, owner: Callable[[dict[str, Any]], str]) -> None:
        self._endpoints = endpoints
        self._owner = owner
        folder = resources.files("appclient.server") / "inspector"
        self._pages = {  # given each request's id
            path: Response(200, "", folder.joinpath(name).read_bytes(), None, kind, _PAGE_HEADERS)
            for path, (name, kind) in _STATIC.items()
        }

    def handle(self, environ: dict[str, Any], *, request_id: str) -> Response:
        """Serve a request to a path it :func:`serves` (405 but for GET, 401, 404)."""
        path = environ.get("PATH_INFO") or "/"
        if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            raise HTTPProblem(405, "MethodNotAllowed", f"{path}: use GET", headers={"Allow": "GET"})
        page = self._pages.get(path)
        if page is not None:
            return replace(page, request_id=request_id)
        owner = self._owner(environ)
        rest = path[len(_API) :].strip("/")
        payload = self._conversation(owner, rest) if rest else self._list(owner)
        answer = json_response(payload, request_id=request_id)
        return replace(answer, headers=(("Cache-Control", "no-store"),))

    def _list(self, owner: str) -> dict[str, Any]:
        store = self._endpoints.store
        running = self._endpoints.running
        return {
            "conversations": [
                {
                    "conversation_id": state.conversation_id,
                    "app_id": state.app_id,
                    "created_at": state.created_at,
                    "runs": len(state.runs),
                    "last_query": _last_query(state),
                    "waiting_for_outputs": state.open_turn is not None,
                    "running": state.conversation_id in running,
                }
                for state in store.list_conversations(owner, limit=_LIST_LIMIT)
            ]
        }

    def _conversation(self, owner: str, conversation_id: str) -> dict[str, Any]:
        store = self._endpoints.store
        state = store.get_conversation(conversation_id)
        if state is None or state.owner != owner:
            raise HTTPProblem(
                404, "ConversationNotFound", f"conversation_id: {conversation_id[:80]!r} not found"
            )
        pending = state.open_turn.pending if state.open_turn is not None else ()
        return {
            "conversation_id": state.conversation_id,
            "app_id": state.app_id,
            "created_at": state.created_at,
            "tools": [_tool_summary(tool) for tool in state.tools],
            "runs": [run_view(run) for run in state.runs],
            "waiting_for": [
                {"id": c.call_id, "name": c.name, "arguments": c.arguments} for c in pending
            ],
            "running": self._endpoints.running.get(conversation_id),
            "files": [
                {"file_id": f.file_id, "name": f.name, "size": f.size, "url": f.url}
                for f in store.files(conversation_id)
            ],
            "feedback": [
                {
                    "message_id": f.message_id,
                    "type": f.type,
                    "flag": list(f.flag),
                    "reason": f.reason,
                }
                for f in store.feedback(conversation_id)
            ],
        }


def _tool_summary(tool: dict[str, Any]) -> dict[str, str]:
    function = tool.get("function") or {}
    return {
        "name": str(function.get("name", "")),
        "description": str(function.get("description", ""))[:300],
    }


def _last_query(state: ConversationState) -> str:
    for run in reversed(state.runs):
        query = run.query if isinstance(run, RunRecord) else str(run.get("query", ""))
        if query:
            return query[:MAX_TEXT_CHARS]
    return ""
