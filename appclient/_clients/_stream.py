"""The streamed run: one :class:`~appclient.RunAnswer` per server-sent message.

:class:`StreamState` holds every rule of a streamed run (decoding, limits, replays, totals, when
it is finished); :class:`RunStream` and :class:`~appclient.types.AsyncRunStream` only fetch the
chunks a transport hands over, so plain lists of bytes test every behaviour. A stream that stops
before a final event raises :class:`~appclient.errors.StreamInterruptedError` rather than pass a
cut-off answer for a complete one.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import AsyncIterable, Callable, Iterable, Iterator
from typing import Any, TypeVar

from .._core._constants import MAX_SSE_LINE_BYTES, TERMINAL_EVENT_STATUSES
from .._core._errors import (
    AppClientError,
    RequestTimeoutError,
    ResponseTooLargeError,
    StreamInterruptedError,
    TransportError,
)
from .._core._http_answers import parse_run_answer, raise_for_error_event
from .._core._limits import Limits
from .._core._models import Event, RunAnswer, ToolCall
from .._core._sse import SSEDecoder

_S = TypeVar("_S", bound="StreamState")


class StreamState:
    """What a streamed run has read so far, and every rule about it (pure, no I/O)."""

    def __init__(
        self,
        chunks: Iterable[bytes] | AsyncIterable[bytes] | None,
        *,
        close: Callable[[], None] | None = None,
        conversation_id: str = "",
        request_id: str = "",
        max_line_bytes: int = MAX_SSE_LINE_BYTES,
        secrets: Iterable[str] = (),
        limits: Limits | None = None,
        reopen: Callable[[], Any] | None = None,
        max_reopens: int = 0,
    ) -> None:
        # The reader's one I/O step (sync or async): the next chunk, or the run sent again
        # (``reopen``); None once reading is over.
        self._io: Callable[[], Any] | None = self._begin(chunks) if chunks is not None else None
        self._reopen = reopen
        self._reopens_left = max_reopens if reopen is not None else 0
        self._cause: TransportError | None = None
        # A hash chain of the messages delivered, to check that a replay repeats them (64
        # bits: a server that answers differently is caught all but surely).
        self._digest = 0
        self._skip = 0  # messages of a replay still to check, not deliver
        self._expected = 0  # the chain of what was read when the run was sent again
        self._replayed = 0  # the chain of the replay's repeats read so far
        self._limits = limits if limits is not None else Limits()
        # Kept in a closure, so a debugger's or a vars() dump of the stream does not show them.
        hidden = tuple(secrets)
        self._revealed_secrets: Callable[[], tuple[str, ...]] = lambda: hidden
        self._close_response = close
        self._max_line_bytes = max_line_bytes
        self._decoder = SSEDecoder(max_line_bytes=max_line_bytes)
        self._pending: deque[str] = deque()
        self._conversation_id = conversation_id
        self._request_id = request_id
        # What collect() needs, kept while it fits in max_collected_bytes (as sent); past
        # that nothing more is kept, so a stream that is only iterated has constant memory.
        self._answer_parts: list[str] = []
        self._events: list[Event] = []
        self._kept_bytes = 0
        self._overflowed = False
        self._event_count = 0
        self._tool_calls: list[ToolCall] = []  # the last event's that had any: always kept
        self._last: RunAnswer | None = None
        self._messages = 0
        self._finished = False
        self._closed = False
        # close() may come from another thread while the reader releases the stream at its
        # end: the lock makes exactly one of them close the response.
        self._release_lock = threading.Lock()
        self._stopped = False  # close() was called (not the end or a failure of the stream)

    def _begin(self, chunks: Any) -> Callable[[], Any]:
        """The reader's step that fetches the next of ``chunks`` (``__next__``/``__anext__``)."""
        raise NotImplementedError

    @classmethod
    def from_body(
        cls: type[_S],
        body: bytes,
        *,
        close: Callable[[], None] | None = None,
        conversation_id: str = "",
        request_id: str = "",
        secrets: Iterable[str] = (),
    ) -> _S:
        """A stream of one message: a JSON answer to a stream request (as for hosted errors)."""
        stream = cls(
            None,
            close=close,
            conversation_id=conversation_id,
            request_id=request_id,
            secrets=secrets,
        )
        stream._pending.append(body.decode("utf-8", errors="replace"))
        return stream

    @property
    def request_id(self) -> str:
        """The ``X-Appbuilder-Request-Id`` of the response ("" when the server sent none)."""
        return self._request_id

    # --- reading: the readers call these -----------------------------------------------------

    def _took(self, got: object) -> None:
        """Act on what :attr:`_io` gave (a chunk, a resent run's chunks, their end or an error)."""
        if isinstance(got, bytes):  # the common case first: it runs once per chunk
            self._pending.extend(self._decoder.feed(got))
            return
        if self._io is None:  # close() (from another thread) ended the reading meanwhile
            return
        resent, self._io = self._io is self._reopen, None
        if resent:
            if isinstance(got, AppClientError):
                raise self._interrupted(
                    f"broke after {self._messages} message(s) ({self._cause or 'cut short'}), "
                    f"and sending the run again failed: {got}"
                ) from got
            # Read the replay from its start, skipping (and checking) what was read.
            self._io = self._begin(got)
            self._decoder = SSEDecoder(max_line_bytes=self._max_line_bytes)
            self._pending.clear()
            self._skip = self._messages
            self._expected, self._replayed = self._digest, 0
            return
        if isinstance(got, TransportError):
            # A finished run's server may drop or idle the connection after its last message.
            resend = not self._finished and self._may_resend(got)
            if not resend and not self._finished:
                raise self._interrupted(f"broke after {self._messages} message(s): {got}") from got
        elif isinstance(got, AppClientError):
            raise got
        else:
            resend = self._ended()
        if resend:
            self._io = self._reopen

    def _take(self) -> str | None:
        """The next message's data to deliver, skipping a replay's repeats; None: read more."""
        while self._pending:
            data = self._pending.popleft()
            if not self._skip:
                return data
            self._replayed = hash((self._replayed, data))
            self._skip -= 1
            if not self._skip and self._replayed != self._expected:
                raise self._differs()
        return None

    def _ended(self) -> bool:
        """The chunks ran out; return whether to send the run again."""
        self._pending.extend(self._decoder.end())
        unframed = self._decoder.unframed_text
        if not self._pending and not self._messages and unframed.startswith("{"):
            # A plain JSON body (the hosted service's errors): read it as one
            # message, as the official client does, so its code and message show.
            self._pending.append(unframed)
        elif not self._pending and not self._finished:
            if self._skip:  # the replay ended before repeating what was read
                raise self._differs()
            return self._may_resend(None)  # cut short without an error: resend if allowed
        return False

    def _deliver(self, data: str | None) -> RunAnswer | None:
        """The answer of the next message's ``data``; None: the stream ended (at its end)."""
        if data is None:
            self._release()
            if not self._finished and not self._stopped:
                raise self._interrupted(
                    f"ended after {self._messages} message(s) without a final success, "
                    "interrupt or error event"
                )
            return None
        self._digest = hash((self._digest, data))
        secrets = self._revealed_secrets()
        answer = parse_run_answer(
            data,
            request_id=self._request_id,
            conversation_id=self._conversation_id,
            secrets=secrets,
        )
        self._messages += 1
        self._last = answer
        events = answer.events
        self._event_count += len(events)
        limit = self._limits.max_stream_events
        if limit is not None and self._event_count > limit:
            raise ResponseTooLargeError(
                f"the stream sent more than {limit:,} events; raise "
                "Limits.max_stream_events if this run is expected to be that long"
            )
        failed = False
        for event in events:  # one pass: tool calls, final and error events
            if event.tool_calls:
                self._tool_calls = list(event.tool_calls)
            if event.event_status in TERMINAL_EVENT_STATUSES:
                self._finished = True
                failed = failed or event.event_status == "error"
        if answer.is_completion or (events and events[-1].tool_calls):
            self._finished = True
        if not self._overflowed:
            self._kept_bytes += len(data)
            if self._kept_bytes > self._limits.max_collected_bytes:
                self._overflowed = True
                self._answer_parts.clear()
                self._events.clear()
            else:
                if answer.answer:
                    self._answer_parts.append(answer.answer)
                self._events.extend(events)
        if answer.request_id:
            self._request_id = answer.request_id
        if answer.conversation_id:
            self._conversation_id = answer.conversation_id
        if failed:
            raise_for_error_event(answer, conversation_id=self._conversation_id, secrets=secrets)
        return answer

    def _failed(self) -> bool:
        """Reading raised: release the response; return whether close() caused it."""
        self._release()
        return self._stopped

    def _collected(self) -> RunAnswer:
        if not self._finished:  # closed early: what was read is not the whole answer
            raise self._interrupted(
                f"was closed after {self._messages} message(s), before its final event; "
                "accumulated() returns what arrived"
            )
        return self.accumulated()

    def _interrupted(self, what: str) -> StreamInterruptedError:
        return StreamInterruptedError(
            f"the stream {what}",
            request_id=self._request_id,
            conversation_id=self._conversation_id,
        )

    def _may_resend(self, cause: TransportError | None) -> bool:
        """Whether to send the run again to read the rest (and count it).

        Not after a timeout: a slow server is still at work, so a resend would wait behind it.
        """
        if self._reopen is None or self._reopens_left <= 0 or self._stopped or self._skip:
            return False
        if isinstance(cause, RequestTimeoutError):
            return False
        self._reopens_left -= 1
        self._cause = cause
        return True

    def _differs(self) -> StreamInterruptedError:
        return self._interrupted(
            f"broke after {self._messages} message(s), and the run sent again answered "
            "differently (the server does not replay by Idempotency-Key): what was read is "
            "all there is"
        )

    # --- results ---------------------------------------------------------------------------

    def accumulated(self) -> RunAnswer:
        """Return the answer accumulated so far, without reading further.

        Raises:
            ResponseTooLargeError: The stream outgrew ``Limits.max_collected_bytes``.
        """
        self._check_collected()
        last = self._last
        return RunAnswer(
            request_id=last.request_id if last else self._request_id,
            date=last.date if last else "",
            answer=self.answer,
            conversation_id=(last.conversation_id if last else "") or self._conversation_id,
            message_id=last.message_id if last else "",
            is_completion=last.is_completion if last else False,
            events=list(self._events),
        )

    def _check_collected(self) -> None:
        if self._overflowed:
            raise ResponseTooLargeError(
                f"the stream outgrew {self._limits.max_collected_bytes:,} bytes, so it was "
                "not kept for collect(): iterate it instead, or raise "
                "Limits.max_collected_bytes"
            )

    @property
    def answer(self) -> str:
        """The answer text received so far (see :meth:`accumulated` for the limit)."""
        self._check_collected()
        return "".join(self._answer_parts)

    @property
    def events(self) -> list[Event]:
        """Every event received so far, in order (see :meth:`accumulated` for the limit)."""
        self._check_collected()
        return list(self._events)

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls received so far: those of the last event that carries any."""
        return list(self._tool_calls)

    @property
    def message_id(self) -> str:
        """The run's message id (constant within a run), once a message has arrived."""
        return self._last.message_id if self._last else ""

    @property
    def finished(self) -> bool:
        """Whether a final event (``success``, ``interrupt``, ``error``...) has arrived."""
        return self._finished

    @property
    def closed(self) -> bool:
        """Whether the underlying response has been released."""
        return self._closed

    # --- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        """Stop reading and release the HTTP response; later iteration ends at once.

        Safe to call from another thread (a "stop" button): a read blocked there wakes up and
        its iteration ends without an error.
        """
        self._stopped = True
        self._release()

    def _release(self) -> None:
        with self._release_lock:
            if self._closed:
                return
            self._closed = True
        self._io = None
        self._pending.clear()
        if self._close_response is not None:
            self._close_response()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return (
            f"{type(self).__name__}(conversation_id={self._conversation_id!r}, "
            f"messages={self._messages}, finished={self._finished}, {state})"
        )


class RunStream(StreamState):
    """An event stream of a run, read message by message.

    Iterate it (or its ``content``, as code written for the official SDK does) to get one
    :class:`RunAnswer` per message, whose ``answer`` is that message's text delta; or call
    :meth:`collect` for the accumulated answer. The HTTP response is closed when the stream is
    exhausted, fails, or is closed; use ``with`` to close it early::

        with client.run(conversation_id, "hi", stream=True) as stream:
            for message in stream:
                print(message.answer, end="", flush=True)
        print(stream.tool_calls)

    Args:
        chunks: The body's bytes, in chunks of any size.
        close: Releases the underlying response (possibly from another thread, so it should
            wake a blocked read); called once.
        conversation_id: The conversation the run belongs to (for error messages).
        request_id: The ``X-Appbuilder-Request-Id`` of the response, if known.
        max_line_bytes: Longest SSE line accepted.
        secrets: Values (the token) scrubbed from the messages of run errors.
        limits: ``max_stream_events`` and ``max_collected_bytes`` apply here (the chunks
            are expected to be bounded by ``max_stream_bytes`` already); the defaults when
            omitted.
        reopen: Sends the run again (same ``Idempotency-Key``) and returns the new body's
            chunks, for a stream that broke or ended before its final event. The server is
            expected to replay the same stream: the messages already read are compared (by
            digest) and skipped, and reading goes on where it stopped.
        max_reopens: How many times ``reopen`` may be used.

    Raises:
        StreamInterruptedError: (while iterating) The stream ended or broke before a final event.
        RunError: (while iterating) The server reported an error event or a top-level error.
        ResponseDecodeError: (while iterating) A message is not a run answer.
        ResponseTooLargeError: (while iterating) More events than ``max_stream_events``;
            (from :meth:`collect`, :meth:`accumulated`, :attr:`answer`, :attr:`events`) the
            stream outgrew ``max_collected_bytes``, so only iterating it gives everything.
    """

    def _begin(self, chunks: Iterable[bytes]) -> Callable[[], bytes]:
        return iter(chunks).__next__

    # --- iteration -------------------------------------------------------------------------

    def __iter__(self) -> RunStream:
        return self

    def __next__(self) -> RunAnswer:
        if self._closed:
            raise StopIteration
        try:
            while (data := self._take()) is None and self._io is not None:
                try:
                    got = self._io()  # the one I/O step: see StreamState._took
                except (StopIteration, AppClientError) as exc:
                    self._took(exc)  # in here, so what it raises has the failure as context
                else:
                    self._took(got)
            answer = self._deliver(data)
        except BaseException:
            if self._failed():  # close() from another thread woke a read blocked on the socket
                raise StopIteration from None
            raise
        if answer is None:
            raise StopIteration
        return answer

    @property
    def content(self) -> Iterator[RunAnswer]:
        """The stream itself, so official-style ``for chunk in message.content`` works."""
        return self

    def read_message(self) -> RunAnswer | None:
        """Return the next message, or ``None`` once the stream has ended."""
        return next(self, None)

    def collect(self) -> RunAnswer:
        """Read the rest of the stream and return the accumulated answer.

        Returns:
            A :class:`RunAnswer` with the answer text of every message joined, every event in
            order, and the ids and ``is_completion`` of the last message.

        Raises:
            StreamInterruptedError: The stream ended, broke or was closed before a final event
                (:meth:`accumulated` still gives what arrived).
            RunError: The run failed.
        """
        for _ in self:
            pass
        return self._collected()

    def __enter__(self) -> RunStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
