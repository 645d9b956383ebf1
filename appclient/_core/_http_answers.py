"""The response bodies appclient reads (pure: bytes in, wire models or typed errors out).

A run that fails inside an HTTP 200 (a top-level ``code``/``message`` or an ``error`` event)
is a :class:`~appclient.RunError`, not the empty answer the official Python client shows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from typing import Any, Final

from pydantic import ValidationError

from ._constants import HEADER_REQUEST_ID
from ._errors import (
    APIStatusError,
    ResponseDecodeError,
    RunError,
    escaped_forms,
    redact,
    redact_value,
    status_error_class,
    with_request_id,
)
from ._models import RunAnswer
from ._retry import header_value, parse_http_date, parse_retry_after

_BOM: Final = "\ufeff"
_BOM_BYTES: Final = _BOM.encode()


def _not_json(
    what: str, content: bytes | str, request_id: str, error: object, secrets: Iterable[str]
) -> str:
    if isinstance(content, bytes):
        content = content.decode("utf-8", errors="replace")
    # Before cutting, so no secret is cut in two; the raw text may hold a secret JSON-escaped.
    forms = [form for secret in secrets if secret for form in escaped_forms(secret)]
    content = redact(content, forms)
    snippet = content[:200] + ("..." if len(content) > 200 else "")
    return with_request_id(f"{what} is not the protocol's JSON ({error}): {snippet!r}", request_id)


def body_request_id(body: Mapping[str, Any]) -> str:
    """The request id a JSON body names: ``request_id``, or BCE gateways' ``requestId``."""
    for key in ("request_id", "requestId"):
        value = body.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def top_level_error(body: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(code, message)`` when a 200 body reports an error at the top level, else ``None``."""
    code = body.get("code")
    message = body.get("message")
    if code in (0, "0"):  # an explicit success code, whatever the message says
        return None
    if code in (None, "") and not (message and "code" in body):
        return None
    return _text(code), _text(message)


def _text(value: object) -> str:
    return "" if value is None else str(value)


def parse_run_answer(
    data: bytes | str,
    *,
    request_id: str = "",
    conversation_id: str = "",
    secrets: Iterable[str] = (),
) -> RunAnswer:
    """Decode one run answer (a non-stream body or one SSE message)."""
    # RFC 8259 lets a parser ignore a byte-order mark; requests' .json() (the official
    # client's reader) does, pydantic does not.
    data = data.removeprefix(_BOM_BYTES) if isinstance(data, bytes) else data.removeprefix(_BOM)
    try:
        answer = RunAnswer.model_validate_json(data)
    except ValidationError as exc:
        raise ResponseDecodeError(
            _not_json("the run answer", data, request_id, exc.errors()[0]["msg"], secrets)
        ) from None
    extra = answer.model_extra or {}
    failure = top_level_error(extra)
    if failure is not None:
        raise RunError(
            redact(failure[1], secrets) or "the server reported an error",
            code=redact(failure[0], secrets),
            request_id=answer.request_id or body_request_id(extra) or request_id,
            conversation_id=answer.conversation_id or conversation_id,
        )
    return answer


def raise_for_error_event(
    answer: RunAnswer, *, conversation_id: str = "", secrets: Iterable[str] = ()
) -> None:
    """Raise :class:`RunError` if ``answer`` holds an ``error`` event (``secrets`` scrubbed)."""
    event = answer.error_event
    if event is not None:
        raise RunError(
            redact(event.event_message, secrets) or "the run reported an error event",
            code=str(event.event_code),
            request_id=answer.request_id,
            conversation_id=answer.conversation_id or conversation_id,
        )


def error_body_fields(content: bytes) -> tuple[str, str, str, Any]:
    """``(code, message, request_id, body)`` of an error body; a non-object is the message."""
    try:
        body: Any = json.loads(content) if content else None
    except (ValueError, RecursionError):  # a body nested too deeply is read as text
        body = None
    if isinstance(body, dict):
        return _text(body.get("code")), _text(body.get("message")), body_request_id(body), body
    text = content.decode("utf-8", errors="replace")
    return "", text[:500].strip(), "", text if body is None else body


def read_json_object(
    content: bytes, *, what: str, request_id: str = "", secrets: Iterable[str] = ()
) -> dict[str, Any]:
    """Decode a successful non-run answer, which must be a JSON object without an error."""
    try:
        body = json.loads(content)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested past the C stack
        problem = "nested too deeply" if isinstance(exc, RecursionError) else exc
        raise ResponseDecodeError(_not_json(what, content, request_id, problem, secrets)) from None
    if not isinstance(body, dict):
        raise ResponseDecodeError(
            f"{what} is not a JSON object (request_id={request_id or 'unknown'})"
        )
    failure = top_level_error(body)
    if failure is not None:
        code, message = failure
        request_id = body_request_id(body) or request_id or "unknown"
        text = f"{what} reports an error: {code}: {message} (request_id={request_id})"
        raise ResponseDecodeError(redact(text, secrets))
    return body


def required_text(body: Mapping[str, Any], name: str, *, what: str, request_id: str = "") -> str:
    """The non-empty string field ``name`` of an answer, or a ResponseDecodeError naming it."""
    value = body.get(name)
    if not isinstance(value, str) or not value:
        request_id = body_request_id(body) or request_id or "unknown"
        raise ResponseDecodeError(f"{what} has no {name!r} (request_id={request_id})")
    return value


#: The most of a secret-bearing error body kept, once the secret is scrubbed out.
_REDACTED_BODY_LIMIT: Final = 2000


def status_error_for(
    status_code: int,
    *,
    reason: str,
    headers: Mapping[str, str],
    content: bytes,
    secrets: Iterable[str] = (),
) -> APIStatusError:
    """The :class:`APIStatusError` subclass for an HTTP error answer, ``secrets`` scrubbed.

    ``reason`` is the code when the body names none.
    """
    header_id = header_value(headers, HEADER_REQUEST_ID) or ""
    if 200 <= status_code < 300:
        message = "the protocol answers success with HTTP 200 only"
        return APIStatusError(
            status_code=status_code, code="UnexpectedStatus", message=message, request_id=header_id
        )
    secrets = [secret for secret in secrets if secret]
    if any(secret.encode() in content for secret in secrets):
        text = redact(content.decode("utf-8", errors="replace"), secrets)
        content = text[:_REDACTED_BODY_LIMIT].encode("utf-8")
    code, message, request_id, body = error_body_fields(content)
    if secrets:  # JSON may echo a token escaped (a slash as an escape): scrub the decoded text
        code, message = redact(code, secrets), redact(message, secrets)
        body = redact_value(body, secrets)
    date = header_value(headers, "Date")
    moment = parse_http_date(date) if date else None
    return status_error_class(status_code)(
        status_code=status_code,
        code=code or reason,
        message=message,
        request_id=request_id or header_id,
        body=body,
        retry_after=parse_retry_after(headers, now=time.time() if moment is None else moment),
    )
