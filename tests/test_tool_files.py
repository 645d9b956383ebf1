"""Typed results: a tool returns a file, the round trip uploads it and names it to the agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from appclient import AppClient, ToolFile, ToolRegistry
from appclient.server import PlannedCall
from appclient.testing import ReferenceServer, ScriptedAgent

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


def draw_chart(title: str) -> ToolFile:
    """Draw a chart.

    Args:
        title: The chart's title.
    """
    return ToolFile(data=PNG, name=f"{title}.png")


def _round_trip(tool: object, **server_options: object) -> tuple[str, ReferenceServer, str]:
    agent = ScriptedAgent([PlannedCall("draw_chart", {"title": "sales"}), "done"])
    with (
        ReferenceServer(agent=agent, **server_options) as server,  # type: ignore[arg-type]
        AppClient(server.app_id, token=server.token, base_url=server.url) as client,
    ):
        result = client.run_until_answer(query="draw it", tools=[tool])
        files = server.app.store.files(result.conversation_id)
    (call,) = result.tool_calls
    return call.output, server, json.dumps([f.name for f in files])


def test_a_returned_file_is_uploaded_and_named_to_the_agent() -> None:
    """The output names the uploaded file by id, name, type and size; the server has it."""
    output, _, files = _round_trip(draw_chart)
    described = json.loads(output)
    assert described["type"] == "file"
    assert described["file_id"]
    assert (described["name"], described["mime_type"], described["size"]) == (
        "sales.png",
        "image/png",
        len(PNG),
    )
    assert json.loads(files) == ["sales.png"]


def test_a_file_on_disk_is_uploaded_under_its_own_name(tmp_path: Path) -> None:
    """ToolFile(path=...) takes its name and type from the path."""
    report = tmp_path / "report.pdf"
    report.write_bytes(b"%PDF-1.4 tiny")

    def draw_chart(title: str) -> ToolFile:
        """Draw a chart.

        Args:
            title: The chart's title.
        """
        return ToolFile(path=report)

    output, _, _ = _round_trip(draw_chart)
    described = json.loads(output)
    assert (described["name"], described["mime_type"]) == ("report.pdf", "application/pdf")


def test_a_file_that_cannot_be_uploaded_is_a_failed_call_the_agent_reads() -> None:
    """Over the server's upload limit, the call fails with a reason and the round goes on."""
    output, _, files = _round_trip(draw_chart, max_upload_bytes=8)
    assert output.startswith("Error: tool 'draw_chart' returned the file 'sales.png'")
    assert json.loads(files) == []


def test_dispatch_alone_describes_the_file_and_keeps_it_on_the_record() -> None:
    """Without a conversation to upload to, the output describes the file; the record holds it."""
    registry = ToolRegistry([draw_chart])
    (record,) = registry.dispatch_records(
        [{"id": "1", "function": {"name": "draw_chart", "arguments": {"title": "q3"}}}]
    )
    assert json.loads(record.output) == {
        "type": "file",
        "name": "q3.png",
        "mime_type": "image/png",
        "size": len(PNG),
    }
    assert record.file is not None
    assert record.file.data == PNG


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [({}, "exactly one"), ({"data": b"x"}, "needs a name"), ({"path": "a", "data": b"x"}, "one")],
)
def test_a_tool_file_must_say_what_it_holds(arguments: dict[str, object], problem: str) -> None:
    """ToolFile needs a path or data (and a name with data)."""
    with pytest.raises(TypeError, match=problem):
        ToolFile(**arguments)  # type: ignore[arg-type]


def test_the_async_round_trip_uploads_a_returned_file_too() -> None:
    """AsyncAppClient.run_until_answer names the uploaded file the same way."""
    import asyncio

    from appclient import AsyncAppClient

    agent = ScriptedAgent([PlannedCall("draw_chart", {"title": "sales"}), "done"])

    async def main(server: ReferenceServer) -> str:
        async with AsyncAppClient(server.app_id, token=server.token, base_url=server.url) as client:
            result = await client.run_until_answer(query="draw it", tools=[draw_chart])
        return result.tool_calls[0].output

    with ReferenceServer(agent=agent) as server:
        output = asyncio.run(main(server))
    assert json.loads(output)["file_id"]
