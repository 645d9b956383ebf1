"""OpenTelemetry spans for runs, round trips and local tool calls (with ``opentelemetry-api``).

Spans (named as the README says, with the GenAI conventions' attributes) go to the tracer
provider the application configures; without one no span is made, and without the package
nothing is imported.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Final

from .._core._errors import redact
from .._version import __version__

if TYPE_CHECKING:
    from ._dispatch import ToolCallRecord


#: The GenAI conventions' switch for recording tool arguments and outputs on spans.
CAPTURE_CONTENT_ENV: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


@functools.cache
def _trace() -> Any:
    """Return ``opentelemetry.trace``, or None when it is not installed."""
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace


@functools.cache
def _appclient_tracer() -> Any:
    return _trace().get_tracer("appclient", __version__)


def _tracer() -> Any:
    trace = _trace()
    if trace is None:
        return None
    # No provider set yet (the API's proxy), or the API's no-op one: a span would only cost
    # (about a tenth of the async client's time per streamed run), so none is made.
    provider = trace.get_tracer_provider()
    if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        return None
    return _appclient_tracer()


def _capture_content() -> bool:
    return os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() in ("true", "1", "yes")


@contextlib.contextmanager
def run_span(*, app_id: str, conversation_id: str, stream: bool) -> Iterator[Any]:
    """Make the span of one run the current span for the block (``None`` without OTel)."""
    tracer = _tracer()
    if tracer is None:
        yield None
        return
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.id": app_id,
        "gen_ai.conversation.id": conversation_id,
        "appclient.stream": stream,
        "appclient.retries": 0,  # raised by each retry (the transport notes it)
    }
    kind = _trace().SpanKind.CLIENT
    with tracer.start_as_current_span(
        f"invoke_agent {app_id}", kind=kind, attributes=attributes
    ) as span:
        try:
            yield span
        except BaseException as exc:
            span.set_attribute("error.type", type(exc).__name__)
            raise


def note(**attributes: Any) -> None:
    """Set attributes on the current span, if tracing (``appclient.<name>``)."""
    trace = _trace()
    if trace is None:
        return
    span = trace.get_current_span()
    for name, value in attributes.items():
        span.set_attribute(f"appclient.{name}", value)


def start_span(name: str, **attributes: Any) -> Any:
    """Start a span that is not made current (ended with :func:`end_span`); None without OTel."""
    tracer = _tracer()
    return None if tracer is None else tracer.start_span(name, attributes=attributes)


def end_span(span: Any, *, error: BaseException | None = None, **attributes: Any) -> None:
    """End a span from :func:`start_span`, with attributes and the error that ended it."""
    if span is None:
        return
    for name, value in attributes.items():
        span.set_attribute(name, value)
    if error is not None:
        _mark_failed(span, type(error).__name__)
    span.end()


def _mark_failed(span: Any, kind: str) -> None:
    span.set_attribute("error.type", kind)
    span.set_status(_trace().Status(_trace().StatusCode.ERROR, kind))


@contextlib.contextmanager
def attached(span: Any) -> Iterator[None]:
    """Make ``span`` the current span for the block (runs started in it become its children)."""
    if span is None:
        yield
        return
    with _trace().use_span(span, end_on_exit=False):
        yield


def record_tool_call(parent: Any, record: ToolCallRecord, *, secrets: Iterable[str] = ()) -> None:
    """Record one finished tool call as a child span of ``parent``, timed by its duration."""
    trace = _trace()
    if trace is None or parent is None:
        return
    end = time.time_ns()
    span = _appclient_tracer().start_span(  # the parent's tracer: a provider was set
        f"execute_tool {record.name}",
        context=trace.set_span_in_context(parent),
        start_time=end - int(record.duration * 1e9),
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": record.name,
            "gen_ai.tool.call.id": record.id,
            "gen_ai.tool.type": "function",
        },
    )
    if _capture_content():
        secrets = tuple(secrets)
        text = json.dumps(record.arguments, ensure_ascii=False, default=str)
        span.set_attribute("gen_ai.tool.call.arguments", redact(text, secrets))
        span.set_attribute("gen_ai.tool.call.result", redact(record.output, secrets))
    if record.is_error:
        _mark_failed(span, type(record.error).__name__ if record.error else "ToolError")
    span.end(end_time=end)
