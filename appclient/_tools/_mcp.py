"""MCP servers as local tools: connect, list their tools, run the agent's calls on them.

A server's tools keep their JSON Schema in a :class:`~appclient.ToolRegistry`, and their
calls go through its dispatcher like a function's. Each server runs its session on an event
loop in a thread of its own, so the sync and async round trips call it alike; the ``mcp``
package is imported only when a server starts.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import contextlib
import hashlib
import json
import mimetypes
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from .._core._constants import DEFAULT_TOOL_TIMEOUT, tool_name_problem
from .._core._errors import AppClientError, InvalidRequestError
from ._tool_results import ReportedFailure, ToolFile

if TYPE_CHECKING:
    from typing_extensions import Unpack


_MAX_NAME = 64
_UNFIT = re.compile(r"[^A-Za-z0-9_-]")


class MCPConnectionError(AppClientError):
    """An MCP server could not be started or reached, or stopped answering."""


def import_mcp() -> Any:
    """Import the ``mcp`` package, or raise InvalidRequestError naming the extra."""
    try:
        import mcp
    except ImportError as exc:
        raise InvalidRequestError(
            "MCP support needs the mcp package: pip install 'appclient[mcp]'"
        ) from exc
    return mcp


def protocol_names(
    names: Sequence[str], *, taken: Iterable[str] = (), prefix: str | None = None
) -> dict[str, str]:
    """Give MCP tool names protocol names.

    Characters outside ``[A-Za-z0-9_-]`` become ``_``, a name over 64 characters is cut and
    ends with a short hash, a taken name gets ``_2``, ``_3``...

    Args:
        names: The MCP tool names, in the server's listing order.
        taken: Names already in use (the registry's).
        prefix: Put ``prefix__`` before every name.

    Returns:
        Protocol name -> MCP name, in listing order.
    """
    used = set(taken)
    result: dict[str, str] = {}
    for name in names:
        base = _UNFIT.sub("_", f"{prefix}__{name}" if prefix else name) or "tool"
        if len(base) > _MAX_NAME:
            digest = hashlib.sha256(base.encode()).hexdigest()[:8]
            base = f"{base[: _MAX_NAME - 9]}_{digest}"
        candidate, number = base, 1
        while candidate in used:
            number += 1
            suffix = f"_{number}"
            candidate = base[: _MAX_NAME - len(suffix)] + suffix
        used.add(candidate)
        result[candidate] = name
    return result


def _file_from(data: str, mime_type: str, stem: str) -> ToolFile:
    extension = mimetypes.guess_extension(mime_type) or ".bin"
    return ToolFile(data=base64.b64decode(data), name=f"{stem}{extension}", mime_type=mime_type)


def result_value(result: Any) -> Any:
    """Turn an MCP ``CallToolResult`` into what a tool returns: text, JSON data or a file.

    Text parts are joined by blank lines; structured content without text is the value; an
    image, audio or blob resource alone is a :class:`~appclient.ToolFile`.

    Raises:
        ReportedFailure: The result says the call failed (``isError``).
    """
    texts: list[str] = []
    files: list[ToolFile] = []
    for part in result.content or []:
        kind = getattr(part, "type", "")
        if kind == "text":
            texts.append(part.text)
        elif kind in ("image", "audio"):
            files.append(_file_from(part.data, part.mimeType, kind))
        elif kind == "resource":
            resource = part.resource
            if getattr(resource, "text", None) is not None:
                texts.append(resource.text)
            else:
                mime_type = resource.mimeType or "application/octet-stream"
                files.append(_file_from(resource.blob, mime_type, "resource"))
        elif kind == "resource_link":
            link = {"uri": str(part.uri), "name": part.name, "mime_type": part.mimeType}
            texts.append(json.dumps(link, ensure_ascii=False))
    text = "\n\n".join(texts)
    if result.isError:
        raise ReportedFailure(text or "the MCP tool reported an error without a message")
    if len(files) == 1 and not text.strip():
        return files[0]
    if files:  # several files, or files and text: the agent reads what there is
        described = [json.loads(file.describe()) for file in files]
        return {"text": text, "files": described}
    if not text and result.structuredContent is not None:
        return result.structuredContent
    return text


class ServerOptions(TypedDict, total=False):
    """The options every MCP server takes, as :class:`MCPServer` describes them."""

    name: str | None
    timeout: float
    startup_timeout: float
    prefix: str | None


class MCPServer:
    """One MCP server's session, run on its own event loop thread (base class).

    Args:
        name: A label for errors and reprs.
        timeout: Seconds one call may take; a call with no answer by then ends the session.
        startup_timeout: Seconds to start the server and list its tools.
        prefix: Put ``prefix__`` before each of its tool names.
    """

    def __init__(
        self,
        *,
        name: str | None,
        timeout: float = DEFAULT_TOOL_TIMEOUT,
        startup_timeout: float = 30.0,
        prefix: str | None = None,
    ) -> None:
        if prefix is not None and tool_name_problem(f"{prefix}__x") is not None:
            raise InvalidRequestError(f"prefix {prefix!r} cannot start a tool name")
        self.name = name or ""
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.prefix = prefix
        #: Advertised name -> MCP tool name, filled when the registry adds the server.
        self.tool_names: dict[str, str] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._session: Any = None
        self._stop: asyncio.Event | None = None
        self._ended: concurrent.futures.Future[None] | None = None
        self._tools: list[Any] = []

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"{type(self).__name__}({self.name!r}, {state})"

    def __enter__(self) -> MCPServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _transport(self) -> Any:  # pragma: no cover - every subclass has one
        """The async context manager yielding the session's streams."""
        raise NotImplementedError

    @property
    def running(self) -> bool:
        """Whether the session is up (false before start, after close or after a crash)."""
        return self._ended is not None and not self._ended.done()

    def start(self) -> list[Any]:
        """Start the server (if it is not running) and return its MCP tools.

        Raises:
            MCPConnectionError: It did not start, or did not list its tools, in time.
            InvalidRequestError: The ``mcp`` package is not installed.
        """
        import_mcp()
        with self._lock:
            if self.running:
                return list(self._tools)
            self._shutdown()
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name=f"appclient-mcp-{self.name}", daemon=True
            )
            thread.start()
            self._loop, self._thread = loop, thread
            ready: concurrent.futures.Future[list[Any]] = concurrent.futures.Future()
            self._ended = asyncio.run_coroutine_threadsafe(self._serve(ready), loop)
            try:
                self._tools = ready.result(timeout=self.startup_timeout)
            except concurrent.futures.TimeoutError:
                self._shutdown()
                reason = f"did not start within {self.startup_timeout:g} s"
                raise MCPConnectionError(f"MCP server {self.name!r} {reason}") from None
            except Exception as exc:
                self._shutdown()
                raise MCPConnectionError(
                    f"MCP server {self.name!r} failed to start: {exc}"
                ) from exc
            return list(self._tools)

    async def _serve(self, ready: concurrent.futures.Future[list[Any]]) -> None:
        # One task owns the transport and the session from start to end: anyio's cancel
        # scopes must be left by the task that entered them.
        mcp = import_mcp()
        self._stop = asyncio.Event()
        try:
            async with self._transport() as streams, mcp.ClientSession(*streams[:2]) as session:
                await session.initialize()
                page = await session.list_tools()
                tools = list(page.tools)
                while page.nextCursor:  # the listing is paginated
                    page = await session.list_tools(cursor=page.nextCursor)
                    tools.extend(page.tools)
                self._session = session
                ready.set_result(tools)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
            if not isinstance(exc, Exception):
                raise
        finally:
            self._session = None

    def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """Call one MCP tool and return its :func:`result_value`; a stopped server restarts.

        Raises:
            MCPConnectionError: The server cannot be started, or the call got no answer
                (the server exited during the call, or took longer than ``timeout``).
            ReportedFailure: The tool answered with an error.
        """
        if not self.running:
            self.start()
        loop, session, ended = self._loop, self._session, self._ended
        if loop is None or session is None or ended is None:
            raise MCPConnectionError(f"MCP server {self.name!r} is not running")
        # One timer, this wait (a second one in the session raced it).
        call = asyncio.run_coroutine_threadsafe(session.call_tool(name, dict(arguments)), loop)
        done, _ = concurrent.futures.wait(
            [call, ended], timeout=self.timeout, return_when=concurrent.futures.FIRST_COMPLETED
        )
        if call not in done:
            call.cancel()
            self.close()  # killed if it hangs; the next call starts it again
            reason = "exited during the call" if ended in done else f"took over {self.timeout:g} s"
            raise MCPConnectionError(f"MCP server {self.name!r} {reason}")
        try:
            result = call.result()
        except Exception as exc:  # McpError: "Connection closed", a timeout, a protocol error
            self.close()  # the next call starts the server again
            raise MCPConnectionError(f"MCP server {self.name!r}: {exc}") from exc
        return result_value(result)

    def caller(self, mcp_name: str) -> Callable[..., Any]:
        """Return a function calling one of this server's tools (what the registry runs)."""

        def call_mcp_tool(**arguments: Any) -> Any:
            return self.call(mcp_name, arguments)

        call_mcp_tool.__name__ = re.sub(r"\W", "_", mcp_name) or "mcp_tool"
        call_mcp_tool.__qualname__ = call_mcp_tool.__name__
        return call_mcp_tool

    def close(self) -> None:
        """End the session and stop the server (a stdio server that hangs is killed)."""
        with self._lock:
            self._shutdown()

    def _shutdown(self) -> None:
        loop, thread, ended = self._loop, self._thread, self._ended
        if loop is None or thread is None:
            return
        stop = self._stop
        if stop is not None:
            loop.call_soon_threadsafe(stop.set)
        if ended is not None:
            # The transport closes stdin, then terminates and kills a server that stays.
            with contextlib.suppress(Exception):
                ended.result(timeout=10)
            ended.cancel()
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        if not thread.is_alive():
            loop.close()
        self._loop = self._thread = self._ended = self._stop = None


class MCPServerStdio(MCPServer):
    """An MCP server started as a subprocess that speaks MCP on stdin/stdout.

    Args:
        command: The program (``"python"``, ``"npx"``, a path).
        args: Its arguments.
        env: Its environment (the MCP package's safe default when ``None``).
        cwd: Its working directory.
        **options: :class:`ServerOptions` (the default name: the command and its first
            argument).
    """

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        **options: Unpack[ServerOptions],
    ) -> None:
        options["name"] = options.get("name") or " ".join([command, *args[:1]])
        super().__init__(**options)
        self.command, self.args = command, list(args)
        self.env = dict(env) if env is not None else None
        self.cwd = cwd

    def _transport(self) -> Any:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        parameters = StdioServerParameters(
            command=self.command, args=self.args, env=self.env, cwd=self.cwd
        )
        return stdio_client(parameters)


class MCPServerHTTP(MCPServer):
    """An MCP server reached over streamable HTTP.

    Args:
        url: Its endpoint (``http://127.0.0.1:8000/mcp``).
        headers: Headers for every request (an ``Authorization`` token); never shown in
            reprs or errors.
        **options: :class:`ServerOptions` (the default name: the URL).
    """

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        **options: Unpack[ServerOptions],
    ) -> None:
        options["name"] = options.get("name") or url
        super().__init__(**options)
        self.url = url
        self._headers = dict(headers or {})

    def _transport(self) -> Any:
        import httpx
        from mcp.client import streamable_http

        if not hasattr(streamable_http, "streamable_http_client"):  # mcp before 1.24
            return streamable_http.streamablehttp_client(
                self.url, headers=self._headers, timeout=self.timeout
            )

        @contextlib.asynccontextmanager
        async def transport() -> Any:
            # A long read timeout: the server may hold a response stream open.
            timeout = httpx.Timeout(30.0, read=max(300.0, self.timeout))
            async with (
                httpx.AsyncClient(headers=self._headers, timeout=timeout) as http,
                streamable_http.streamable_http_client(self.url, http_client=http) as streams,
            ):
                yield streams

        return transport()


def schema_check(schema: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], list[tuple[str, str]]]:
    """Return a check giving ``(field path, problem)`` per violation of an input schema."""
    import jsonschema

    validator = jsonschema.validators.validator_for(schema)(schema)

    def check(arguments: Mapping[str, Any]) -> list[tuple[str, str]]:
        return [
            ("/".join(str(step) for step in error.absolute_path) or "<arguments>", error.message)
            for error in validator.iter_errors(dict(arguments))
        ]

    return check
