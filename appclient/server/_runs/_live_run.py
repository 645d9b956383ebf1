"""A streamed run whose answer goes out as the agent writes it (an agent with ``streams_text``).

The run is computed in a worker thread while the response streams its deltas, so the first
delta does not wait for the model's last token. Whatever makes the request a 4xx is found
before the first byte (the worker signals ``emit("")`` when the agent starts). Deltas wait in
a bounded queue, so a slow client slows the agent; a client that leaves does not stop the
run, which still commits. Each message is rendered once, so a replay repeats it byte for byte.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from .._http._responses import HTTPProblem
from .._state._state import RunFailure
from ._events import live_message, message_head
from ._run_engine import Emit

_log = logging.getLogger("appclient.server")
#: ``event_code`` of a live run that failed on the server after its first message.
EVENT_CODE_SERVER_FAILED: Final = 5004


#: Deltas waiting for a slow client before the agent is made to wait.
_QUEUE_SIZE: Final = 256
_START, _DELTA, _DONE, _FAILED = "start", "delta", "done", "failed"


def live_messages(
    work: Callable[[Emit], Sequence[str]],
    *,
    conversation_id: str,
    message_id: str,
    request_id: str,
    date: str,
) -> Iterator[str]:
    """Run ``work`` in a thread; return the run's SSE messages (JSON texts) as they come.

    ``work`` gets the emit callback, to which it hands each live message as it is ready
    (``""`` first, when the agent starts), commits, and returns the messages that follow.
    This call returns once the run has started, so a request error is raised here.

    Raises:
        HTTPProblem: ``work`` refused the request before the agent started.
    """
    items: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=_QUEUE_SIZE)

    def emit(message: str) -> None:
        items.put((_START, None) if message == "" else (_DELTA, message))

    def run() -> None:
        try:
            items.put((_DONE, work(emit)))
        except BaseException as exc:  # handed to the request thread, which raises or reports
            items.put((_FAILED, exc))

    threading.Thread(target=run, name=f"appclient-live-run:{message_id}", daemon=True).start()
    kind, value = items.get()
    if kind == _FAILED:
        raise value

    def messages() -> Iterator[str]:
        first = [] if kind == _START else [(kind, value)]
        for item_kind, item in itertools.chain(first, iter(items.get, None)):
            if item_kind == _DELTA:
                try:
                    yield item
                except GeneratorExit:
                    # The client left: the run still finishes and commits (a blocked put
                    # would hold its worker and the conversation's lease), unread.
                    while items.get()[0] == _DELTA:
                        pass
                    raise
            elif item_kind == _DONE:
                yield from item
                return
            else:  # failed after the first byte: the stream still ends with its final event
                problem = item.message if isinstance(item, HTTPProblem) else "unexpected error"
                failure = RunFailure(EVENT_CODE_SERVER_FAILED, f"the run failed: {problem}")
                _log.error("live run %s failed", message_id, exc_info=item)
                head = message_head(conversation_id, message_id, request_id, date)
                yield live_message("", head, failure=failure)
                return

    return messages()
