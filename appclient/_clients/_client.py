"""AppClient: the AppBuilder conversation protocol over ``requests``, with retries and timeouts.

Its methods are :class:`~appclient._clients._client_base.ClientBase`'s; it sends through its
:class:`~appclient._clients._http_transport.Transport`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import requests

from .._core._constants import PATH_FILE_UPLOAD, PATH_RUNS
from .._core._models import Message
from .._tools._loop import RoundTripMixin
from .._tools._tracing import run_span
from ._client_base import UPLOAD, ClientBase, ClientOptions, Upload, open_upload
from ._http_transport import Transport
from ._stream import RunStream

if TYPE_CHECKING:  # Unpack is in typing from Python 3.11; annotations are never evaluated
    from typing_extensions import Unpack


class AppClient(ClientBase[Message, RunStream, str], RoundTripMixin):
    """A client for one AppBuilder app: conversations, runs (plain or streamed), files, feedback.

    Args:
        app_id: The id of the published app; ``$APPBUILDER_APP_ID`` when omitted.
        token: The secret key; ``$APPBUILDER_TOKEN`` when omitted.
        base_url: The gateway, e.g. ``http://127.0.0.1:8000``; ``$GATEWAY_URL_V2`` when omitted,
            else the hosted service.
        timeout: A :class:`~appclient.Timeout`, or seconds for both connecting and each
            read, or a ``(connect, read)`` pair or ``(connect, read, total)`` triple;
            ``Timeout()`` when omitted (10 s, 120 s, 600 s).
        limits: How much an answer may bring; ``Limits()`` when omitted.
        max_retries: Retries after the first attempt for connection errors (connect
            timeouts included), read timeouts (non-stream), 408, 429, 5xx and a 409 that
            names a wait. ``0`` disables retrying.
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
    _transport: Transport

    def __init__(
        self,
        app_id: str | None = None,
        *,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] | None = None,
        **options: Unpack[ClientOptions],
    ) -> None:
        self._transport = self._start(Transport, app_id, session, sleep or time.sleep, options)

    # --- the protocol ------------------------------------------------------------------------

    def _exchange(self, path: str, body: Callable[[], bytes], what: str, field: str | None) -> str:
        return self._read(self._transport.send(path, json_body=body()), what, field)

    def _send_run(
        self, conversation_id: str, query: str, stream: bool, options: Mapping[str, Any]
    ) -> Message | RunStream:
        payload = self._run_body(conversation_id, query, stream, options)
        with run_span(app_id=self.app_id, conversation_id=conversation_id, stream=stream):
            if stream:
                return self._streaming(
                    self._transport.send_stream(
                        PATH_RUNS, json_body=payload, conversation_id=conversation_id
                    )
                )
            reply = self._transport.send(PATH_RUNS, json_body=payload)
            return self._run_message(reply, conversation_id)

    def _upload(self, upload: Callable[[], Upload]) -> str:
        form, source = upload()
        if isinstance(source, str):
            files: dict[str, Any] = {"file_url": (None, source)}
            return self._read(
                self._transport.send(PATH_FILE_UPLOAD, form=form, files=files), UPLOAD
            )
        name, handle = open_upload(source)
        with handle:
            response = self._transport.send(
                PATH_FILE_UPLOAD, form=form, files={"file": (name, handle)}
            )
        return self._read(response, UPLOAD)

    # --- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        """Release pooled connections (of a session the client created itself)."""
        self._transport.close()

    def __enter__(self) -> AppClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
