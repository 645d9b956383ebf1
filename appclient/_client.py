"""AppClient: the AppBuilder conversation protocol over ``requests``, with retries and timeouts.

Every request goes through :meth:`AppClient._send`, the one place that sets headers, applies
timeouts, retries what is safe to retry, and turns HTTP failures into the exception tree:

- ``Authorization: Bearer <token>`` (a token already starting with ``Bearer`` is sent as is);
- ``User-Agent: appclient/<version>``;
- ``Idempotency-Key``: one uuid per logical request (one method call), identical on every
  retry, so a server can answer a repeated attempt with its first answer;
- ``X-Appbuilder-Request-Id``: a fresh uuid per *attempt*, so server logs can tell the
  attempts of one logical request apart (the idempotency key ties them together).

Bodies are built and checked by :mod:`appclient._http_bodies` before anything is sent; streams
are read by :class:`~appclient.RunStream`. Streams are retried only up to their response
headers, never after the first byte of the body has been handed to the caller.
"""

from __future__ import annotations

import logging
import math
import os
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, overload
from urllib.parse import urlsplit

import requests
import tenacity

from ._constants import (
    DEFAULT_BASE_URL,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_RETRIES,
    DEFAULT_READ_TIMEOUT,
    ENV_BASE_URL,
    ENV_TOKEN,
    HEADER_IDEMPOTENCY_KEY,
    HEADER_REQUEST_ID,
    PATH_CONVERSATION,
    PATH_FEEDBACK,
    PATH_FILE_UPLOAD,
    PATH_RUNS,
    STREAM_CHUNK_BYTES,
)
from ._errors import (
    APIStatusError,
    InvalidRequestError,
    ResponseDecodeError,
    TransportError,
    redact,
)
from ._http import (
    USER_AGENT,
    Secret,
    authorization_value,
    iter_body_chunks,
    status_error,
    transport_error,
)
from ._http_bodies import (
    ToolChoiceLike,
    ToolOutputLike,
    ToolsLike,
    decode_json,
    encode_json,
    feedback_body,
    parse_run_answer,
    raise_for_error_event,
    require_text,
    run_body,
    top_level_error,
)
from ._loop import RoundTripMixin
from ._models import FeedbackType, Message
from ._retry import RetryPolicy
from ._stream import RunStream

__all__ = ["AppClient"]

_logger = logging.getLogger(__name__)

_JSON_CONTENT_TYPE = "application/json"


def _timeouts(timeout: float | tuple[float, float] | None) -> tuple[float, float]:
    if timeout is None:
        return (DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT)
    pair = timeout if isinstance(timeout, tuple) else (timeout, timeout)
    if len(pair) != 2 or not all(
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
        for value in pair
    ):
        raise InvalidRequestError(
            f"timeout must be a positive number or a (connect, read) pair, got {timeout!r}"
        )
    return (float(pair[0]), float(pair[1]))


def _base_url(base_url: str | None) -> str:
    value = base_url if base_url is not None else os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL
    if not isinstance(value, str):
        raise InvalidRequestError(f"base_url must be a string, got {type(value).__name__}")
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidRequestError(f"base_url must be an http(s) URL, got {value!r}")
    if parts.username or parts.password:
        raise InvalidRequestError("base_url must not carry credentials; pass token= instead")
    return value.strip().rstrip("/")


class AppClient(RoundTripMixin):
    """A client for one AppBuilder app: conversations, runs (plain or streamed), files, feedback.

    Args:
        app_id: The id of the published app.
        token: The secret key; ``$APPBUILDER_TOKEN`` when omitted.
        base_url: The gateway, e.g. ``http://127.0.0.1:8000``; ``$GATEWAY_URL_V2`` when omitted,
            else the hosted service.
        timeout: Seconds for both connecting and each read, or a ``(connect, read)`` pair.
            A stream's read timeout bounds the wait between two pieces of data.
        max_retries: Retries after the first attempt for connection errors, timeouts
            (non-stream), 408, 429 and 5xx. ``0`` disables retrying.
        session: A ``requests.Session`` to send with (its pools, proxies, certificates);
            the client closes only sessions it created itself.
        sleep: Called with each retry wait in seconds; ``time.sleep`` when omitted.

    Raises:
        InvalidRequestError: The app id, token, base URL, timeout or max_retries is invalid.

    Example:
        >>> client = AppClient("my-app", token="secret", base_url="http://127.0.0.1:8000")
        >>> client
        AppClient(app_id='my-app', base_url='http://127.0.0.1:8000')
    """

    app_id: str

    def __init__(
        self,
        app_id: str,
        *,
        token: str | None = None,
        base_url: str | None = None,
        timeout: float | tuple[float, float] | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.app_id = require_text(app_id, name="app_id")
        token = token if token is not None else os.environ.get(ENV_TOKEN)
        if not token:
            raise InvalidRequestError(f"no token: pass token=... or set ${ENV_TOKEN}")
        self._authorization = Secret(authorization_value(token))
        self._token = Secret(token.strip())
        self.base_url = _base_url(base_url)
        self._timeout = _timeouts(timeout)
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise InvalidRequestError(f"max_retries must be an int >= 0, got {max_retries!r}")
        self._retry_policy = RetryPolicy(max_retries=max_retries)
        self._retrying = self._retry_policy.retrying(
            sleep=sleep if sleep is not None else time.sleep, before_sleep=self._log_retry
        )
        self._session = session if session is not None else requests.Session()
        self._owns_session = session is None

    @property
    def base_url(self) -> str:
        """The gateway's base URL (no trailing slash); may be reassigned, and is checked."""
        return self._base_url

    @base_url.setter
    def base_url(self, value: str) -> None:
        self._base_url = _base_url(value)
        self._urls = {
            path: self._base_url + path
            for path in (PATH_CONVERSATION, PATH_RUNS, PATH_FILE_UPLOAD, PATH_FEEDBACK)
        }

    @property
    def max_retries(self) -> int:
        """Retries after the first attempt."""
        return self._retry_policy.max_retries

    @property
    def timeout(self) -> tuple[float, float]:
        """The ``(connect, read)`` timeouts in seconds."""
        return self._timeout

    # --- the protocol ------------------------------------------------------------------------

    def create_conversation(self) -> str:
        """Start a conversation with the app.

        Returns:
            The new conversation id.

        Raises:
            APIStatusError: The server refused (subclass per status).
            TransportError: No answer (connection failure or timeout) after all retries.
            ResponseDecodeError: The answer holds no conversation id.
        """
        response = self._send(PATH_CONVERSATION, json_body=encode_json({"app_id": self.app_id}))
        body = self._read_json(response, what="the create-conversation answer")
        return self._text_field(body, "conversation_id", response, what="create-conversation")

    @overload
    def run(
        self,
        conversation_id: str,
        query: str = "",
        *,
        file_ids: Iterable[str] | None = None,
        stream: Literal[False] = False,
        tools: ToolsLike = None,
        tool_outputs: Iterable[ToolOutputLike] | None = None,
        tool_choice: ToolChoiceLike | None = None,
        end_user_id: str | None = None,
        action: Mapping[str, Any] | None = None,
        parameters: Mapping[str, Any] | None = None,
        custom_metadata: Mapping[str, Any] | None = None,
    ) -> Message: ...

    @overload
    def run(
        self,
        conversation_id: str,
        query: str = "",
        *,
        file_ids: Iterable[str] | None = None,
        stream: Literal[True],
        tools: ToolsLike = None,
        tool_outputs: Iterable[ToolOutputLike] | None = None,
        tool_choice: ToolChoiceLike | None = None,
        end_user_id: str | None = None,
        action: Mapping[str, Any] | None = None,
        parameters: Mapping[str, Any] | None = None,
        custom_metadata: Mapping[str, Any] | None = None,
    ) -> RunStream: ...

    @overload
    def run(
        self,
        conversation_id: str,
        query: str = "",
        *,
        file_ids: Iterable[str] | None = None,
        stream: bool,
        tools: ToolsLike = None,
        tool_outputs: Iterable[ToolOutputLike] | None = None,
        tool_choice: ToolChoiceLike | None = None,
        end_user_id: str | None = None,
        action: Mapping[str, Any] | None = None,
        parameters: Mapping[str, Any] | None = None,
        custom_metadata: Mapping[str, Any] | None = None,
    ) -> Message | RunStream: ...

    def run(
        self,
        conversation_id: str,
        query: str = "",
        *,
        file_ids: Iterable[str] | None = None,
        stream: bool = False,
        tools: ToolsLike = None,
        tool_outputs: Iterable[ToolOutputLike] | None = None,
        tool_choice: ToolChoiceLike | None = None,
        end_user_id: str | None = None,
        action: Mapping[str, Any] | None = None,
        parameters: Mapping[str, Any] | None = None,
        custom_metadata: Mapping[str, Any] | None = None,
    ) -> Message | RunStream:
        """Send a query (with local tools) or the outputs of earlier tool calls.

        Args:
            conversation_id: From :meth:`create_conversation`.
            query: The user's message; may be empty when ``tool_outputs`` are sent.
            file_ids: Ids from :meth:`upload_file` the app may read.
            stream: Return a :class:`RunStream` of answer deltas instead of a :class:`Message`.
            tools: Local tools the agent may call: dicts, :class:`Tool` models, plain
                functions (described from their signature and docstring), or a registry.
            tool_outputs: Results of the last round's tool calls (dicts or
                :class:`ToolOutput`), all of them in one run.
            tool_choice: ``{"type": "auto"}`` or force one tool with
                ``{"type": "function", "function": {"name": ..., "input": {...}}}``.
            end_user_id: The end user on whose behalf the app runs.
            action: Passed through to the app.
            parameters: Passed through to the app.
            custom_metadata: Passed through to the app.

        Returns:
            A :class:`Message` whose ``content`` is the :class:`RunAnswer` (tool calls in
            ``content.events[-1].tool_calls``), or a :class:`RunStream` when ``stream=True``.

        Raises:
            InvalidRequestError: Empty conversation id, neither query nor tool outputs, or a
                badly shaped argument; nothing was sent.
            RunError: The server reported a failure inside an HTTP 200 answer.
            APIStatusError: The server refused (subclass per status).
            TransportError: No answer (connection failure or timeout) after all retries.
            ResponseDecodeError: The answer is not the protocol's JSON.
        """
        payload = encode_json(
            run_body(
                app_id=self.app_id,
                conversation_id=conversation_id,
                query=query,
                stream=stream,
                file_ids=file_ids,
                tools=tools,
                tool_outputs=tool_outputs,
                tool_choice=tool_choice,
                end_user_id=end_user_id,
                action=action,
                parameters=parameters,
                custom_metadata=custom_metadata,
            )
        )
        response = self._send(PATH_RUNS, json_body=payload, stream=stream)
        request_id = response.headers.get(HEADER_REQUEST_ID, "")
        if stream:
            return self._open_stream(response, conversation_id=conversation_id)
        answer = parse_run_answer(
            response.content, request_id=request_id, conversation_id=conversation_id
        )
        raise_for_error_event(answer, conversation_id=conversation_id)
        return Message(content=answer)

    def upload_file(
        self,
        conversation_id: str,
        *,
        file_path: str | os.PathLike[str] | None = None,
        file_url: str | None = None,
    ) -> str:
        """Upload a local file, or register a file by URL, for the conversation.

        Args:
            conversation_id: From :meth:`create_conversation`.
            file_path: A local file, sent as multipart ``file`` under its base name.
            file_url: A URL the service fetches itself. Pass exactly one of the two.

        Returns:
            The file id, for ``run(..., file_ids=[...])``.

        Raises:
            InvalidRequestError: Both or neither source given, or the file is not readable.
            APIStatusError: The server refused (413 for a file over its limit).
            TransportError: No answer after all retries.
            ResponseDecodeError: The answer holds no file id.
        """
        require_text(conversation_id, name="conversation_id")
        if (file_path is None) == (file_url is None):
            raise InvalidRequestError("pass exactly one of file_path or file_url")
        form = {"app_id": self.app_id, "conversation_id": conversation_id}
        if file_path is None:
            url = require_text(file_url, name="file_url")
            response = self._send(PATH_FILE_UPLOAD, form=form, files={"file_url": (None, url)})
        else:
            path = Path(os.fspath(file_path))
            if not path.is_file():
                raise InvalidRequestError(f"file_path {str(path)!r} is not a readable file")
            try:
                handle = path.open("rb")
            except OSError as exc:
                raise InvalidRequestError(f"file_path {str(path)!r} cannot be read: {exc}") from exc
            with handle:
                response = self._send(
                    PATH_FILE_UPLOAD, form=form, files={"file": (path.name, handle)}
                )
        body = self._read_json(response, what="the upload answer")
        return self._text_field(body, "id", response, what="upload")

    def feedback(
        self,
        *,
        conversation_id: str,
        message_id: str,
        type: FeedbackType,  # the protocol and the official client name it "type"
        flag: list[str] | None = None,
        reason: str | None = None,
    ) -> str:
        """Rate an answer of the app.

        Args:
            conversation_id: The conversation of the answer.
            message_id: The answer's ``message_id``.
            type: ``"upvote"``, ``"downvote"`` or ``"cancel"``.
            flag: Reasons picked from the app's list (downvotes).
            reason: Free-text reason.

        Returns:
            The request id of the server's acknowledgement.

        Raises:
            InvalidRequestError: An id is empty or ``type`` is not one of the three values.
            APIStatusError: The server refused.
            TransportError: No answer after all retries.
        """
        body = feedback_body(
            app_id=self.app_id,
            conversation_id=conversation_id,
            message_id=message_id,
            type=type,
            flag=flag,
            reason=reason,
        )
        response = self._send(PATH_FEEDBACK, json_body=encode_json(body))
        data = self._read_json(response, what="the feedback answer")
        request_id = data.get("request_id")
        if isinstance(request_id, str) and request_id:
            return request_id
        return response.headers.get(HEADER_REQUEST_ID, "")

    # --- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        """Release pooled connections (of a session the client created itself)."""
        if self._owns_session:
            self._session.close()

    def __enter__(self) -> AppClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"AppClient(app_id={self.app_id!r}, base_url={self.base_url!r})"

    # --- the one place that sends ------------------------------------------------------------

    def _send(
        self,
        path: str,
        *,
        json_body: bytes | None = None,
        form: dict[str, str] | None = None,
        files: dict[str, Any] | None = None,
        stream: bool = False,
    ) -> requests.Response:
        """Send one logical request, retrying what is safe; return the HTTP 200 response.

        The first attempt runs outside tenacity, so a request that succeeds pays nothing for
        the retry machinery (about a third of the client's own time per request otherwise).
        A retryable failure is handed to the tenacity loop as its first attempt, so waits,
        attempt numbers and logging are exactly those of a loop that made every attempt.
        """
        idempotency_key = str(uuid.uuid4())
        try:
            return self._attempt(path, json_body, form, files, idempotency_key, stream=stream)
        except (TransportError, APIStatusError) as error:
            if not self._retry_policy.max_retries or not self._retry_policy.is_retryable(
                error, stream=stream
            ):
                raise
            first_failure: list[BaseException] = [error]

        def attempt(*args: Any, stream: bool) -> requests.Response:
            if first_failure:
                raise first_failure.pop()
            return self._attempt(*args, stream=stream)

        response: requests.Response = self._retrying(
            attempt, path, json_body, form, files, idempotency_key, stream=stream
        )
        return response

    def _attempt(
        self,
        path: str,
        json_body: bytes | None,
        form: dict[str, str] | None,
        files: dict[str, Any] | None,
        idempotency_key: str,
        *,
        stream: bool,
    ) -> requests.Response:
        request_id = str(uuid.uuid4())
        headers = {
            "Authorization": self._authorization.reveal(),
            "User-Agent": USER_AGENT,
            HEADER_REQUEST_ID: request_id,
            HEADER_IDEMPOTENCY_KEY: idempotency_key,
        }
        if json_body is not None:
            headers["Content-Type"] = _JSON_CONTENT_TYPE
        if files:
            for part in files.values():  # a retry must send the file from its first byte
                if isinstance(part, tuple) and hasattr(part[1], "seek"):
                    part[1].seek(0)
        url = self._urls[path]
        debug = _logger.isEnabledFor(logging.DEBUG)
        if debug:
            _logger.debug(
                "POST %s request_id=%s idempotency_key=%s stream=%s",
                path,
                request_id,
                idempotency_key,
                stream,
            )
            started = time.perf_counter()
        try:
            response = self._session.post(
                url,
                data=json_body if json_body is not None else form,
                files=files,
                headers=headers,
                timeout=self._timeout,
                stream=stream,
                allow_redirects=False,
            )
        except requests.RequestException as exc:
            raise transport_error(
                exc, method="POST", url=url, timeout=self._timeout, secrets=self._secrets()
            ) from None
        if debug:
            elapsed = (time.perf_counter() - started) * 1000
            _logger.debug("POST %s -> HTTP %d in %.1f ms", path, response.status_code, elapsed)
        if response.status_code == 200:
            return response
        try:
            if 200 <= response.status_code < 300:
                raise APIStatusError(
                    status_code=response.status_code,
                    code="UnexpectedStatus",
                    message="the protocol answers success with HTTP 200 only",
                    request_id=response.headers.get(HEADER_REQUEST_ID, ""),
                )
            raise status_error(response, secrets=self._secrets())
        finally:
            response.close()

    def _log_retry(self, state: tenacity.RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        _logger.info(
            "retrying POST %s in %.2f s (attempt %d of %d failed: %s)",
            state.args[0] if state.args else "?",
            wait,
            state.attempt_number,
            self._retry_policy.max_retries + 1,
            error,
        )

    # --- reading answers ---------------------------------------------------------------------

    def _secrets(self) -> tuple[str, ...]:
        return (self._token.reveal(), self._authorization.reveal())

    def _open_stream(self, response: requests.Response, *, conversation_id: str) -> RunStream:
        request_id = response.headers.get(HEADER_REQUEST_ID, "")
        content_type = response.headers.get("Content-Type", "")
        if "json" in content_type and "event-stream" not in content_type:
            try:
                body = response.content
            except requests.RequestException as exc:
                response.close()
                raise transport_error(
                    exc,
                    method="POST",
                    url=response.url,
                    timeout=self._timeout,
                    secrets=self._secrets(),
                ) from None
            return RunStream.from_body(
                body, close=response.close, conversation_id=conversation_id, request_id=request_id
            )
        chunks = iter_body_chunks(
            response, chunk_size=STREAM_CHUNK_BYTES, read_timeout=self._timeout[1]
        )
        return RunStream(
            chunks, close=response.close, conversation_id=conversation_id, request_id=request_id
        )

    def _read_json(self, response: requests.Response, *, what: str) -> dict[str, Any]:
        request_id = response.headers.get(HEADER_REQUEST_ID, "")
        body = decode_json(response.content, what=what, request_id=request_id)
        if not isinstance(body, dict):
            raise ResponseDecodeError(
                f"{what} is not a JSON object (request_id={request_id or 'unknown'})"
            )
        failure = top_level_error(body)
        if failure is not None:
            code, message = failure
            raise ResponseDecodeError(
                redact(
                    f"{what} reports an error: {code}: {message} "
                    f"(request_id={body.get('request_id') or request_id or 'unknown'})",
                    self._secrets(),
                )
            )
        return body

    @staticmethod
    def _text_field(
        body: Mapping[str, Any], name: str, response: requests.Response, *, what: str
    ) -> str:
        value = body.get(name)
        if not isinstance(value, str) or not value:
            request_id = body.get("request_id") or response.headers.get(HEADER_REQUEST_ID, "")
            raise ResponseDecodeError(
                f"the {what} answer has no {name!r} (request_id={request_id or 'unknown'})"
            )
        return value
