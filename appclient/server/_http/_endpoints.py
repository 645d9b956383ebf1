"""The four endpoints of the protocol: create conversation, runs, file upload, feedback.

Each validates its request completely before touching any state; writes go through the
idempotency guard, and a run holds its conversation's lease from reading the state to
committing the new one, so a failed run leaves the conversation as it was.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from ..._core._models import CreateConversationRequest, FeedbackRequest, RunRequest
from .._runs._events import live_message, message_head, render_body, render_stream, utc_date
from .._runs._live_run import live_messages
from .._runs._run_engine import Emit, RunEngine, record_run
from .._runs._tool_choice import forced_tool_name
from .._settings import DEFAULT_APP_ID, MAX_FEEDBACK_PER_CONVERSATION, MAX_FILES_PER_CONVERSATION
from .._state._idempotency import IdempotencyGuard, fingerprint, stored_response
from .._state._state import MAX_RUNS_KEPT, ConversationState, FeedbackRecord, FileRecord
from .._state._store import Store, lease_owner_id
from ._app_api import app_list, describe_app, describe_apps
from ._multipart import MultipartError, parse_form
from ._responses import (
    HTTPProblem,
    Response,
    bad_parameter,
    json_response,
    new_id,
    serial_id,
    sse_response,
    text_response,
)
from ._uploads import UploadStorage, display_name
from ._validation import parse_json_object, validate_model, validate_tools

_MAX_URL_CHARS = 4096
#: Characters of a client's id an error message repeats (ids are not length-checked).
_ECHO_CHARS = 80


def _check_room(held: int, *, most: int, what: str) -> None:
    """Refuse one more of a conversation's ``what`` when it holds ``most`` already."""
    if held >= most:
        raise bad_parameter(
            "conversation_id", f"the conversation holds {most:,} {what}, the most it may"
        )


@dataclass(frozen=True, slots=True)
class RequestContext:
    """An authenticated request, as the endpoints see it (``owner``: the token's fingerprint)."""

    request_id: str
    owner: str
    path: str
    body: bytes
    content_type: str = ""
    idempotency_key: str | None = None
    query: str = ""


class Endpoints:
    """Serves the protocol's endpoints over a store, a run engine and an upload directory."""

    def __init__(
        self,
        *,
        store: Store,
        engine: RunEngine,
        uploads: UploadStorage,
        app_ids: frozenset[str] | None,
        any_app_id: bool,
        lease_seconds: float,
        max_delta_chars: int,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.engine = engine
        self.uploads = uploads
        self._app_ids = app_ids or frozenset()
        self._any_app_id = any_app_id or app_ids is None
        #: The app ids listed (the default one when any is served and none is named).
        self.served_app_ids = sorted(app_ids) if app_ids is not None else [DEFAULT_APP_ID]
        self._lease_seconds = lease_seconds
        self._max_delta_chars = max_delta_chars
        self._clock = clock
        self._guard = IdempotencyGuard(store, stale_after=lease_seconds, clock=clock)
        #: Runs in progress in this process, by conversation id: when each started, its
        #: query, and the answer streamed so far (for the run inspector).
        self.running: dict[str, dict[str, Any]] = {}

    def _check_app(self, app_id: str) -> None:
        if not app_id:
            raise bad_parameter("app_id", "must not be empty")
        if not self._any_app_id and app_id not in self._app_ids:
            served = ", ".join(map(repr, self.served_app_ids)) or "none"
            raise HTTPProblem(
                404, "AppNotFound", f"app_id: {app_id!r} is not served here (it serves {served})"
            )

    def _owned(self, conversation_id: str, *, owner: str, app_id: str) -> ConversationState:
        state = self.store.get_conversation(conversation_id) if conversation_id else None
        if state is None or state.owner != owner or state.app_id != app_id:
            # Another caller's conversation looks exactly like a missing one.
            raise HTTPProblem(
                404,
                "ConversationNotFound",
                f"conversation_id: {conversation_id[:_ECHO_CHARS]!r} not found for this app",
            )
        return state

    def _once(
        self, ctx: RequestContext, payload: object, produce: Callable[[str | None], Response]
    ) -> Response:
        if ctx.idempotency_key is None:
            return produce(None)
        return self._guard.serve(
            key=ctx.idempotency_key,
            owner=ctx.owner,
            request_fingerprint=fingerprint(ctx.path, payload),
            produce=produce,
        )

    def create_conversation(self, ctx: RequestContext) -> Response:
        """``POST /v2/app/conversation``: a conversation of the caller and the body's app."""
        data = parse_json_object(ctx.body)
        request = validate_model(CreateConversationRequest, data)
        self._check_app(request.app_id)

        def produce(_: str | None) -> Response:
            conversation_id = new_id()
            self.store.create_conversation(
                ConversationState(
                    conversation_id=conversation_id,
                    owner=ctx.owner,
                    app_id=request.app_id,
                    created_at=self._clock(),
                )
            )
            return json_response({"conversation_id": conversation_id}, request_id=ctx.request_id)

        return self._once(ctx, data, produce)

    def apps(self, ctx: RequestContext) -> Response:
        """``GET /v2/apps``: the apps served (``get_app_list``)."""
        return json_response(app_list(self.served_app_ids, ctx.query), request_id=ctx.request_id)

    def app_action(self, ctx: RequestContext) -> Response:
        """``POST /v2/app?Action=DescribeApps|DescribeApp`` (``describe_apps``/``describe_app``)."""
        action = (parse_qs(ctx.query).get("Action") or [""])[0]
        handlers = {"DescribeApps": describe_apps, "DescribeApp": describe_app}
        if action not in handlers:
            raise bad_parameter("Action", f"{action[:40]!r} is not one of {sorted(handlers)}")
        body = parse_json_object(ctx.body) if ctx.body.strip() else {}
        # A server of any app id describes whichever app it is asked about (it runs them all).
        served = self.served_app_ids
        asked = body.get("id")
        if self._any_app_id and isinstance(asked, str) and asked and asked not in served:
            served = [*served, asked]
        payload = handlers[action](served, body)
        return json_response({"requestId": ctx.request_id, **payload}, request_id=ctx.request_id)

    def run(self, ctx: RequestContext) -> Response:
        """``POST .../runs``: run one step of the conversation (a query, or tool outputs)."""
        data = parse_json_object(ctx.body)
        request = validate_model(RunRequest, {**data, "tools": None})
        tools = validate_tools(data.get("tools"))
        self._check_app(request.app_id)
        if not request.conversation_id:
            raise bad_parameter("conversation_id", "must not be empty")
        # A forced tool carries its input, so it needs no query (the seed's ToolChoice call);
        # "forced" means what the run engine will force, so the two cannot drift apart.
        forced = forced_tool_name(request.tool_choice) is not None
        if not request.query and not request.tool_outputs and not forced:
            raise bad_parameter(
                "query",
                "must not be empty when neither tool_outputs nor a forced tool_choice is sent",
            )
        return self._once(ctx, data, lambda key: self._run(ctx, request, tools, key))

    def _run(
        self,
        ctx: RequestContext,
        request: RunRequest,
        tools: tuple[dict[str, object], ...],
        replay_key: str | None,
    ) -> Response:
        conversation_id = request.conversation_id
        self._owned(conversation_id, owner=ctx.owner, app_id=request.app_id)
        lease_id = lease_owner_id()
        if not self.store.acquire_run(
            conversation_id, lease_id=lease_id, now=self._clock(), lease_seconds=self._lease_seconds
        ):
            raise HTTPProblem(
                409,
                "ConversationBusy",
                f"conversation_id: another run on {conversation_id!r} is still in progress",
                headers={"Retry-After": "1"},
            )
        date = utc_date(self._clock())
        commit = functools.partial(self._commit, ctx, request, tools, lease_id, replay_key, date)
        if request.stream and getattr(self.engine.agent, "streams_text", False):
            message_id = serial_id()
            try:
                live = live_messages(
                    lambda emit: commit(message_id=message_id, emit=emit)[1],
                    conversation_id=conversation_id,
                    message_id=message_id,
                    request_id=ctx.request_id,
                    date=date,
                )
            except BaseException:
                # The run's thread may never have started (none left), so no commit freed it.
                with contextlib.suppress(Exception):
                    self.store.release_run(conversation_id, lease_id=lease_id)
                raise
            return sse_response(live, request_id=ctx.request_id)
        return commit()[0]

    def _commit(
        self,
        ctx: RequestContext,
        request: RunRequest,
        tools: tuple[dict[str, object], ...],
        lease_id: str,
        replay_key: str | None,
        date: str,
        *,
        message_id: str | None = None,
        emit: Emit | None = None,
    ) -> tuple[Response, list[str]]:
        """Run the engine on the leased conversation; commit what it did with its answer.

        Returns the whole response and, for a live run, the messages that follow those handed to
        ``emit`` (each rendered once, so a replay repeats what was sent byte for byte).
        """
        conversation_id = request.conversation_id
        sent: list[str] = []  # a live run's messages so far, as handed to emit
        started, began = self._clock(), time.perf_counter()
        # What the inspector shows of a run in progress (this process's runs only).
        running: dict[str, Any] = {"started": started, "query": request.query or "", "answer": ""}
        self.running[conversation_id] = running
        if emit is not None:
            send = emit
            head = message_head(conversation_id, message_id or "", ctx.request_id, date)

            def emit(text: str) -> None:
                if text:
                    running["answer"] += text
                    message = live_message(text, head, first=not sent)
                    sent.append(message)
                    text = message
                send(text)

        try:
            state = self._owned(conversation_id, owner=ctx.owner, app_id=request.app_id)
            if tools:
                state = state.evolve(tools=tools)
            file_names = self._file_names(request.file_ids or [], state)
            if request.tool_outputs:
                outcome = self.engine.continue_turn(
                    state, outputs=request.tool_outputs, message_id=message_id, emit=emit
                )
            else:
                outcome = self.engine.start_turn(
                    state,
                    query=request.query,
                    tool_choice=request.tool_choice,
                    file_names=file_names,
                    end_user_id=request.end_user_id,
                    message_id=message_id,
                    emit=emit,
                )
            rest: list[str] = []
            if request.stream:
                rest = render_stream(
                    outcome,
                    request_id=ctx.request_id,
                    date=date,
                    max_delta_chars=self._max_delta_chars,
                    sent=running["answer"],
                )
                response = sse_response([*sent, *rest], request_id=ctx.request_id)
            else:
                body = render_body(outcome, request_id=ctx.request_id, date=date)
                response = text_response(body, request_id=ctx.request_id)
            replay = None if replay_key is None else (replay_key, stored_response(response))
            record = record_run(
                outcome,
                request_id=ctx.request_id,
                query=request.query or "",
                outputs=request.tool_outputs or (),
                stream=bool(request.stream),
                started=started,
                seconds=time.perf_counter() - began,
            )
            runs = (*outcome.state.runs, record)[-MAX_RUNS_KEPT:]
            committed = self.store.commit_run(
                outcome.state.evolve(runs=runs),
                lease_id=lease_id,
                message_id=outcome.run.message_id,
                replay=replay,
            )
        except BaseException:
            # Whatever failed (the agent, the store's commit), the conversation must not
            # stay busy until its lease expires; a commit that raised saved nothing.
            with contextlib.suppress(Exception):
                self.store.release_run(conversation_id, lease_id=lease_id)
            raise
        finally:
            if self.running.get(conversation_id) is running:
                del self.running[conversation_id]
        if not committed:
            raise HTTPProblem(
                409,
                "ConversationBusy",
                f"conversation_id: the run on {conversation_id!r} outlived its lease",
            )
        return response, rest

    def _file_names(self, file_ids: list[str], state: ConversationState) -> tuple[str, ...]:
        names: dict[str, str] = {}
        for index, file_id in enumerate(file_ids):
            # A repeated id names the same file, looked up once (not thousands of reads).
            if file_id in names:
                continue
            record = self.store.get_file(file_id)
            if record is None or record.conversation_id != state.conversation_id:
                raise bad_parameter(
                    f"file_ids[{index}]",
                    f"{file_id[:_ECHO_CHARS]!r} is not a file of this conversation",
                )
            names[file_id] = record.name
        return tuple(names.values())

    def upload(self, ctx: RequestContext) -> Response:
        """``POST .../file/upload``: store a file (or remember a ``file_url``)."""
        try:
            parts = parse_form(ctx.body, ctx.content_type)
        except MultipartError as exc:
            raise bad_parameter("body", str(exc)) from None
        fields = {part.name: part for part in reversed(parts)}  # the first of a name wins
        app_id, conversation_id, url = (
            fields[name].text() if name in fields else ""
            for name in ("app_id", "conversation_id", "file_url")
        )
        self._check_app(app_id)
        if not conversation_id:
            raise bad_parameter("conversation_id", "must not be empty")
        file_part = fields.get("file")
        url = url.strip()
        if file_part is not None:
            self.uploads.check_size(len(file_part.data))
            name = display_name(file_part.filename or "file")
        elif url:
            if len(url) > _MAX_URL_CHARS or not url.lower().startswith(("http://", "https://")):
                raise bad_parameter("file_url", "expected an http(s) URL")
            name = display_name(url.split("?", 1)[0].rstrip("/"))
        else:
            raise bad_parameter("file", "send a file part or a file_url")
        payload = [
            [part.name, part.filename, hashlib.sha256(part.data).hexdigest()] for part in parts
        ]

        def produce(_: str | None) -> Response:
            self._owned(conversation_id, owner=ctx.owner, app_id=app_id)
            _check_room(
                len(self.store.files(conversation_id)),
                most=MAX_FILES_PER_CONVERSATION,
                what="files",
            )
            file_id = new_id()
            stored_as = self.uploads.save(file_id, file_part.data) if file_part else ""
            record = FileRecord(
                file_id=file_id,
                conversation_id=conversation_id,
                owner=ctx.owner,
                name=name,
                size=len(file_part.data) if file_part else 0,
                stored_as=stored_as,
                url="" if file_part else url,
                created_at=self._clock(),
            )
            try:
                self.store.add_file(record)
            except BaseException:
                self.uploads.remove(stored_as)  # no record will ever name these bytes
                raise
            return json_response(
                {"id": file_id, "conversation_id": conversation_id}, request_id=ctx.request_id
            )

        return self._once(ctx, payload, produce)

    def feedback(self, ctx: RequestContext) -> Response:
        """``POST .../feedback``: record feedback on a message (a run) of the conversation."""
        data = parse_json_object(ctx.body)
        request = validate_model(FeedbackRequest, data)
        self._check_app(request.app_id)

        def produce(_: str | None) -> Response:
            self._owned(request.conversation_id, owner=ctx.owner, app_id=request.app_id)
            if not self.store.has_message(request.conversation_id, request.message_id):
                raise bad_parameter(
                    "message_id",
                    f"{request.message_id[:_ECHO_CHARS]!r} is not a message of this conversation",
                )
            held = len(self.store.feedback(request.conversation_id))
            _check_room(held, most=MAX_FEEDBACK_PER_CONVERSATION, what="feedback records")
            self.store.add_feedback(
                FeedbackRecord(
                    conversation_id=request.conversation_id,
                    message_id=request.message_id,
                    type=request.type,
                    flag=tuple(request.flag or ()),
                    reason=request.reason,
                    created_at=self._clock(),
                )
            )
            return json_response({}, request_id=ctx.request_id)

        return self._once(ctx, data, produce)
