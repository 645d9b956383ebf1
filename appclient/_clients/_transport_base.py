"""What both transports share: :class:`TransportBase`, the base URL, deadlines, failure wording.

Every request goes through a transport's ``send``: headers (a fresh ``X-Appbuilder-Request-Id``
per attempt, one ``Idempotency-Key`` per call: docs/protocol.md section 9), timeouts, retries up
to the response headers, and HTTP failures as the exception tree.
"""

from __future__ import annotations

import logging
import os
import re
import time
import uuid
from collections.abc import AsyncIterable, Callable, Iterable
from typing import Any, Final, Generic, TypeVar
from urllib.parse import urlsplit

import tenacity

from .._core._constants import (
    DEFAULT_BASE_URL,
    ENV_BASE_URL,
    HEADER_IDEMPOTENCY_KEY,
    HEADER_REQUEST_ID,
)
from .._core._errors import (
    ConnectError,
    ConnectTimeoutError,
    DeadlineExceededError,
    InvalidRequestError,
    RequestTimeoutError,
    Secret,
    TransportError,
    redact,
    wrong_kind,
)
from .._core._limits import Limits, Timeout
from .._core._retry import RetryPolicy
from .._tools._tracing import note
from .._version import __version__
from ._stream import StreamState

# Both transports log here, under the name a logging config may already name.
_logger = logging.getLogger("appclient._http_transport")

USER_AGENT: Final = f"appclient/{__version__}"
#: An error response's body is read up to this many bytes: enough for any error message.
ERROR_BODY_LIMIT: Final = 64 * 1024
#: A scheme followed by ":/" without the second slash (or a host with an empty port).
_SCHEME_TYPO: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:/")
_S = TypeVar("_S", bound=StreamState)


def parse_base_url(base_url: str | None) -> str:
    """The base URL without trailing slash; ``$GATEWAY_URL_V2`` or the hosted default.

    A host without a scheme means HTTPS, as in the official SDKs, so their ``$GATEWAY_URL_V2``
    works unchanged.
    """
    name, value = "base_url", base_url
    if value is None:
        name, value = f"${ENV_BASE_URL}", os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL
    if not isinstance(value, str):
        raise wrong_kind(name, "a string", value)
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


def authorization_value(token: str) -> str:
    """The ``Authorization`` value of a token (``Bearer`` added); errors never repeat it."""
    if not isinstance(token, str):
        raise wrong_kind("the token", "a string", token)
    if not token.strip():
        raise InvalidRequestError("the token is empty; pass token= or set APPBUILDER_TOKEN")
    token = token.strip()
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in token) or not token.isascii():
        raise InvalidRequestError(
            "the token holds line breaks, control or non-ASCII characters; check its value"
        )
    return token if token.startswith("Bearer") else f"Bearer {token}"


def is_json_answer(headers: Any) -> bool:
    """Whether a stream request was answered with JSON (one message) instead of events."""
    content_type = headers.get("Content-Type", "")
    return "json" in content_type and "event-stream" not in content_type


# --- deadlines and failures, in the words of both transports ---------------------------------


def now() -> float:
    """The monotonic clock deadlines are measured on (a seam for tests)."""
    return time.monotonic()


def deadline_after(seconds: float | None) -> float | None:
    """The :func:`now` instant ``seconds`` from now, or ``None`` for no deadline."""
    return None if seconds is None else now() + seconds


def time_left(deadline: float | None) -> float | None:
    """Seconds until ``deadline`` (at least 1 ms, so a wait is never zero), or None."""
    return None if deadline is None else max(deadline - now(), 0.001)


def check_deadline(deadline: float | None, *, url: str) -> None:
    """Raise :class:`DeadlineExceededError` when ``deadline`` has passed."""
    if deadline is not None and now() >= deadline:
        raise past_deadline(url)


def past_deadline(url: str) -> DeadlineExceededError:
    return DeadlineExceededError(
        f"POST {url}: the answer did not arrive in full within the total timeout (Timeout.total)",
        method="POST",
        url=url,
    )


def transport_failure(
    kind: str, *, reason: str, url: str, timeout: tuple[float, float], secrets: Iterable[str]
) -> TransportError:
    """The error of a failed exchange of ``kind``, with the ``(connect, read)`` waits."""
    where = f"POST {url}"
    cls: type[TransportError] = ConnectError
    if kind == "connect_timeout":  # a ConnectTimeoutError is both a connect error and a timeout
        text = f"{where}: no connection within {timeout[0]:g} s (connect timeout)"
        cls = ConnectTimeoutError
    elif kind == "read_timeout":
        text = f"{where}: no answer within {timeout[1]:g} s (read timeout)"
        cls = RequestTimeoutError
    elif kind == "tls":
        text = (
            f"{where}: TLS failed: {reason}; if the server speaks plain HTTP, write "
            f"http:// in base_url=... or ${ENV_BASE_URL} (a gateway without a scheme means "
            "https://)"
        )
    elif kind == "connect":
        text = (
            f"{where}: connection failed: {reason}; is the server running? "
            f"(check base_url=... or ${ENV_BASE_URL})"
        )
    else:
        text = f"{where}: the HTTP exchange failed: {reason}"
        cls = TransportError
    return cls(redact(text, secrets), method="POST", url=url)


def read_failure(
    reason: str, *, timed_out: bool, read_timeout: float, deadline: float | None, url: str
) -> TransportError:
    """The error of a body that stalled (``timed_out``) or broke while it was read."""
    if not timed_out:
        message = f"the connection broke while reading the answer: {reason}"
        return TransportError(message, method="POST", url=url)
    if deadline is not None and now() >= deadline:
        return past_deadline(url)
    message = f"no data for {read_timeout:g} s while reading the answer (read timeout)"
    return RequestTimeoutError(message, method="POST", url=url)


# --- what both transports share --------------------------------------------------------------


class TransportBase(Generic[_S]):
    """What both transports share: the token, the base URL, the limits and the retry loop."""

    #: Whether the retry loop awaits (tenacity's ``AsyncRetrying``).
    _asynchronous = False
    #: The streamed runs this transport returns.
    _stream_type: type[_S]

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
        #: The retry loop of plain requests [False] and of streamed runs [True].
        self._retrying: dict[bool, Any] = {
            stream: self.retry_policy.retrying(
                stream=stream,
                sleep=sleep,
                before_sleep=self._log_retry,
                asynchronous=self._asynchronous,
            )
            for stream in (False, True)
        }
        self._session = session if session is not None else self._new_session()
        self._owns_session = session is None

    def _new_session(self) -> Any:  # the session of a transport given none
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
            # The codings the client inflates itself, within its limits (see BodyReader).
            "Accept-Encoding": "gzip, deflate",
            HEADER_REQUEST_ID: request_id,
            HEADER_IDEMPOTENCY_KEY: idempotency_key,
        }
        if json:
            headers["Content-Type"] = "application/json"
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
            state.args[0][0] if state.args else "?",  # the request tuple's path
            wait,
            state.attempt_number,
            self.retry_policy.max_retries + 1,
            error,
        )
        note(retries=state.attempt_number)  # on the run's span, when tracing

    @staticmethod
    def _log_answer(path: str, status: int, started: float) -> None:
        elapsed = (time.perf_counter() - started) * 1000
        _logger.debug("POST %s -> HTTP %d in %.1f ms", path, status, elapsed)

    def _first_failure_retryable(self, error: BaseException, *, stream: bool) -> bool:
        policy = self.retry_policy
        return bool(policy.max_retries) and policy.is_retryable(error, stream=stream)

    def _run_stream(
        self,
        response: Any,
        conversation_id: str,
        chunks: bytes | Iterable[bytes] | AsyncIterable[bytes],
        *,
        close: Callable[[], None] | None = None,
        reopen: Callable[[], Any] | None = None,
    ) -> _S:
        """The transport's stream over ``chunks`` (bytes: a JSON answer, one message)."""
        ids = {
            "conversation_id": conversation_id,
            "request_id": response.headers.get(HEADER_REQUEST_ID, ""),
            "secrets": self.secrets(),
        }
        if isinstance(chunks, bytes):
            return self._stream_type.from_body(chunks, **ids)
        return self._stream_type(
            chunks,
            limits=self.limits,
            max_reopens=self.retry_policy.max_retries,
            close=close,
            reopen=reopen,
            **ids,
        )
