"""The one exception tree of appclient, and the one place secrets are kept out of text.

Errors about the caller's bad input also derive from :class:`ValueError`. The tree is drawn
once, in :mod:`appclient.errors`. No exception carries a token: :func:`redact` scrubs known
secrets from any text that must be shown.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, quote_plus

from ._constants import (
    DID_YOU_MEAN_LIMIT,
    ENV_TOKEN,
    REDACT_INSIDE_WORDS_MIN_LENGTH,
    TOOLKIT_NAME_SEPARATOR,
)

if TYPE_CHECKING:
    from pydantic import ValidationError


class AppClientError(Exception):
    """Base class of every error appclient raises on purpose.

    Attributes:
        partial_result: When the error ends ``run_until_answer`` or ``iter_until_answer``:
            the loop's partial ``RoundTripResult`` (every tool call made so far, with its
            output), so outputs that may not have reached the agent can be sent again
            without running the tools twice. ``None`` for errors raised anywhere else.
    """

    partial_result: Any = None

    def __reduce__(self) -> tuple[Any, ...]:
        # Subclasses take keyword-only fields, which the default reduce (cls(*args)) cannot
        # pass: rebuild without __init__ so errors cross processes (multiprocessing) intact.
        return (type(self).__new__, (type(self), *self.args), self.__dict__)


class InvalidRequestError(AppClientError, ValueError):
    """The caller's arguments are invalid; nothing was sent."""


class ManifestError(InvalidRequestError):
    """A callable, decorator or tool definition cannot become a valid tool."""


def wrong_kind(
    where: str,
    expected: str,
    value: object,
    *,
    error: type[InvalidRequestError] = InvalidRequestError,
) -> InvalidRequestError:
    """The one wording of a refusal: ``<where> must be <expected>, got <type>``."""
    return error(f"{where} must be {expected}, got {type(value).__name__}")


def validation_problems(exc: ValidationError, whole: str) -> str:
    """Each problem of ``exc`` as ``loc: msg``, joined by ``; `` (``whole`` names an empty loc)."""
    return "; ".join(
        f"{'.'.join(str(part) for part in error['loc']) or whole}: {error['msg']}"
        for error in exc.errors()
    )


def suggest_names(name: str, available: Iterable[str]) -> list[str]:
    """Return up to ``DID_YOU_MEAN_LIMIT`` names close to ``name`` (case and separator first)."""
    names = list(available)
    folded = {candidate.lower(): candidate for candidate in names}
    exact = [
        folded[key]
        for key in (name.lower(), name.replace(".", TOOLKIT_NAME_SEPARATOR).lower())
        if key in folded
    ]
    close = difflib.get_close_matches(name, names, n=DID_YOU_MEAN_LIMIT, cutoff=0.6)
    return list(dict.fromkeys([*exact, *close]))[:DID_YOU_MEAN_LIMIT]


def did_you_mean(name: str, available: Iterable[str]) -> str:
    """The one wording of a hint: ``; did you mean 'x'?`` for the closest name, else ``""``."""
    close = suggest_names(name, available)
    return f"; did you mean {close[0]!r}?" if close else ""


class TransportError(AppClientError):
    """The HTTP exchange failed before a response arrived.

    Attributes:
        method: The HTTP method of the failed request.
        url: The URL of the failed request (never contains credentials).
    """

    def __init__(self, message: str, *, method: str = "", url: str = "") -> None:
        super().__init__(message)
        self.method = method
        self.url = url


class ConnectError(TransportError):
    """No connection could be made (refused, unreachable, DNS or TLS failure)."""


class RequestTimeoutError(TransportError):
    """The server did not connect or answer within the configured timeout."""


class DeadlineExceededError(RequestTimeoutError):
    """The call's total timeout (``Timeout.total``) passed; never retried."""


class ConnectTimeoutError(RequestTimeoutError, ConnectError):
    """No connection within the connect timeout: nothing was sent, so any request may retry."""


class APIStatusError(AppClientError):
    """The server answered with an HTTP error status.

    Attributes:
        status_code: The HTTP status.
        code: The protocol error code from the body (for example ``"InvalidParameter"``).
        message: The human-readable message from the body.
        request_id: The server's request id, for support tickets and logs.
        body: The decoded JSON body, or the raw text when it was not JSON.
        retry_after: Seconds the server asked the client to wait before trying again
            (from ``Retry-After`` or ``retry-after-ms``), or ``None`` when it did not say.
    """

    def __init__(
        self,
        *,
        status_code: int,
        code: str = "",
        message: str = "",
        request_id: str = "",
        body: Any = None,
        retry_after: float | None = None,
    ) -> None:
        self.status_code = status_code
        self.code = code
        self.message = message
        self.request_id = request_id
        self.body = body
        self.retry_after = retry_after
        super().__init__(self._describe())

    def _describe(self) -> str:
        text = ": ".join(filter(None, [f"HTTP {self.status_code}", self.code, self.message]))
        return with_request_id(text, self.request_id)


def with_request_id(text: str, request_id: str) -> str:
    """``text (request_id=...)``, the one way errors name a known request id."""
    return f"{text} (request_id={request_id})" if request_id else text


class BadRequestError(APIStatusError):
    """HTTP 400: the server rejected the request's content."""


class AuthenticationError(APIStatusError):
    """HTTP 401: the token is missing or wrong; the message says where to set it."""

    def _describe(self) -> str:
        return (
            f"{super()._describe()}; check the token: pass token=... or set ${ENV_TOKEN} "
            "to a token this gateway accepts"
        )


class PermissionDeniedError(APIStatusError):
    """HTTP 403: the token may not use this app or resource."""


class NotFoundError(APIStatusError):
    """HTTP 404: unknown path, app or conversation (or one owned by another token)."""


class ConflictError(APIStatusError):
    """HTTP 409: another run on the same conversation is still in progress."""


class PayloadTooLargeError(APIStatusError):
    """HTTP 413: the request body or uploaded file is over the server's limit."""


class UnprocessableEntityError(APIStatusError):
    """HTTP 422: the request is well-formed but cannot be processed."""


class RateLimitError(APIStatusError):
    """HTTP 429: too many requests; retried automatically up to ``max_retries``."""


class ServerError(APIStatusError):
    """HTTP 5xx: the server failed; retried automatically up to ``max_retries``."""


_STATUS_CLASSES: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def status_error_class(status_code: int) -> type[APIStatusError]:
    """The most specific :class:`APIStatusError` subclass for an HTTP error status."""
    if status_code >= 500:
        return ServerError
    return _STATUS_CLASSES.get(status_code, APIStatusError)


class ResponseDecodeError(AppClientError):
    """A successful response whose body is not the protocol's JSON."""


class ResponseTooLargeError(ResponseDecodeError):
    """A response brought more bytes or events than the client's :class:`~appclient.Limits`.

    Not retried: the same request would bring the same answer. The message names the limit
    and how to raise it.
    """


class RunError(AppClientError):
    """The run failed inside an HTTP 200 response.

    Raised for a top-level ``code``/``message`` body (which the official client silently
    turns into an empty answer) and for an event with ``event_status == "error"``.

    Attributes:
        code: The error code (a string; event codes are converted with ``str``).
        message: The error message.
        request_id: The server's request id, when known.
        conversation_id: The conversation the run belonged to, when known.
    """

    def __init__(
        self, message: str, *, code: str = "", request_id: str = "", conversation_id: str = ""
    ) -> None:
        self.code = code
        self.message = message
        self.request_id = request_id
        self.conversation_id = conversation_id
        text = f"run failed: {code}: {message}" if code else f"run failed: {message}"
        super().__init__(with_request_id(text, request_id))


class StreamInterruptedError(RunError):
    """The event stream closed (or broke) before a ``success``, ``interrupt`` or ``error``."""


class ToolError(AppClientError):
    """Dispatching a local tool call failed (raised only when asked to raise).

    Attributes:
        tool_name: The name of the tool the agent called.
        tool_call_id: The id of the tool call, when known.
    """

    def __init__(self, message: str, *, tool_name: str = "", tool_call_id: str = "") -> None:
        super().__init__(message)
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id


class ToolNotFoundError(ToolError):
    """The agent called a tool that is not registered."""


class ToolArgumentsError(ToolError, ValueError):
    """The arguments of a tool call do not fit the tool's parameters.

    Attributes:
        problems: ``(field, problem)`` pairs, one per invalid argument.
    """

    def __init__(
        self,
        message: str,
        *,
        tool_name: str = "",
        tool_call_id: str = "",
        problems: Iterable[tuple[str, str]] = (),
    ) -> None:
        super().__init__(message, tool_name=tool_name, tool_call_id=tool_call_id)
        self.problems = tuple(problems)


class ToolExecutionError(ToolError):
    """The tool function raised; the original exception is the ``__cause__``."""


class ToolTimeoutError(ToolError):
    """The tool function did not finish within its timeout."""


class ToolApprovalDeniedError(ToolError):
    """The approval callback refused to let the tool run."""


class MaxRoundsExceededError(AppClientError):
    """The automatic loop reached ``max_rounds`` without a final answer.

    Attributes:
        max_rounds: The limit that was reached.
        result: The partial result so far (tool calls made, rounds run).
    """

    def __init__(self, message: str, *, max_rounds: int, result: Any = None) -> None:
        super().__init__(message)
        self.max_rounds = max_rounds
        self.result = result
        self.partial_result = result


_REDACTED = "***"


class Secret:
    """A string that never shows itself in ``repr``, ``str`` or ``vars()`` dumps."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """Return the secret value, for the one place that must send it."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, ...]:
        # A pickle would hold the value in clear text: refuse rather than write it anywhere.
        raise TypeError("a Secret cannot be pickled (it would write the value in clear text)")


@functools.lru_cache(maxsize=256)
def _standalone(secret: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![0-9A-Za-z]){re.escape(secret)}(?![0-9A-Za-z])")


def redact(text: str, secrets: Iterable[str]) -> str:
    """Replace each (non-empty) secret in ``text`` with ``***``, longest first.

    A short secret is replaced only where it stands alone, not inside every word holding it.
    """
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        if len(secret) >= REDACT_INSIDE_WORDS_MIN_LENGTH:
            text = text.replace(secret, _REDACTED)
        elif secret in text:
            text = _standalone(secret).sub(_REDACTED, text)
    return text


def escaped_forms(secret: str) -> list[str]:
    """The forms a secret takes inside other text: as is, JSON-escaped, in a repr, in a URL."""
    json_ascii = json.dumps(secret)[1:-1]
    forms = [
        secret,
        json.dumps(secret, ensure_ascii=False)[1:-1],
        json_ascii,
        json_ascii.replace("/", "\\/"),
        json_ascii.replace("/", "\\u002f"),
        repr(secret)[1:-1],
        quote(secret, safe=""),
        quote_plus(secret),
    ]
    return list(dict.fromkeys(forms))


def redact_value(value: Any, secrets: Iterable[str]) -> Any:
    """Return decoded JSON (``str``, lists, dicts) with ``secrets`` redacted from every text."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, list):
        return [redact_value(item, secrets) for item in value]
    if isinstance(value, dict):
        return {redact(str(k), secrets): redact_value(item, secrets) for k, item in value.items()}
    return value


def redact_mapping(values: Mapping[str, Any], secret_keys: Iterable[str]) -> dict[str, Any]:
    """A copy of ``values`` with the values of ``secret_keys`` (any case) replaced by ``***``."""
    hidden = {key.lower() for key in secret_keys}
    return {k: (_REDACTED if k.lower() in hidden else v) for k, v in values.items()}
