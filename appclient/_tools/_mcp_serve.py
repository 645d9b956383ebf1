"""Local tools as an MCP server: ``appclient mcp serve FILE[:NAME]`` and :func:`serve_mcp`.

Every call goes through :class:`~appclient.ToolRegistry`; a failure is an error result, a
returned file image, audio or blob content.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._core._constants import DEFAULT_SERVER_HOST
from .._core._errors import AppClientError
from .._manifest._command import resolve_reference
from ._mcp import import_mcp
from ._registry import ToolRegistry
from ._tool_results import ToolFile

DESCRIPTION = """\
Serve Python functions as an MCP server, over stdio or streamable HTTP.

  appclient mcp serve tools.py                 every @manifest function of tools.py
  appclient mcp serve mypackage.tools:registry  a ToolRegistry (or a function)
  appclient mcp serve tools.py --http --port 8000   http://127.0.0.1:8000/mcp
"""


class _ToolFailed(Exception):  # noqa: N818 - the MCP server turns it into an error result
    """A call that failed: its message is the error output the host's model reads."""


def _file_content(file: ToolFile) -> Any:
    types = import_mcp().types
    data = file.data if file.data is not None else Path(file.path or "").read_bytes()
    encoded = base64.b64encode(data).decode("ascii")
    if file.mime_type.startswith("image/"):
        return types.ImageContent(type="image", data=encoded, mimeType=file.mime_type)
    if file.mime_type.startswith("audio/"):
        return types.AudioContent(type="audio", data=encoded, mimeType=file.mime_type)
    blob = types.BlobResourceContents(
        uri=f"file:///{file.name}", mimeType=file.mime_type, blob=encoded
    )
    return types.EmbeddedResource(type="resource", resource=blob)


def build_server(tools: Any, *, name: str = "appclient") -> Any:
    """Return the ``mcp`` package's low-level ``Server`` for what a registry takes."""
    types = import_mcp().types  # first: without mcp, the error names the extra
    from mcp.server.lowlevel import Server

    registry = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
    server = Server(name)

    @server.list_tools()  # type: ignore[misc, untyped-decorator, no-untyped-call, unused-ignore]
    async def list_tools() -> list[Any]:
        return [
            types.Tool(
                name=tool["function"]["name"],
                description=tool["function"].get("description") or "",
                inputSchema=tool["function"]["parameters"],
            )
            for tool in registry.tools()
        ]

    @server.call_tool(validate_input=False)  # type: ignore[misc, untyped-decorator, unused-ignore]
    async def call_tool(tool_name: str, arguments: dict[str, Any]) -> list[Any]:
        # In a thread, so a slow tool does not stop the server's loop.
        record = await asyncio.to_thread(registry, tool_name, arguments)
        if record.is_error:
            raise _ToolFailed(record.output)
        if record.file is not None:
            return [_file_content(record.file)]
        return [types.TextContent(type="text", text=record.output)]

    return server


def serve_mcp(
    tools: Any,
    *,
    transport: str = "stdio",
    host: str = DEFAULT_SERVER_HOST,
    port: int = 8000,
    name: str = "appclient",
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve tools as an MCP server until interrupted.

    Args:
        tools: Functions, toolkits, groups or a registry, or a list of them.
        transport: ``"stdio"`` or ``"http"`` (streamable HTTP at ``/mcp``).
        host: The HTTP address (loopback unless told otherwise).
        port: The HTTP port (0 picks a free one).
        name: The server name the host sees.
        on_ready: Called with the HTTP URL once it accepts connections.

    Raises:
        InvalidRequestError: The ``mcp`` package is missing, or a tool is not usable.
        ValueError: An unknown transport.
    """
    server = build_server(tools, name=name)
    if transport == "stdio":
        asyncio.run(_serve_stdio(server))
    elif transport == "http":
        asyncio.run(_serve_http(server, host=host, port=port, on_ready=on_ready))
    else:
        raise ValueError(f"transport must be 'stdio' or 'http', not {transport!r}")


async def _serve_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


async def _serve_http(
    server: Any, *, host: str, port: int, on_ready: Callable[[str], None] | None
) -> None:
    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Mount

    manager = StreamableHTTPSessionManager(app=server)

    async def endpoint(scope: Any, receive: Any, send: Any) -> None:
        await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> Any:
        async with manager.run():
            yield

    app = Starlette(routes=[Mount("/mcp", app=endpoint)], lifespan=lifespan)
    web = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    serving = asyncio.create_task(web.serve())
    while not web.started and not serving.done():
        await asyncio.sleep(0.01)  # uvicorn offers no event for "listening"
    if web.started:
        bound = web.servers[0].sockets[0].getsockname()[1]
        url = f"http://{host}:{bound}/mcp"
        print(f"MCP server listening on {url}", file=sys.stderr, flush=True)
        if on_ready is not None:
            on_ready(url)
    await serving


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``appclient mcp`` options to its parser."""
    parser.add_argument("action", choices=["serve"], help="what to do (serve)")
    parser.add_argument(
        "reference",
        metavar="FILE[:NAME]",
        help="a Python file or module, and a function or ToolRegistry in it (default: every "
        "@manifest function)",
    )
    parser.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    parser.add_argument("--host", default=DEFAULT_SERVER_HOST, help="HTTP address (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (0: a free one)")
    parser.add_argument("--name", default="appclient", help="the server name hosts see")


def run(args: argparse.Namespace) -> int:
    """Run ``appclient mcp serve``; return the exit status (2 for a bad reference)."""
    try:
        tools = resolve_reference(args.reference)
        serve_mcp(
            tools,
            transport="http" if args.http else "stdio",
            host=args.host,
            port=args.port,
            name=args.name,
        )
    except AppClientError as exc:
        print(f"appclient mcp: {exc}", file=sys.stderr)
        return 2
    return 0
