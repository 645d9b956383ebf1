"""The automatic round trip: query, tool calls, tool outputs, again, until the answer.

:class:`RoundTripMixin` gives :class:`~appclient.AppClient` ``run_until_answer`` and
``iter_until_answer``, built only on its ``create_conversation()``, ``upload_file()`` and
``run(...)``, keeping the rules of docs/protocol.md section 6. The round trip is one
generator for both clients: it yields the events, and :class:`Do` steps that its driver makes
(called here, awaited by :mod:`~appclient._tools._async_loop`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypedDict

from .._core._constants import DEFAULT_MAX_ROUNDS
from .._core._errors import (
    AppClientError,
    InvalidRequestError,
    MaxRoundsExceededError,
    RunError,
    ToolExecutionError,
)
from .._core._http_bodies import ToolChoiceLike, unexpected_options
from .._core._models import Event, RunAnswer, ToolCall
from ._dispatch import ApprovalCallback, ToolCallRecord
from ._loop_events import (
    AnswerDone,
    LoopEvent,
    RoundFinished,
    RoundRecord,
    RoundTripResult,
    ServerEvent,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)
from ._tool_results import failure_output
from ._tracing import attached, end_span, record_tool_call, start_span

if TYPE_CHECKING:
    from typing_extensions import Required, Unpack

    from ._registry import ToolRegistry


@dataclass(frozen=True)
class Do:
    """A step of the round trip that waits on the outside world; its driver makes it.

    The driver calls it (the async one awaits the result, and runs ``blocking`` steps in the
    round trip's own thread) and sends the result back, or throws its exception in.
    """

    func: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    blocking: bool = False

    def __call__(self) -> Any:
        """Make the step: call ``func`` with the arguments."""
        return self.func(*self.args, **self.kwargs)


Steps = Generator["LoopEvent | Do", Any, None]


def advance(steps: Steps, value: Any, error: BaseException | None) -> LoopEvent | Do | None:
    """The round trip's next item, given its last step's result or error; None at its end."""
    try:
        return steps.throw(error) if error is not None else steps.send(value)
    except StopIteration:
        return None
    finally:
        del error  # the error's traceback holds this frame: a reference back would be a cycle


def _uploaded(
    upload: Callable[..., Any], conversation_id: str, record: ToolCallRecord
) -> Generator[Do, Any, ToolCallRecord]:
    """Upload the file a tool returned and name it in the output; a failed upload fails it."""
    file = record.file
    assert file is not None  # noqa: S101 - the caller checked
    try:
        if file.path is not None:
            file_id = yield Do(upload, (conversation_id, file.path))
        else:
            with tempfile.TemporaryDirectory(prefix="appclient-tool-file-") as folder:
                path = os.path.join(folder, os.path.basename(file.name) or "file")
                with open(path, "wb") as handle:
                    handle.write(file.data or b"")
                file_id = yield Do(upload, (conversation_id, path))
    except AppClientError as exc:
        error = ToolExecutionError(
            f"tool {record.name!r} returned the file {file.name!r}, which could not be "
            f"uploaded: {exc}",
            tool_name=record.name,
            tool_call_id=record.id,
        )
        return replace(record, output=failure_output(error), is_error=True, error=error)
    return replace(record, output=file.describe(file_id=file_id))


def as_registry(tools: ToolRegistry | Iterable[Any] | Callable[..., Any] | None) -> ToolRegistry:
    """Return ``tools`` as a registry: a registry as is, else a new one holding the items."""
    # Imported here so that importing the client does not import the manifest builder.
    from ._registry import ToolRegistry

    if isinstance(tools, ToolRegistry):
        return tools
    return ToolRegistry(tools if tools is not None else ())


@dataclass
class _Progress:
    """What the loop has gathered so far (becomes the result, or the partial result)."""

    conversation_id: str
    started: float
    runs: list[RunAnswer] = field(default_factory=list)
    rounds: list[RoundRecord] = field(default_factory=list)
    span: Any = None  # the round trip's tracing span (None without OpenTelemetry)

    def result(
        self, *, answer: str, now: float, completed: bool = True, pending: Iterable[ToolCall] = ()
    ) -> RoundTripResult:
        last = self.runs[-1] if self.runs else None
        return RoundTripResult(
            answer=answer,
            conversation_id=self.conversation_id,
            message_id=last.message_id if last else "",
            tool_calls=tuple(call for r in self.rounds for call in r.tool_calls),
            rounds=tuple(self.rounds),
            runs=tuple(self.runs),
            duration=now - self.started,
            completed=completed,
            pending_tool_calls=tuple(pending),
        )

    def end(self, error: BaseException | None = None) -> None:
        """End the round trip's span, with its counts and the error that ended it, if any."""
        tool_calls = sum(len(r.tool_calls) for r in self.rounds)
        counts = {"appclient.rounds": len(self.rounds), "appclient.tool_calls": tool_calls}
        end_span(self.span, error=error, **counts)


def _thought(event: Event) -> str:
    text = event.outputs.get("text")
    call = text.get("function_call") if isinstance(text, Mapping) else None
    thought = call.get("thought") if isinstance(call, Mapping) else None
    return thought if isinstance(thought, str) else ""


def _requested_calls(answer: RunAnswer, conversation_id: str) -> list[ToolCall]:
    """The calls the run ends with ([] for an answer); raises for error endings."""
    error = answer.error_event
    if error is not None:
        raise RunError(
            error.event_message or f"the run failed in {error.event_type or 'an event'}",
            code=str(error.event_code),
            request_id=answer.request_id,
            conversation_id=conversation_id,
        )
    last = answer.last_event
    if last is None:
        return []
    if last.tool_calls:
        return list(last.tool_calls)
    if last.event_status == "interrupt":
        raise RunError(
            "the agent interrupted the run without asking for tool calls",
            request_id=answer.request_id,
            conversation_id=conversation_id,
        )
    return []


class RoundTripOptions(TypedDict, total=False):
    """The keyword arguments of a round trip, for the sync and async clients.

    Attributes:
        tools: A :class:`ToolRegistry`, or functions, toolkit objects and groups, or one of
            them (wrapped in a new registry). Sent with the first run only. Required.
        tool_choice: Force a tool in the first run only (later runs let the agent choose).
        max_rounds: Rounds of tool calls allowed before
            :class:`~appclient.MaxRoundsExceededError` is raised (8).
        approve: Approval callback for tools registered with ``requires_approval``
            (default: the registry's).
        raise_errors: Raise a local tool failure instead of reporting it to the agent.
        file_ids: Files for the first run.
        end_user_id: The end user on whose behalf the app runs (sent with every run).
        action: Passed to the first run.
        parameters: Passed to the first run.
        custom_metadata: Passed to the first run.
    """

    tools: Required[ToolRegistry | Iterable[Any] | Callable[..., Any]]
    tool_choice: ToolChoiceLike | None
    max_rounds: int
    approve: ApprovalCallback | None
    raise_errors: bool
    file_ids: list[str] | None
    end_user_id: str | None
    action: Mapping[str, Any] | None
    parameters: Mapping[str, Any] | None
    custom_metadata: Mapping[str, Any] | None


#: The options sent with the first run of a round trip; the others steer the loop.
_FIRST_RUN_OPTIONS = RoundTripOptions.__annotations__.keys() - {
    "tools",
    "max_rounds",
    "approve",
    "raise_errors",
}


def check_round_trip_options(options: Mapping[str, Any], *, where: str) -> None:
    """Raise the ``TypeError`` Python would for an unknown or missing keyword."""
    if error := unexpected_options(options, RoundTripOptions.__annotations__, where=where):
        raise error
    if "tools" not in options:
        raise TypeError(f"{where}() missing 1 required keyword-only argument: 'tools'")


class RoundTripMixin:
    """Adds the automatic tool round trip to :class:`appclient.AppClient`."""

    # What the round trip asks of the client it is mixed into (Any: the async client's are
    # coroutine functions; its driver awaits what they return).
    create_conversation: Callable[[], Any]
    upload_file: Callable[..., Any]
    run: Callable[..., Any]

    #: Returns seconds; used for the durations in results.
    _round_trip_clock: Callable[[], float] = staticmethod(time.perf_counter)

    def run_until_answer(
        self,
        conversation_id: str | None = None,
        query: str = "",
        *,
        stream: bool = False,
        on_event: Callable[[LoopEvent], None] | None = None,
        **options: Unpack[RoundTripOptions],
    ) -> RoundTripResult:
        """Ask the agent, run the local tools it calls, send their outputs, until it answers.

        Args:
            conversation_id: The conversation to use; a new one is created when ``None``.
            query: The user's message (sent with the first run only).
            stream: Stream each run (``on_event`` then gets the answer text as it arrives).
            on_event: Called with every :class:`LoopEvent`, in order.
            **options: ``tools`` (required) and the other :class:`RoundTripOptions`.

        Returns:
            The answer, every tool call with its arguments, output, error flag and duration,
            and the rounds.

        Raises:
            InvalidRequestError: ``max_rounds`` is below 1, ``tools`` holds something that is
                not a tool, or a run's arguments are badly shaped; nothing was sent.
            RunError: The run failed (an ``error`` event or error body).
            StreamInterruptedError: A stream ended before its final event.
            MaxRoundsExceededError: The agent asked for more than ``max_rounds`` rounds; its
                ``result`` holds what was done.
            APIStatusError: The server refused a request (subclass per status).
            TransportError: No answer (connection failure or timeout) after all retries.
            ToolError: Only with ``raise_errors=True``.
            AppClientError: Each of the above, once the loop has started, carries
                ``partial_result``: the calls made so far, with their outputs.
        """
        check_round_trip_options(options, where="run_until_answer")
        events = self.iter_until_answer(conversation_id, query, stream=stream, **options)
        # Closed on every way out: a callback's exception must not keep a stream open.
        with contextlib.closing(events):
            for event in events:
                if on_event is not None:
                    on_event(event)
                if isinstance(event, AnswerDone):
                    return event.result
        raise AssertionError("the round trip ended without AnswerDone")  # pragma: no cover

    def iter_until_answer(
        self,
        conversation_id: str | None = None,
        query: str = "",
        *,
        stream: bool = True,
        **options: Unpack[RoundTripOptions],
    ) -> Generator[LoopEvent, None, None]:
        """Like :meth:`run_until_answer`, yielding progress events (streams by default).

        Yields :class:`TextDelta`, :class:`ServerEvent`, :class:`ToolCallStarted`,
        :class:`ToolCallFinished`, :class:`RoundFinished`, and finally :class:`AnswerDone`
        with the result. Closing the iterator early closes the open stream.
        """
        check_round_trip_options(options, where="iter_until_answer")
        steps = self._round_trip_steps(conversation_id, query, stream, options)
        value: Any = None
        error: BaseException | None = None
        try:
            while (item := advance(steps, value, error)) is not None:
                value, error = None, None
                if isinstance(item, Do):
                    try:
                        value = item()
                    except BaseException as exc:  # the round trip's own code handles it
                        error = exc
                else:
                    yield item
        finally:
            error = None  # as in advance: this frame is in the error's traceback
            steps.close()

    def _round_trip_steps(
        self, conversation_id: str | None, query: str, stream: bool, options: Mapping[str, Any]
    ) -> Steps:
        """The round trip, for either client: events for the caller, ``Do`` steps for its driver."""
        max_rounds = options.get("max_rounds", DEFAULT_MAX_ROUNDS)
        if max_rounds < 1:
            raise InvalidRequestError(f"max_rounds must be at least 1, got {max_rounds}")
        registry = as_registry(options["tools"])
        clock = self._round_trip_clock
        started = clock()
        if conversation_id is None:
            conversation_id = yield Do(self.create_conversation)
        progress = _Progress(conversation_id=conversation_id, started=started)
        app_id = str(getattr(self, "app_id", ""))  # for the spans; test doubles have none
        progress.span = start_span(
            f"round_trip {app_id}",
            **{"gen_ai.agent.id": app_id, "gen_ai.conversation.id": conversation_id},
        )
        first = {name: options.get(name) for name in _FIRST_RUN_OPTIONS}
        try:
            answer = yield from self._one_run(
                progress, stream, query=query, tools=registry.tools() or None, **first
            )
            while calls := _requested_calls(answer, conversation_id):
                if len(progress.rounds) >= max_rounds:
                    partial = progress.result(
                        answer=answer.answer, now=clock(), completed=False, pending=calls
                    )
                    raise MaxRoundsExceededError(
                        f"the agent still asked for tools after {max_rounds} round(s) "
                        f"(max_rounds={max_rounds}); the partial result is on .result",
                        max_rounds=max_rounds,
                        result=partial,
                    )
                outputs = yield from self._one_round(registry, progress, calls, answer, options)
                answer = yield from self._one_run(
                    progress,
                    stream,
                    tool_outputs=outputs,
                    end_user_id=first["end_user_id"],
                )
        except BaseException as exc:
            # Tools may have run already: their outputs go with the error, so the caller
            # can deliver them again instead of running the tools a second time.
            if isinstance(exc, AppClientError) and exc.partial_result is None:
                exc.partial_result = progress.result(answer="", now=clock(), completed=False)
            # Ended here, not in a `finally` that would need the error kept in a variable
            # (a frame of its traceback holding it would keep the round trip until a GC).
            progress.end(None if isinstance(exc, GeneratorExit) else exc)
            raise
        progress.end()
        yield AnswerDone(progress.result(answer=answer.answer, now=clock()))

    def _one_round(
        self,
        registry: ToolRegistry,
        progress: _Progress,
        calls: list[ToolCall],
        answer: RunAnswer,
        options: Mapping[str, Any],
    ) -> Generator[LoopEvent | Do, Any, list[dict[str, str]]]:
        index = len(progress.rounds) + 1
        for call in calls:
            yield ToolCallStarted(index, call.id, call.function.name, call.function.arguments)
        clock = self._round_trip_clock
        started = clock()
        records: list[ToolCallRecord] = []
        running = registry.iter_dispatch(
            calls, approve=options.get("approve"), raise_errors=options.get("raise_errors", False)
        )
        while (record := (yield Do(next, (running, None), blocking=True))) is not None:
            if record.file is not None:
                record = yield from _uploaded(self.upload_file, progress.conversation_id, record)
            records.append(record)
            tool = registry.get(record.name)
            record_tool_call(progress.span, record, secrets=tool.secrets if tool else ())
            yield ToolCallFinished(index, record)
        last = answer.last_event
        done = RoundRecord(
            index=index,
            tool_calls=tuple(records),
            duration=clock() - started,
            thought=_thought(last) if last is not None else "",
        )
        progress.rounds.append(done)
        yield RoundFinished(done)
        # One output per id: the dispatcher refused a repeated id (its record keeps the
        # error), and a second output for the same id would make the server reject the round.
        first = {record.id: record for record in reversed(records)}
        return [record.to_output().model_dump() for record in records if first[record.id] is record]

    def _one_run(
        self, progress: _Progress, stream: bool, *, query: str = "", **options: Any
    ) -> Generator[LoopEvent | Do, Any, RunAnswer]:
        run_number = len(progress.runs) + 1
        with attached(progress.span):
            arguments = (progress.conversation_id, query)
            result = yield Do(self.run, arguments, {"stream": stream, **options})
        if not stream:
            answer: RunAnswer = result.content
            for event in answer.events:
                yield ServerEvent(event, run_number)
            if answer.answer:
                yield TextDelta(answer.answer, run_number)
        else:
            try:  # closed however the round trip ends
                while (message := (yield Do(result.read_message))) is not None:
                    if message.answer:
                        yield TextDelta(message.answer, run_number)
                    for event in message.events:
                        yield ServerEvent(event, run_number)
                # The stream's own accumulation and "run finished" rule (a stream that ended
                # without a final event has raised StreamInterruptedError above).
                answer = yield Do(result.collect)
            finally:
                result.close()
        progress.runs.append(answer)
        return answer
