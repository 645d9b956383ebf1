"""MCP servers as local tools: stdio and HTTP servers in round trips, failures, names."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp", reason="the mcp extra is not installed")

from appclient import AppClient, AsyncAppClient, ToolRegistry  # noqa: E402
from appclient.mcp import MCPServerHTTP, MCPServerStdio, protocol_names  # noqa: E402
from appclient.server import PlannedCall  # noqa: E402
from appclient.testing import ReferenceServer, ScriptedAgent  # noqa: E402

SERVERS = str(Path(__file__).parent / "mcp" / "servers.py")


def stdio(kind: str, **options: object) -> MCPServerStdio:
    return MCPServerStdio(sys.executable, [SERVERS, kind], **options)  # type: ignore[arg-type]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """A FastMCP server of the "files" kind over streamable HTTP, in a subprocess."""
    port = _free_port()
    process = subprocess.Popen(  # noqa: S603 - this interpreter, fixed arguments
        [sys.executable, SERVERS, "files", "--http", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:  # uvicorn says when it listens
        if "Uvicorn running" in line or "Application startup complete" in line:
            break
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stderr.close()


def _round_trip(registry: ToolRegistry, call: PlannedCall, *, stream: bool) -> str:
    agent = ScriptedAgent([call, ScriptedAgent.echo_outputs("Found: {outputs}")])
    with (
        ReferenceServer(agent=agent) as server,
        AppClient(server.app_id, token=server.token, base_url=server.url) as client,
    ):
        result = client.run_until_answer(
            query="read the todo note", tools=[registry], stream=stream
        )
    return result.answer


@pytest.mark.parametrize("stream", [False, True])
def test_a_stdio_servers_tool_answers_the_agent(stream: bool) -> None:
    """A round trip calls a tool of a stdio MCP server; the answer carries its result."""
    with ToolRegistry([stdio("files")]) as registry:
        answer = _round_trip(registry, PlannedCall("read_note", {"title": "todo"}), stream=stream)
    assert answer == "Found: buy milk"


@pytest.mark.parametrize("stream", [False, True])
def test_an_http_servers_tool_answers_the_agent(http_url: str, stream: bool) -> None:
    """A round trip calls a tool of a streamable-HTTP MCP server, plain and streamed."""
    with ToolRegistry([MCPServerHTTP(http_url)]) as registry:
        answer = _round_trip(registry, PlannedCall("read_note", {"title": "ideas"}), stream=stream)
    assert answer == "Found: an MCP bridge"


def test_the_async_round_trip_calls_mcp_tools_too() -> None:
    """AsyncAppClient.run_until_answer runs an MCP tool with the same registry."""
    agent = ScriptedAgent(
        [PlannedCall("count_words", {"text": "one two three"}), ScriptedAgent.echo_outputs()]
    )

    async def main(url: str, token: str, app_id: str, registry: ToolRegistry) -> str:
        async with AsyncAppClient(app_id, token=token, base_url=url) as client:
            result = await client.run_until_answer(query="count", tools=[registry])
        return result.answer

    with ReferenceServer(agent=agent) as server, ToolRegistry([stdio("files")]) as registry:
        answer = asyncio.run(main(server.url, server.token, server.app_id, registry))
    assert json.loads(answer)["words"] == 3


def test_tools_are_advertised_with_their_own_schema_under_protocol_names() -> None:
    """An MCP tool named read.note is read_note, with the input schema the server gave."""
    server = stdio("files")
    with ToolRegistry([server]) as registry:
        tools = {tool["function"]["name"]: tool["function"] for tool in registry.tools()}
    assert server.tool_names["read_note"] == "read.note"
    assert tools["read_note"]["description"] == "Read a note by its title."
    assert tools["read_note"]["parameters"]["properties"]["title"]["type"] == "string"
    assert tools["count_words"]["parameters"]["required"] == ["text"]


def test_bad_arguments_are_refused_before_the_server_is_asked() -> None:
    """Arguments that break the tool's schema are an error output naming the field."""
    with ToolRegistry([stdio("files")]) as registry:
        record = registry("read_note", {"title": 3})
        assert record.is_error
        assert "'title': 3 is not of type 'string'" in record.output
        assert registry("read_note", {"title": "todo"}).output == "buy milk"


def test_an_error_the_tool_reports_is_an_error_output() -> None:
    """The tool's own error (isError) reaches the agent as a failed call with its text."""
    with ToolRegistry([stdio("files")]) as registry:
        record = registry("read_note", {"title": "nothing"})
    assert record.is_error
    assert "no note titled 'nothing'" in record.output


def test_an_unknown_tool_is_an_error_output_naming_the_tools() -> None:
    """A call of a name the server does not have lists the names there are."""
    with ToolRegistry([stdio("files")]) as registry:
        record = registry("read_notes", {"title": "todo"})
    assert record.is_error
    assert "Did you mean 'read_note'" in record.output


def test_a_crash_is_an_error_output_and_the_server_starts_again() -> None:
    """A server that dies mid-call gives that call an error; the next call restarts it."""
    with ToolRegistry([stdio("crash")]) as registry:
        crashed = registry("crash")
        assert crashed.is_error
        assert "Connection closed" in crashed.output
        assert registry("read_note", {"title": "todo"}).output == "buy milk"


def test_a_hang_times_out_and_the_hung_server_is_killed(tmp_path: Path) -> None:
    """A call that never answers times out; the server is ended and the next call works."""
    pid_file = tmp_path / "pid"
    env = {**os.environ, "MCP_TEST_PID_FILE": str(pid_file)}
    with ToolRegistry([stdio("hang", env=env, timeout=0.5)]) as registry:
        hung = registry("hang")
        assert hung.is_error
        assert "took over 0.5 s" in hung.output
        first = int(pid_file.read_text())
        assert registry("read_note", {"title": "todo"}).output == "buy milk"
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)  # the hung process is gone


def test_two_hundred_tools_are_listed_and_callable() -> None:
    """A server with 200 tools: all advertised (the listing is paginated), the last runs."""
    with ToolRegistry([stdio("many")]) as registry:
        names = registry.names()
        assert len([name for name in names if name.startswith("add_")]) == 200
        assert registry("add_199", {"x": 1}).output == "200"


def test_an_image_result_is_a_returned_file() -> None:
    """An image content becomes a file, uploaded by the round trip like a ToolFile."""
    with ToolRegistry([stdio("files")]) as registry:
        record = registry("picture")
    assert record.file is not None
    assert record.file.mime_type == "image/png"


def test_closing_the_registry_stops_its_servers() -> None:
    """The registry's context closes its MCP servers."""
    server = stdio("files")
    with ToolRegistry([server]):
        assert server.running
    assert not server.running


def test_names_that_break_the_rule_or_collide_are_renamed_predictably() -> None:
    """Other characters become _, long names are cut with a hash, collisions get _2, _3."""
    names = protocol_names(["read.file", "read file", "x" * 80, "get"], taken=["read_file"])
    assert names["read_file_2"] == "read.file"
    assert names["read_file_3"] == "read file"
    assert names["get"] == "get"
    long_name = next(name for name, original in names.items() if original == "x" * 80)
    assert len(long_name) == 64
    assert long_name.startswith("x" * 55)
    assert list(protocol_names(["a"], prefix="fs")) == ["fs__a"]


def test_nothing_imports_mcp_until_it_is_used() -> None:
    """Importing appclient (and appclient.mcp) leaves mcp unimported."""
    code = (
        "import sys, appclient, appclient.mcp, appclient.server, appclient.testing\n"
        "assert 'mcp' not in sys.modules, 'mcp was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)  # noqa: S603 - fixed code


def test_without_the_extra_using_mcp_names_it() -> None:
    """With mcp missing, starting a server says which extra to install."""
    code = (
        "import sys; sys.modules['mcp'] = None\n"
        "from appclient.mcp import MCPServerStdio\n"
        "from appclient import InvalidRequestError\n"
        "try:\n"
        "    MCPServerStdio('python').start()\n"
        "except InvalidRequestError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(  # noqa: S603 - fixed code
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert "pip install 'appclient[mcp]'" in done.stdout


def test_mcp_tools_can_require_approval() -> None:
    """add_mcp(..., requires_approval=True): a declined call is an error output, nothing ran."""
    asked: list[str] = []

    def decline(request: object) -> bool:
        asked.append(getattr(request, "tool_name", ""))
        return False

    with ToolRegistry(approve=decline) as registry:
        registry.add_mcp(stdio("files"), requires_approval=True)
        record = registry("read_note", {"title": "todo"})
    assert asked == ["read_note"]
    assert record.is_error
    assert "the user declined to run tool 'read_note'" in record.output


def test_calls_of_one_round_run_in_parallel() -> None:
    """Two calls in one round reach the server together (each waits for the other)."""
    calls = [
        {"id": str(n), "function": {"name": "meet", "arguments": {"name": name}}}
        for n, name in enumerate(["ann", "bob"])
    ]
    with ToolRegistry([stdio("files")]) as registry:
        outputs = [output.output for output in registry.dispatch(calls)]
    assert outputs == ["ann met", "bob met"]
