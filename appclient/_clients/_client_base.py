"""What both clients share: :class:`ClientBase` (all but sending) and their settings.

Each method's one signature and documentation, every request's body and answer are here;
:class:`~appclient.AppClient` and :class:`~appclient.AsyncAppClient` only send.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    BinaryIO,
    Generic,
    Literal,
    Protocol,
    TypeAlias,
    TypedDict,
    TypeVar,
    overload,
)

from .._core._constants import (
    DEFAULT_MAX_RETRIES,
    ENV_APP_ID,
    ENV_TOKEN,
    HEADER_REQUEST_ID,
    PATH_CONVERSATION,
    PATH_FEEDBACK,
)
from .._core._errors import InvalidRequestError, wrong_kind
from .._core._http_answers import (
    body_request_id,
    parse_run_answer,
    raise_for_error_event,
    read_json_object,
    required_text,
)
from .._core._http_bodies import (
    RunOptions,
    encode_json,
    feedback_body,
    require_text,
    run_body,
    unexpected_options,
)
from .._core._limits import Limits, Timeout, parse_timeout
from .._core._models import FeedbackType, Message
from .._tools._tracing import note
from ._stream import StreamState
from ._transport_base import TransportBase, parse_base_url

if TYPE_CHECKING:  # Unpack is in typing from Python 3.11; annotations are never evaluated
    from typing_extensions import Unpack


_T = TypeVar("_T")
#: An upload's form fields, and its source: a URL, or a readable file's path.
Upload: TypeAlias = tuple[dict[str, str], str | Path]
#: What an upload answer is called in errors.
UPLOAD = "the upload answer"


class ClientOptions(TypedDict, total=False):
    """The settings both clients take by keyword (:class:`AppClient` says what they mean)."""

    token: str | None
    base_url: str | None
    timeout: float | tuple[float, ...] | Timeout | None
    limits: Limits | None
    max_retries: int


_S = TypeVar("_S", bound=StreamState)
#: What the methods give: a Message, a stream and an id (AppClient), or coroutines of them.
_Answer = TypeVar("_Answer")
_Stream = TypeVar("_Stream")
_Text = TypeVar("_Text")


class ClientBase(Generic[_Answer, _Stream, _Text]):
    """What :class:`AppClient` and :class:`~appclient.AsyncAppClient` share (all but sending)."""

    app_id: str
    _transport: TransportBase[Any]

    def _start(
        self,
        transport: Callable[..., _T],
        app_id: str | None,
        session: Any,
        sleep: Callable[[float], Any],
        options: ClientOptions,
    ) -> _T:
        """Check the client's arguments (or read the environment); return its transport."""
        if error := unexpected_options(
            options, ClientOptions.__annotations__, where=type(self).__name__
        ):
            raise error
        if app_id is None:
            app_id = os.environ.get(ENV_APP_ID)
            if not app_id:
                raise InvalidRequestError(f"no app id: pass app_id=... or set ${ENV_APP_ID}")
        self.app_id = require_text(app_id, name="app_id")
        token = options.get("token")
        token = token if token is not None else os.environ.get(ENV_TOKEN)
        if not token:
            raise InvalidRequestError(f"no token: pass token=... or set ${ENV_TOKEN}")
        limits = options.get("limits")
        if limits is None:
            limits = Limits()
        elif not isinstance(limits, Limits):
            raise InvalidRequestError(f"limits must be an appclient.Limits, got {limits!r}")
        return transport(
            token=token,
            base_url=parse_base_url(options.get("base_url")),
            timeout=parse_timeout(options.get("timeout")),
            limits=limits,
            max_retries=options.get("max_retries", DEFAULT_MAX_RETRIES),
            session=session,
            sleep=sleep,
        )

    @property
    def base_url(self) -> str:
        """The gateway's base URL (no trailing slash); may be reassigned, and is checked."""
        return self._transport.base_url

    @base_url.setter
    def base_url(self, value: str) -> None:
        self._transport.base_url = parse_base_url(value)

    @property
    def max_retries(self) -> int:
        """Retries after the first attempt."""
        return self._transport.retry_policy.max_retries

    @property
    def timeout(self) -> Timeout:
        """The timeouts in seconds."""
        return self._transport.timeout

    def __repr__(self) -> str:
        return f"{type(self).__name__}(app_id={self.app_id!r}, base_url={self.base_url!r})"

    def create_conversation(self) -> _Text:
        """Start a conversation with the app (a coroutine on :class:`~appclient.AsyncAppClient`).

        Returns:
            The new conversation id.

        Raises:
            APIStatusError: The server refused (subclass per status).
            TransportError: No answer (connection failure or timeout) after all retries.
            ResponseDecodeError: The answer holds no conversation id.
        """
        return self._exchange(
            PATH_CONVERSATION,
            lambda: encode_json({"app_id": self.app_id}),
            "the create-conversation answer",
            "conversation_id",
        )

    @overload
    def run(
        self,
        conversation_id: str,
        query: str = "",
        *,
        stream: Literal[False] = False,
        **options: Unpack[RunOptions],
    ) -> _Answer: ...

    @overload
    def run(
        self,
        conversation_id: str,
        query: str = "",
        *,
        stream: Literal[True],
        **options: Unpack[RunOptions],
    ) -> _Stream: ...

    @overload
    def run(
        self, conversation_id: str, query: str = "", *, stream: bool, **options: Unpack[RunOptions]
    ) -> _Answer | _Stream: ...

    def run(
        self,
        conversation_id: str,
        query: str = "",
        *,
        stream: bool = False,
        **options: Unpack[RunOptions],
    ) -> _Answer | _Stream:
        """Send a query (with local tools) or the outputs of earlier tool calls.

        On :class:`~appclient.AsyncAppClient` a coroutine with the same arguments, checks and
        errors; ``stream=True`` gives an :class:`AsyncRunStream` once the headers have arrived.

        Args:
            conversation_id: From :meth:`create_conversation`.
            query: The user's message; may be empty when ``tool_outputs`` are sent.
            stream: Return a :class:`RunStream` of answer deltas instead of a :class:`Message`.
            **options: ``file_ids``, ``tools``, ``tool_outputs``, ``tool_choice``,
                ``end_user_id``, ``action``, ``parameters``, ``custom_metadata`` and
                ``mcp_authorization``, as :class:`~appclient._core._http_bodies.RunOptions`
                describes them.

        Returns:
            A :class:`Message` whose ``content`` is the :class:`RunAnswer` (tool calls in
            ``content.events[-1].tool_calls``), or a :class:`RunStream` when ``stream=True``.

        Raises:
            InvalidRequestError: Empty conversation id, neither query nor tool outputs, or a
                badly shaped argument; nothing was sent.
            RunError: The server reported a failure inside an HTTP 200 answer.
            APIStatusError: The server refused (subclass per status).
            TransportError: No answer (connection failure or timeout) after all retries.
            ResponseDecodeError: The answer is not the protocol's JSON.
        """
        sent: _Answer | _Stream = self._send_run(conversation_id, query, stream, options)
        return sent

    def upload_file(
        self,
        conversation_id: str,
        file_path: str | os.PathLike[str] | None = None,
        *,
        file_url: str | None = None,
    ) -> _Text:
        """Upload a local file, or register a file by URL, for the conversation.

        Args:
            conversation_id: From :meth:`create_conversation`.
            file_path: A local file, sent as multipart ``file`` under its base name.
            file_url: A URL the service fetches itself. Pass exactly one of the two.

        Returns:
            The file id, for ``run(..., file_ids=[...])``.

        Raises:
            InvalidRequestError: Both or neither source given, ``file_path`` is not a path,
                or the file is not readable.
            APIStatusError: The server refused (413 for a file over its limit).
            TransportError: No answer after all retries.
            ResponseDecodeError: The answer holds no file id.
        """
        return self._upload(lambda: self._upload_source(conversation_id, file_path, file_url))

    def upload_local_file(
        self, conversation_id: str, local_file_path: str | os.PathLike[str]
    ) -> _Text:
        """The official client's name for :meth:`upload_file` by path.

        Args:
            conversation_id: From :meth:`create_conversation`.
            local_file_path: The file.

        Returns:
            The file id.

        Raises:
            InvalidRequestError: ``local_file_path`` is not a path or not a readable file.
            AppClientError: The other errors of :meth:`upload_file`.
        """
        return self.upload_file(conversation_id, file_path=local_file_path)

    def feedback(
        self,
        conversation_id: str,
        message_id: str,
        type: FeedbackType,  # the protocol and the official client name it "type"
        *,
        flag: list[str] | None = None,
        reason: str | None = None,
    ) -> _Text:
        """Rate an answer of the app.

        Args:
            conversation_id: The conversation of the answer.
            message_id: The answer's ``message_id``.
            type: ``"upvote"``, ``"downvote"`` or ``"cancel"``.
            flag: Reasons picked from the app's list (downvotes).
            reason: Free-text reason.

        Returns:
            The request id of the server's acknowledgement.

        Raises:
            InvalidRequestError: An id is empty or ``type`` is not one of the three values.
            APIStatusError: The server refused.
            TransportError: No answer after all retries.
        """

        def body() -> bytes:  # built as sent, so its checks fail there (in the coroutine)
            return encode_json(
                feedback_body(
                    app_id=self.app_id,
                    conversation_id=conversation_id,
                    message_id=message_id,
                    type=type,
                    flag=flag,
                    reason=reason,
                )
            )

        return self._exchange(PATH_FEEDBACK, body, "the feedback answer", None)

    # --- what each client sends in its own way ----------------------------------------------

    def _exchange(
        self, path: str, body: Callable[[], bytes], what: str, field: str | None
    ) -> _Text:
        """Send a JSON ``body()`` (built as sent: checks fail there); :meth:`_read` the answer."""
        raise NotImplementedError

    def _upload(self, upload: Callable[[], Upload]) -> _Text:
        raise NotImplementedError

    def _send_run(
        self, conversation_id: str, query: str, stream: bool, options: Mapping[str, Any]
    ) -> Any:
        # Any: the async client's one coroutine is not one of the overloads' two results.
        raise NotImplementedError

    @staticmethod
    def _streaming(answers: _S) -> _S:
        note(request_id=answers.request_id, **{"run.status": "streaming"})
        return answers

    # --- bodies and answers ------------------------------------------------------------------

    def _run_body(
        self, conversation_id: str, query: str, stream: bool, options: Mapping[str, Any]
    ) -> bytes:
        if error := unexpected_options(options, RunOptions.__annotations__, where="run"):
            raise error
        return encode_json(
            run_body(
                app_id=self.app_id,
                conversation_id=conversation_id,
                query=query,
                stream=stream,
                **options,
            )
        )

    def _run_message(self, reply: _Reply, conversation_id: str) -> Message:
        secrets = self._transport.secrets()
        answer = parse_run_answer(
            reply.content,
            request_id=_request_id(reply),
            conversation_id=conversation_id,
            secrets=secrets,
        )
        note(
            request_id=answer.request_id,
            **{"run.status": "tool_calls" if answer.tool_calls else "answer"},
        )
        raise_for_error_event(answer, conversation_id=conversation_id, secrets=secrets)
        return Message(content=answer)

    def _upload_source(
        self,
        conversation_id: str,
        file_path: str | os.PathLike[str] | None,
        file_url: str | None,
    ) -> Upload:
        """The form fields and the source (a URL, or a readable file's path) of an upload."""
        require_text(conversation_id, name="conversation_id")
        if (file_path is None) == (file_url is None):
            raise InvalidRequestError("pass exactly one of file_path or file_url")
        form = {"app_id": self.app_id, "conversation_id": conversation_id}
        if file_path is None:
            return form, require_text(file_url, name="file_url")
        # os.fspath alone would let a file object or a number through as a bare TypeError, and
        # Path("") would be reported as the directory ".".
        name = os.fspath(file_path) if isinstance(file_path, (str, os.PathLike)) else None
        if not isinstance(name, str):
            raise wrong_kind("file_path", "a path (str or os.PathLike)", file_path)
        if not name:
            raise InvalidRequestError("file_path must not be empty")
        if not (path := Path(name)).is_file():
            raise InvalidRequestError(f"file_path {str(path)!r} is not a readable file")
        return form, path

    def _read(self, reply: _Reply, what: str, field: str | None = "id") -> str:
        """The text ``field`` of a JSON answer; with ``None``, the request id it acknowledges."""
        request_id = _request_id(reply)
        secrets = self._transport.secrets()
        body = read_json_object(reply.content, what=what, request_id=request_id, secrets=secrets)
        if field is None:
            return body_request_id(body) or request_id
        return required_text(body, field, what=what, request_id=request_id)


def open_upload(path: Path) -> tuple[str, BinaryIO]:
    """The name a file is uploaded under (its base name), and the file, open.

    Bytes of a name that are not UTF-8 (surrogates, which no header can carry) go as U+FFFD.
    """
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InvalidRequestError(f"file_path {str(path)!r} cannot be read: {exc}") from exc
    return os.fsencode(path.name).decode("utf-8", errors="replace"), handle


class _Reply(Protocol):
    """An HTTP 200 answer read whole, as both transports return it."""

    @property
    def content(self) -> bytes: ...

    @property
    def headers(self) -> Mapping[str, str]: ...


def _request_id(response: _Reply) -> str:
    return response.headers.get(HEADER_REQUEST_ID, "")
