"""Local tools as an MCP server: ``appclient mcp serve`` listed and called by mcp's client."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

TOOLS = str(Path(__file__).parent / "mcp" / "local_tools.py")
REPO = Path(__file__).resolve().parents[1]


def _command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "appclient.cli", "mcp", "serve", *arguments]


async def _session_calls(streams: Any, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    async with ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        listed = await session.list_tools()
        results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return listed.tools, results


def _over_stdio(reference: str, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    command = _command(reference)
    parameters = StdioServerParameters(
        command=command[0], args=command[1:], env={"PYTHONPATH": str(REPO)}, cwd=str(REPO)
    )

    async def main() -> Any:
        async with stdio_client(parameters) as streams:
            return await _session_calls(streams, calls)

    return asyncio.run(main())


def test_mcp_serve_lists_the_manifest_functions_and_validates_calls() -> None:
    """Over stdio: the @manifest functions are listed; "3" reaches the function as 3."""
    tools, (ok, bad) = _over_stdio(
        TOOLS, [("repeat", {"text": "ab", "times": "3"}), ("repeat", {"text": "ab"})]
    )
    assert sorted(tool.name for tool in tools) == ["chart", "repeat"]
    repeat = next(tool for tool in tools if tool.name == "repeat")
    assert repeat.inputSchema["properties"]["times"]["type"] == "integer"
    assert ok.content[0].text == "ababab"
    assert not ok.isError
    assert bad.isError
    assert "'times': missing required argument" in bad.content[0].text


def test_a_returned_file_is_image_content() -> None:
    """A ToolFile with an image type reaches the host as image content."""
    _, (result,) = _over_stdio(TOOLS, [("chart", {})])
    assert result.content[0].type == "image"
    assert result.content[0].mimeType == "image/png"


def test_a_registry_keeps_its_bound_values_hidden() -> None:
    """file.py:registry serves that registry: bound parameters are neither listed nor echoed."""
    tools, (result,) = _over_stdio(f"{TOOLS}:registry", [("secret_search", {"query": "x"})])
    search = next(tool for tool in tools if tool.name == "secret_search")
    assert "api_key" not in search.inputSchema["properties"]
    assert result.content[0].text == "x: 3 hits (10-character key)"


@pytest.fixture
def http_server() -> Iterator[str]:
    """``appclient mcp serve --http --port 0`` in a subprocess; yields its URL."""
    process = subprocess.Popen(  # noqa: S603 - this interpreter, fixed arguments
        _command(TOOLS, "--http", "--port", "0"),
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": ""},
    )
    assert process.stderr is not None
    url = ""
    for line in process.stderr:
        if "MCP server listening on" in line:
            url = line.rsplit(" ", 1)[1].strip()
            break
    try:
        assert url.startswith("http://127.0.0.1:")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stderr.close()


def test_mcp_serve_over_http_is_listed_and_called(http_server: str) -> None:
    """Over streamable HTTP, bound to 127.0.0.1: listed and called by mcp's client."""

    async def main() -> Any:
        async with streamable_http_client(http_server) as streams:
            return await _session_calls(streams, [("repeat", {"text": "x", "times": 2})])

    tools, (result,) = asyncio.run(main())
    assert "repeat" in [tool.name for tool in tools]
    assert result.content[0].text == "xx"


def test_a_bad_reference_is_a_one_line_error() -> None:
    """A file without tools is exit status 2 and one line, not a traceback."""
    done = subprocess.run(  # noqa: S603 - this interpreter, fixed arguments
        _command(f"{TOOLS}:nothing"), capture_output=True, text=True, cwd=REPO, check=False
    )
    assert done.returncode == 2
    assert done.stderr.startswith("appclient mcp: ")


def test_mcp_serve_without_the_extra_names_it() -> None:
    """Without mcp installed, the command says which extra to install, in one line."""
    code = (
        "import sys; sys.modules['mcp'] = None\n"
        "from appclient.cli import main\n"
        f"sys.exit(main(['mcp', 'serve', {TOOLS!r}]))\n"
    )
    done = subprocess.run(  # noqa: S603 - this interpreter, fixed code
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "appclient mcp: MCP support needs the mcp package: pip install 'appclient[mcp]'"
    )
