"""The one place that sends: :class:`Transport` under :class:`~appclient.AppClient`.

Every request of the client goes through :meth:`Transport.send`, which sets the headers,
applies the timeouts, retries what is safe to retry, and turns HTTP failures into the
exception tree:

- ``Authorization: Bearer <token>`` (a token already starting with ``Bearer`` is sent as is);
- ``User-Agent: appclient/<version>``;
- ``Idempotency-Key``: one uuid per logical request (one client method call), identical on
  every retry, so a server can answer a repeated attempt with its first answer;
- ``X-Appbuilder-Request-Id``: a fresh uuid per *attempt*, so server logs can tell the
  attempts of one logical request apart (the idempotency key ties them together).

Only the response headers are covered by retries: once :meth:`Transport.send` has returned a
streamed response, nothing is sent again.
"""

from __future__ import annotations

import logging
import os
import re
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, Final
from urllib.parse import urlsplit

import requests
import tenacity

from .._core._constants import (
    DEFAULT_BASE_URL,
    ENV_BASE_URL,
    HEADER_IDEMPOTENCY_KEY,
    HEADER_REQUEST_ID,
    HTTP_POOL_MAXSIZE,
    STREAM_CHUNK_BYTES,
)
from .._core._errors import APIStatusError, InvalidRequestError, Secret, TransportError
from .._core._limits import Limits, Timeout
from .._core._retry import RetryPolicy
from .._tools._tracing import note
from ._http import (
    USER_AGENT,
    BearerAuth,
    abort_response,
    authorization_value,
    check_deadline,
    deadline_after,
    iter_body_chunks,
    read_body,
    status_error,
    time_left,
    transport_error,
)
from ._stream import RunStream, StreamState

__all__ = ["Transport", "TransportBase", "is_json_answer", "parse_base_url"]

_logger = logging.getLogger(__name__)

_JSON_CONTENT_TYPE: Final = "application/json"


#: A scheme followed by ":/" without the second slash (or a host with an empty port).
_SCHEME_TYPO: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:/")


def parse_base_url(base_url: str | None) -> str:
    """Return the base URL without trailing slash; ``$GATEWAY_URL_V2`` or the hosted default.

    A host without a scheme (``qianfan.baidubce.com``) means HTTPS, as in the official SDKs,
    so a ``$GATEWAY_URL_V2`` written for them works unchanged.

    Raises:
        InvalidRequestError: Not an http(s) URL with a host and a valid port, or it carries
            credentials.
    """
    name, value = "base_url", base_url
    if value is None:
        name, value = f"${ENV_BASE_URL}", os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL
    if not isinstance(value, str):
        raise InvalidRequestError(f"{name} must be a string, got {type(value).__name__}")
    value = value.strip()
    if value and "://" not in value:
        if _SCHEME_TYPO.match(value):  # "http:/host" would become host "http", no port
            raise InvalidRequestError(
                f"{name} {value!r} is malformed: write the scheme as 'http://' or 'https://'"
            )
        value = f"https://{value}"
    try:  # what requests and urllib3 would otherwise fail on at every call, with their errors
        parts = urlsplit(value)
        parts.port  # noqa: B018 - reading it checks the port
        (parts.hostname or "").encode("idna")  # empty or over-long labels
    except ValueError as exc:  # UnicodeError is a ValueError
        raise InvalidRequestError(f"{name} {value!r} is malformed: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidRequestError(f"{name} must be an http(s) URL, got {value!r}")
    if any(character.isspace() for character in parts.netloc):
        raise InvalidRequestError(f"{name} {value!r} is malformed: the host has blanks")
    if parts.username or parts.password:
        raise InvalidRequestError(f"{name} must not carry credentials; pass token= instead")
    return value.rstrip("/")


def is_json_answer(headers: Any) -> bool:
    """Whether a stream request was answered with JSON (one message) instead of events."""
    content_type = headers.get("Content-Type", "")
    return "json" in content_type and "event-stream" not in content_type


def _new_session() -> requests.Session:
    # requests keeps 10 connections per host; more threads sending at once (an
    # AsyncAppClient's executor has up to 32) would each discard theirs with a warning.
    session = requests.Session()
    for prefix in ("http://", "https://"):
        session.mount(prefix, requests.adapters.HTTPAdapter(pool_maxsize=HTTP_POOL_MAXSIZE))
    return session


class TransportBase:
    """What both transports share: the token, the base URL, the limits and the retry loop.

    Args:
        token: The secret key (kept in a :class:`~appclient._core._errors.Secret`).
        base_url: A checked base URL (see :func:`parse_base_url`).
        timeout: How long a call may take.
        limits: How much an answer may bring.
        max_retries: Retries after the first attempt.
        session: The HTTP library's session to send with, or ``None`` for the transport's
            own (made by :meth:`_new_session`, closed with the transport).
        sleep: Called with each retry wait (awaited by the asyncio transport).

    Raises:
        InvalidRequestError: ``max_retries`` is not an int of 0 or more.
    """

    #: Whether the retry loop awaits (tenacity's ``AsyncRetrying``).
    _asynchronous = False
    #: The streamed runs this transport returns.
    _stream_type: type[StreamState] = RunStream

    def __init__(
        self,
        *,
        token: str,
        base_url: str,
        timeout: Timeout,
        limits: Limits,
        max_retries: int,
        session: Any,
        sleep: Callable[[float], Any],
    ) -> None:
        self._authorization = Secret(authorization_value(token))
        # The key itself, also when given as "Bearer <key>": a server may echo it bare.
        self._token = Secret(token.strip().removeprefix("Bearer").strip())
        self.base_url = base_url
        self.timeout = timeout
        self.limits = limits
        try:  # the policy owns the rule; the caller gets the error of a bad argument
            self.retry_policy = RetryPolicy(max_retries=max_retries)
        except (TypeError, ValueError):
            raise InvalidRequestError(
                f"max_retries must be an int >= 0, got {max_retries!r}"
            ) from None
        self._retrying: Any = self.retry_policy.retrying(
            sleep=sleep, before_sleep=self._log_retry, asynchronous=self._asynchronous
        )
        self._session = session if session is not None else self._new_session()
        self._owns_session = session is None

    def _new_session(self) -> Any:
        """The session of a transport given none."""
        raise NotImplementedError

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}(base_url={self.base_url!r}, max_retries={self.retry_policy.max_retries})"

    def secrets(self) -> tuple[str, ...]:
        """The values to scrub from any text that leaves the client."""
        return (self._token.reveal(), self._authorization.reveal())

    def _headers(self, path: str, idempotency_key: str, *, json: bool, stream: bool) -> Any:
        """The headers of one attempt (a fresh request id each), logged at DEBUG."""
        request_id = str(uuid.uuid4())
        headers = {
            "User-Agent": USER_AGENT,
            # The codings the client inflates itself, within its limits (see _body).
            "Accept-Encoding": "gzip, deflate",
            HEADER_REQUEST_ID: request_id,
            HEADER_IDEMPOTENCY_KEY: idempotency_key,
        }
        if json:
            headers["Content-Type"] = _JSON_CONTENT_TYPE
        _logger.debug(
            "POST %s request_id=%s idempotency_key=%s stream=%s",
            path,
            request_id,
            idempotency_key,
            stream,
        )
        return headers

    def _log_retry(self, state: tenacity.RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        _logger.info(
            "retrying POST %s in %.2f s (attempt %d of %d failed: %s)",
            state.args[0] if state.args else "?",
            wait,
            state.attempt_number,
            self.retry_policy.max_retries + 1,
            error,
        )
        note(retries=state.attempt_number)  # on the run's span, when tracing

    def _run_stream(
        self,
        chunks: Any,
        *,
        close: Callable[[], None],
        reopen: Callable[[], Any],
        conversation_id: str,
        request_id: str,
    ) -> Any:
        """The streamed run over ``chunks``, resent by ``reopen`` within the retry budget."""
        return self._stream_type(
            chunks,
            close=close,
            conversation_id=conversation_id,
            request_id=request_id,
            secrets=self.secrets(),
            limits=self.limits,
            reopen=reopen,
            max_reopens=self.retry_policy.max_retries,
        )

    def _one_message(self, body: bytes, conversation_id: str, request_id: str) -> Any:
        """A JSON answer to a stream request, as a stream of that one message."""
        return self._stream_type.from_body(
            body, conversation_id=conversation_id, request_id=request_id, secrets=self.secrets()
        )

    def _first_failure_retryable(self, error: BaseException, *, stream: bool) -> bool:
        policy = self.retry_policy
        return bool(policy.max_retries) and policy.is_retryable(error, stream=stream)


class Transport(TransportBase):
    """Sends the client's requests: headers, timeouts, retries, and HTTP errors as exceptions.

    Takes the arguments of :class:`TransportBase`; ``session`` is a ``requests.Session``
    (when ``None``, one keeping up to ``HTTP_POOL_MAXSIZE`` connections per host).
    """

    _session: requests.Session

    def _new_session(self) -> requests.Session:
        return _new_session()

    def close(self) -> None:
        """Close the session if this transport created it."""
        if self._owns_session:
            self._session.close()

    # --- sending -----------------------------------------------------------------------------

    def send(
        self,
        path: str,
        *,
        json_body: bytes | None = None,
        form: dict[str, str] | None = None,
        files: dict[str, Any] | None = None,
    ) -> requests.Response:
        """Send one logical request and read its answer; return the HTTP 200 response.

        Raises:
            APIStatusError: The server answered an error status (after all retries).
            TransportError: Connection failure or timeout (after all retries).
            ResponseTooLargeError: The body is over ``limits.max_body_bytes``.
        """
        deadline = deadline_after(self.timeout.total)
        return self._send(path, json_body, form, files, deadline, stream=False)

    def send_stream(self, path: str, *, json_body: bytes, conversation_id: str) -> RunStream:
        """Send a streamed run; return its :class:`RunStream` (a JSON answer: one message).

        The stream reads within the same total timeout as the request, and within the
        stream limits. When the connection breaks before the run's final event, the stream
        sends the request again with the same ``Idempotency-Key`` (up to ``max_retries``
        times): a server that keeps answers by key replays the same stream, whose messages
        already read are checked and skipped, so the run is neither lost nor applied twice.

        Raises:
            APIStatusError: The server answered an error status (after all retries).
            TransportError: Connection failure or timeout (after all retries).
        """
        deadline = deadline_after(self.timeout.total)
        key = str(uuid.uuid4())
        response = self._send(path, json_body, None, None, deadline, stream=True, key=key)
        request_id = response.headers.get(HEADER_REQUEST_ID, "")
        if is_json_answer(response.headers):
            body = read_body(
                response,
                read_timeout=self.timeout.read,
                deadline=deadline,
                max_bytes=self.limits.max_body_bytes,
            )
            one: RunStream = self._one_message(body, conversation_id, request_id)
            return one
        current = [response]

        def chunks_of(answer: requests.Response) -> Iterator[bytes]:
            return iter_body_chunks(
                answer,
                chunk_size=STREAM_CHUNK_BYTES,
                read_timeout=self.timeout.read,
                deadline=deadline,
                max_bytes=self.limits.max_stream_bytes,
            )

        def reopen() -> Iterator[bytes]:
            abort_response(current[0])
            current[0] = self._send(path, json_body, None, None, deadline, stream=True, key=key)
            return chunks_of(current[0])

        stream: RunStream = self._run_stream(
            chunks_of(response),
            close=lambda: abort_response(current[0]),
            reopen=reopen,
            conversation_id=conversation_id,
            request_id=request_id,
        )
        return stream

    def _send(
        self,
        path: str,
        json_body: bytes | None,
        form: dict[str, str] | None,
        files: dict[str, Any] | None,
        deadline: float | None,
        *,
        stream: bool,
        key: str | None = None,
    ) -> requests.Response:
        """Send one logical request, retrying what is safe; return the HTTP 200 response.

        The first attempt runs outside tenacity, so a request that succeeds pays nothing for
        the retry machinery (which cost about a third of the client's own time per request).
        A retryable failure is handed to the tenacity loop as its first attempt, so waits,
        attempt numbers and logging are exactly those of a loop that made every attempt.

        Raises:
            APIStatusError: The server answered an error status (after all retries).
            TransportError: Connection failure or timeout (after all retries).
        """
        idempotency_key = key or str(uuid.uuid4())
        try:
            return self._attempt(
                path, json_body, form, files, idempotency_key, deadline, stream=stream
            )
        except (TransportError, APIStatusError) as error:
            if not self._first_failure_retryable(error, stream=stream):
                raise
            first_failure: list[BaseException] = [error]

        def attempt(*args: Any, stream: bool) -> requests.Response:
            if first_failure:
                raise first_failure.pop()
            return self._attempt(*args, stream=stream)

        response: requests.Response = self._retrying(
            attempt, path, json_body, form, files, idempotency_key, deadline, stream=stream
        )
        return response

    def _attempt(
        self,
        path: str,
        json_body: bytes | None,
        form: dict[str, str] | None,
        files: dict[str, Any] | None,
        idempotency_key: str,
        deadline: float | None,
        *,
        stream: bool,
    ) -> requests.Response:
        url = self.base_url + path
        check_deadline(deadline, method="POST", url=url)
        headers = self._headers(path, idempotency_key, json=json_body is not None, stream=stream)
        if files:
            for part in files.values():  # a retry must send the file from its first byte
                if isinstance(part, tuple) and hasattr(part[1], "seek"):
                    part[1].seek(0)
        debug = _logger.isEnabledFor(logging.DEBUG)
        if debug:
            started = time.perf_counter()
        try:
            response = self._session.post(
                url,
                data=json_body if json_body is not None else form,
                files=files,
                headers=headers,
                # Authorization; never replaced by ~/.netrc or session.auth
                auth=BearerAuth(self._authorization),
                timeout=self._wait(deadline),
                stream=True,  # every body is read here, within the limits and the deadline
                allow_redirects=False,  # requests would turn the POST into a GET
            )
        except requests.RequestException as exc:
            check_deadline(deadline, method="POST", url=url)
            raise transport_error(
                exc, method="POST", url=url, timeout=self._wait(None), secrets=self.secrets()
            ) from None
        if debug:
            elapsed = (time.perf_counter() - started) * 1000
            _logger.debug("POST %s -> HTTP %d in %.1f ms", path, response.status_code, elapsed)
        if response.status_code == 200:
            if stream:  # read by the RunStream, within the same deadline
                return response
            # As requests does for stream=False, so that .content is the body; read here, in
            # the attempt, so that a body that breaks or stalls is retried like before.
            response._content = read_body(
                response,
                read_timeout=self.timeout.read,
                deadline=deadline,
                max_bytes=self.limits.max_body_bytes,
            )
            return response
        try:
            raise status_error(response, secrets=self.secrets())
        finally:
            response.close()

    def _wait(self, deadline: float | None) -> tuple[float, float]:
        """The ``(connect, read)`` waits of requests, neither past ``deadline``."""
        connect, read = self.timeout.connect, self.timeout.read
        left = time_left(deadline)
        if left is None:
            return (connect, read)
        return (min(connect, left), min(read, left))
