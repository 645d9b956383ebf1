"""Dispatching tool calls: from what the agent asked to the outputs it gets back.

For each call of a round, in order: read its shape, find the tool, decode and validate the
arguments (bound parameters may not be given by the agent), ask for approval when the tool
needs it; then run the approved calls in parallel and serialise each result as text. A
failed call becomes that call's output, written for the agent, so one bad call never sinks
the round. Bound values are redacted from every text that leaves here.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import uuid
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._core._arguments import ArgumentsDecodeError, decode_arguments
from .._core._call_shapes import CallRequest, read_calls
from .._core._constants import TOOLKIT_NAME_SEPARATOR
from .._core._errors import (
    ToolApprovalDeniedError,
    ToolArgumentsError,
    ToolError,
    ToolExecutionError,
    ToolTimeoutError,
    redact,
)
from .._core._models import ToolOutput
from ._execution import Invocation, Outcome, ToolRunner, run_awaitable
from ._registered_tool import RegisteredTool
from ._tool_results import (
    ReportedFailure,
    ResultSerializationError,
    ToolFile,
    as_tool_file,
    describe_exception,
    failure_output,
    invalid_arguments,
    invalid_call,
    needs_approval,
    unknown_tool,
    unwrap_status,
)

_BOUND_PROBLEM = "is set by the program and cannot be given in a tool call"


@dataclass(frozen=True)
class ApprovalRequest:
    """What an approval callback is asked to approve.

    Attributes:
        tool_name: The tool the agent wants to run.
        arguments: The arguments the agent gave (bound values are not included).
        tool_call_id: The id of the call.
        description: The tool's description, to show the user what it does.
    """

    tool_name: str
    arguments: Mapping[str, Any]
    tool_call_id: str
    description: str = ""


#: ``approve(request) -> bool`` (or an awaitable of bool); only ``True`` approves. Raise
#: :class:`~appclient.errors.ToolApprovalDeniedError` to refuse with a reason the agent will read.
ApprovalCallback = Callable[[ApprovalRequest], bool | Awaitable[bool]]


@dataclass(frozen=True)
class ToolCallRecord:
    """One dispatched tool call: what was asked, what was answered, and how long it took.

    Attributes:
        id: The tool call id.
        name: The tool name the agent used.
        arguments: The arguments the agent gave, decoded (``{}`` when they were undecodable).
        output: The text sent back as the tool output (an ``Error: ...`` text on failure).
        is_error: Whether the call failed.
        error: The failure as a :class:`~appclient.ToolError`, when it failed.
        duration: Seconds the tool ran (0 when it never ran).
        file: The :class:`~appclient.ToolFile` the tool returned, if it did.
    """

    id: str
    name: str
    arguments: Mapping[str, Any]
    output: str
    is_error: bool = False
    error: ToolError | None = field(default=None, repr=False, compare=False)
    duration: float = 0.0
    file: ToolFile | None = field(default=None, repr=False, compare=False)

    def to_output(self) -> ToolOutput:
        """Return the :class:`~appclient.ToolOutput` to send for this call."""
        return ToolOutput(tool_call_id=self.id, output=self.output)


@dataclass
class _Ready:
    request: CallRequest
    tool: RegisteredTool
    arguments: dict[str, Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


class _SerializationFailedError(Exception):
    """A serialisation failure, not to be mistaken for the tool's own exception."""


class Dispatcher:
    """The dispatching half of :class:`~appclient.ToolRegistry`: running the agent's calls."""

    # What dispatching asks of the registry it is mixed into.
    approve: ApprovalCallback | None
    runner: ToolRunner
    serialize: Callable[[Any], str]
    get: Callable[[str], RegisteredTool | None]
    names: Callable[..., list[str]]

    def dispatch(
        self,
        tool_calls: Any,
        *,
        raise_errors: bool = False,
        approve: ApprovalCallback | None = None,
    ) -> list[ToolOutput]:
        """Run the agent's tool calls and return their outputs, in call order.

        Args:
            tool_calls: ``ToolCall`` objects, dicts (AppBuilder, OpenAI or AgentScope shape),
                a list of them, their JSON text, or a run's message.
            raise_errors: Raise the first failure instead of sending it to the agent.
            approve: Approval callback for this dispatch (default: the registry's).

        Returns:
            One :class:`~appclient.ToolOutput` per call, for ``run(tool_outputs=...)``; a
            failed call's output is ``"Error: ..."``, naming the problem.

        Raises:
            InvalidRequestError: ``tool_calls`` cannot be read as tool calls.
            ToolError: With ``raise_errors=True``, the first failing call (its subclass names
                the failure: ``ToolNotFoundError``, ``ToolArgumentsError``,
                ``ToolExecutionError``, ``ToolTimeoutError``, ``ToolApprovalDeniedError``).
        """
        records = self.iter_dispatch(tool_calls, raise_errors=raise_errors, approve=approve)
        return [record.to_output() for record in records]

    def dispatch_records(
        self,
        tool_calls: Any,
        *,
        raise_errors: bool = False,
        approve: ApprovalCallback | None = None,
    ) -> list[ToolCallRecord]:
        """Like :meth:`dispatch`, returning full records (arguments, errors, durations)."""
        return list(self.iter_dispatch(tool_calls, raise_errors=raise_errors, approve=approve))

    def iter_dispatch(
        self,
        tool_calls: Any,
        *,
        raise_errors: bool = False,
        approve: ApprovalCallback | None = None,
    ) -> Iterator[ToolCallRecord]:
        """Like :meth:`dispatch_records`, yielding each record as soon as it is ready.

        Every call is checked first (tool, arguments, approval), so with ``raise_errors`` an
        invalid call raises before any tool of the round has run; then the approved calls
        run in parallel, each record yielded once it and all earlier calls are done.
        """
        approve = approve if approve is not None else self.approve
        slots: list[_Ready | ToolCallRecord] = []
        seen_ids: set[str] = set()
        for request in read_calls(tool_calls):
            try:
                # An output answers an id, so a repeated id cannot get an output of its own;
                # running it again would apply the same side effect twice.
                if request.id in seen_ids:
                    raise invalid_call(
                        f"the tool_call_id {request.id!r} repeats an earlier call of this "
                        "round, which is the one that runs",
                        tool_name=request.name,
                        tool_call_id=request.id,
                    )
                seen_ids.add(request.id)
                ready = self._prepare(request)
                if ready.tool.requires_approval:
                    _approve(ready, approve)
                slots.append(ready)
            except ToolError as error:
                if raise_errors:
                    raise
                # A refusal's traceback (this frame, which holds the records) would make a
                # reference cycle of every record of the round; where it was raised says nothing.
                refusal = error.with_traceback(None)
                slots.append(_failure(request, refusal, _shown_arguments(request)))
        runnable = [slot for slot in slots if isinstance(slot, _Ready)]
        outcomes = self.runner.iter_outcomes(
            [_invocation(ready, self.serialize, approve) for ready in runnable]
        )
        for slot in slots:
            record = slot if isinstance(slot, ToolCallRecord) else _finished(slot, next(outcomes))
            if raise_errors and record.error is not None:
                raise record.error
            yield record

    def dispatch_report(self, tool_calls: Any) -> str:
        """Run calls (any shape :meth:`dispatch` reads) and report each as AgentScope does.

        Returns:
            ``1. Execute function NAME`` with its ``[ARGUMENTS]``, ``[STATUS]`` (``SUCCESS`` or
            ``ERROR``) and ``[RESULT]``, for each call.
        """
        blocks = []
        for index, record in enumerate(self.dispatch_records(tool_calls), start=1):
            arguments = "".join(f"\n        {k}: {v}" for k, v in record.arguments.items())
            blocks.append(
                f"{index}. Execute function {record.name}\n    [ARGUMENTS]:{arguments}\n"
                f"    [STATUS]: {'ERROR' if record.is_error else 'SUCCESS'}\n"
                f"    [RESULT]: {record.output}"
            )
        return "\n".join(blocks)

    #: AgentScope's name for :meth:`dispatch_report` (``ServiceToolkit.parse_and_call_func``).
    parse_and_call_func = dispatch_report

    def __call__(
        self, name: str, arguments: str | Mapping[str, Any] | tuple[Any, ...] = "{}", /
    ) -> ToolCallRecord:
        """Run one tool by name, as Lagent's ``executor("Name", '{"a": 1}')`` does.

        Args:
            name: The tool's name (a toolkit method also as Lagent's ``Toolkit.method``).
            arguments: JSON text (or any text the decoder reads), a dict, or (Lagent's
                ``TupleParser``) a tuple or its text, ``'("x", 2)'``, for the parameters in
                order.

        Returns:
            The call's record: ``output``, ``is_error``, ``error``, ``duration``.
        """
        if self.get(name) is None and "." in name:  # Lagent's "Toolkit.method"
            name = name.replace(".", TOOLKIT_NAME_SEPARATOR, 1)
        if isinstance(arguments, str) and arguments.lstrip().startswith("("):
            with contextlib.suppress(ValueError, SyntaxError, MemoryError, RecursionError):
                parsed = ast.literal_eval(arguments)
                arguments = parsed if isinstance(parsed, tuple) else arguments
        entry = self.get(name)
        if isinstance(arguments, tuple) and entry is not None:  # by parameter order
            names = list(entry.spec.schema.get("properties", {}))
            # Extra values keep a name of their own, so the call is refused naming them.
            names += [f"argument {i + 1}" for i in range(len(names), len(arguments))]
            arguments = dict(zip(names, arguments, strict=False))  # fewer: defaults fill in
        function = {"name": name, "arguments": arguments}
        call = {"id": f"call-{uuid.uuid4().hex[:12]}", "function": function}
        (record,) = self.dispatch_records([call])
        return record

    def _prepare(self, request: CallRequest) -> _Ready:
        if request.problem is not None:
            raise invalid_call(request.problem, tool_name=request.name, tool_call_id=request.id)
        tool = self.get(request.name)
        if tool is None or not tool.enabled:  # a tool switched off is not there for the agent
            available = self.names(enabled_only=True)
            raise unknown_tool(request.name, available, tool_call_id=request.id)
        if request.arguments_error is not None:
            problem = [("<arguments>", request.arguments_error)]
            raise invalid_arguments(tool.name, problem, tool_call_id=request.id)
        try:
            arguments = decode_arguments(request.arguments)
        except ArgumentsDecodeError as exc:
            problem = [("<arguments>", str(exc))]
            raise invalid_arguments(tool.name, problem, tool_call_id=request.id) from None
        problems = [(key, _BOUND_PROBLEM) for key in arguments if key in tool.bound]
        given = {k: v for k, v in arguments.items() if k not in tool.bound}
        try:
            args, kwargs = tool.spec.validate_arguments(given)
        except ToolArgumentsError as exc:
            problems.extend(exc.problems or [("<arguments>", str(exc))])
        except Exception as exc:  # a parameter type's own validator may raise anything
            problems.append(("<arguments>", f"validation failed: {describe_exception(exc)}"))
        if tool.check is not None:
            problems.extend(tool.check(given))
        if problems:
            redacted = [(name, redact(text, tool.secrets)) for name, text in problems]
            raise invalid_arguments(tool.name, redacted, tool_call_id=request.id)
        return _Ready(request, tool, arguments, args, kwargs)


def _failure(
    request: CallRequest, error: ToolError, arguments: Mapping[str, Any], duration: float = 0.0
) -> ToolCallRecord:
    output = failure_output(error)
    return ToolCallRecord(request.id, request.name, arguments, output, True, error, duration)


def _shown_arguments(request: CallRequest) -> dict[str, Any]:
    try:
        return decode_arguments(request.arguments)
    except ArgumentsDecodeError:
        return {}


def _approve(ready: _Ready, approve: ApprovalCallback | None) -> None:
    """Ask the approval callback; raise the refusal unless it answers exactly ``True``."""
    tool, request = ready.tool, ready.request
    reason = "no approval callback is configured"
    if approve is not None:
        question = ApprovalRequest(tool.name, dict(ready.arguments), request.id, tool.description)
        try:
            answer = approve(question)
            if inspect.isawaitable(answer):
                answer = run_awaitable(answer)
        except ToolApprovalDeniedError as exc:
            reason = redact(str(exc), tool.secrets)
        except Exception as exc:  # a broken callback must not run the tool, nor sink the round
            reason = f"the approval check failed: {redact(describe_exception(exc), tool.secrets)}"
        else:
            # Only a real yes approves: a truthy answer such as the text "n" (from input())
            # must not run a tool that needs approval.
            if answer is True:
                return
            shown = _short_repr(answer, tool.secrets)
            odd = answer is not False and answer is not None
            reason = f"the approval callback answered {shown}, not True or False" if odd else ""
    raise ToolApprovalDeniedError(
        f"the user declined to run tool {tool.name!r}"
        + (f" ({reason})" if reason else "")
        + "; do not call it again unless the user asks for it",
        tool_name=tool.name,
        tool_call_id=request.id,
    )


def _short_repr(value: Any, secrets: tuple[str, ...]) -> str:
    try:
        text = repr(value)
    except Exception:  # an unreadable answer is named by its type
        return f"a {type(value).__qualname__}"
    text = redact(text, secrets)  # before cutting, so no secret is cut in two
    return text if len(text) <= 40 else text[:40] + "..."


def _scrub(exc: BaseException, secrets: tuple[str, ...]) -> bool:
    """Redact secrets in place from what a traceback prints of ``exc``; False if some still leak."""
    if not secrets:
        return True
    pending: list[BaseException | None] = [exc]
    seen: set[int] = set()
    while pending:
        link = pending.pop()
        if link is None or id(link) in seen:
            continue
        seen.add(id(link))
        link.args = tuple(redact(a, secrets) if isinstance(a, str) else a for a in link.args)
        notes = getattr(link, "__notes__", None)
        if isinstance(notes, list):
            notes[:] = [redact(n, secrets) if isinstance(n, str) else n for n in notes]
        try:
            text = str(link)
        except Exception:  # a text that cannot be read cannot be checked: treat it as leaking
            return False
        if redact(text, secrets) != text:
            return False
        pending.extend((link.__cause__, link.__context__))
        members = getattr(link, "exceptions", None)  # an ExceptionGroup (a TaskGroup's)
        if isinstance(members, tuple):
            pending.extend(m for m in members if isinstance(m, BaseException))
    return True


def _finished(ready: _Ready, outcome: Outcome) -> ToolCallRecord:
    tool, request = ready.tool, ready.request
    if outcome.ok:
        value = outcome.value
        file = value if isinstance(value, ToolFile) else None
        output = file.describe() if file is not None else value
        return ToolCallRecord(
            request.id, request.name, ready.arguments, output, duration=outcome.duration, file=file
        )
    error: ToolError
    ids = {"tool_name": tool.name, "tool_call_id": request.id}
    if outcome.timed_out:
        error = ToolTimeoutError(
            f"tool {tool.name!r} did not finish within {tool.timeout or 0.0:g} seconds, so its "
            "result is unknown: it may still complete in the background; check before calling "
            "it again",
            **ids,
        )
    elif isinstance(outcome.error, ToolApprovalDeniedError):  # asked after needs_approval
        error = outcome.error
    elif isinstance(outcome.error, _SerializationFailedError):
        problem = redact(str(outcome.error), tool.secrets)
        error = ToolExecutionError(
            f"tool {tool.name!r} returned a result that cannot be sent: {problem}", **ids
        )
    else:
        assert outcome.error is not None  # noqa: S101 - an Outcome that is not ok has one
        cause = outcome.error
        # A failure the tool reported in its result reads as its own words.
        reported = isinstance(cause, ReportedFailure)
        description = redact(str(cause) if reported else describe_exception(cause), tool.secrets)
        error = ToolExecutionError(f"tool {tool.name!r} failed: {description}", **ids)
        if _scrub(cause, tool.secrets):
            error.__cause__ = cause
        else:  # a custom __str__ still shows a secret: do not chain it anywhere
            error.__suppress_context__ = True
    return _failure(request, error, ready.arguments, outcome.duration)


def _approved_rerun(ready: _Ready, approve: ApprovalCallback | None) -> Any:
    """Ask to approve a call whose tool answered ``needs_approval``; re-run it if approved.

    LazyLLM's convention: the tool runs for real when called again with ``allow_unsafe=True``.
    """
    _approve(ready, approve)
    if "allow_unsafe" not in inspect.signature(ready.tool.func).parameters:
        raise ReportedFailure(
            "the tool asked for approval and got it, but it has no allow_unsafe parameter "
            "to be run again with"
        )
    return ready.tool.func(*ready.args, **{**ready.kwargs, "allow_unsafe": True})


def _invocation(
    ready: _Ready, serialize: Callable[[Any], str], approve: ApprovalCallback | None
) -> Invocation:
    secrets = ready.tool.secrets

    def finish(value: Any) -> Any:
        if needs_approval(value):
            value = _approved_rerun(ready, approve)
        value = as_tool_file(unwrap_status(value))  # a reported failure raises: call failed
        if isinstance(value, ToolFile):
            return value  # described (and uploaded by a round trip) when its record is made
        try:
            text = serialize(value)
        except ResultSerializationError as exc:
            raise _SerializationFailedError(str(exc)) from None
        if not isinstance(text, str):  # a custom serializer's slip is this call's problem
            kind = type(text).__qualname__
            raise _SerializationFailedError(f"the serializer returned a {kind}, not text")
        return redact(text, secrets) if secrets else text

    return Invocation(
        ready.tool.func, ready.args, ready.kwargs, timeout=ready.tool.timeout, then=finish
    )
