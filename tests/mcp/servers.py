"""Small MCP servers for the tests, written with the mcp package's FastMCP.

``python servers.py KIND [--http PORT]``: ``files`` (a note store and a picture), ``crash``
(a tool that ends the process), ``hang`` (a tool that never answers; the pid is written to
the file named by ``MCP_TEST_PID_FILE``), ``many`` (200 tools). Over stdio unless ``--http``.
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys
import threading

from mcp.server.fastmcp import FastMCP, Image

#: A 1x1 PNG.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def build(kind: str) -> FastMCP:
    """The server of one kind."""
    server = FastMCP(f"test-{kind}")
    notes: dict[str, str] = {"todo": "buy milk", "ideas": "an MCP bridge"}

    @server.tool(name="read.note")
    def read_note(title: str) -> str:
        """Read a note by its title."""
        if title not in notes:
            raise ValueError(f"no note titled {title!r}")
        return notes[title]

    @server.tool()
    def count_words(text: str, minimum: int = 0) -> dict[str, int]:
        """Count the words of a text."""
        return {"words": len(text.split()), "minimum": minimum}

    meeting = {"arrived": 0, "both": asyncio.Event()}

    @server.tool()
    async def meet(name: str) -> str:
        """Wait until a second call of meet has arrived too (only parallel calls meet)."""
        meeting["arrived"] += 1
        if meeting["arrived"] >= 2:
            meeting["both"].set()
        await asyncio.wait_for(meeting["both"].wait(), timeout=10)
        return f"{name} met"

    @server.tool()
    def picture() -> Image:
        """Draw a picture."""
        return Image(data=PIXEL, format="png")

    if kind == "crash":

        @server.tool()
        def crash() -> str:
            """End the server process at once."""
            os._exit(3)

    if kind == "hang":

        @server.tool()
        def hang() -> str:
            """Never answer."""
            threading.Event().wait()
            return "never"

        pid_file = os.environ.get("MCP_TEST_PID_FILE")
        if pid_file:
            with open(pid_file, "w") as handle:
                handle.write(str(os.getpid()))

    if kind == "many":
        for index in range(200):

            def make(number: int):
                def tool(x: int) -> int:
                    return x + number

                tool.__doc__ = f"Add {number} to x."
                return tool

            server.tool(name=f"add_{index}")(make(index))
    return server


if __name__ == "__main__":
    kind = sys.argv[1]
    mcp_server = build(kind)
    if "--http" in sys.argv:
        mcp_server.settings.port = int(sys.argv[sys.argv.index("--http") + 1])
        mcp_server.run("streamable-http")
    else:
        mcp_server.run("stdio")
