"""AgentScope habits: status-bearing results, json_schemas by name, and the dispatch report."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import pytest

from appclient import ToolRegistry
from appclient._tools._tool_results import ReportedFailure, unwrap_status
from appclient.errors import ToolExecutionError


class ServiceExecStatus(IntEnum):
    """AgentScope's status enum, as its documentation shows it."""

    SUCCESS = 1
    ERROR = -1


class ServiceResponse(dict):  # type: ignore[type-arg] # the seed's shape: a dict subclass
    """AgentScope's result wrapper: a dict of ``status`` and ``content``."""

    def __init__(self, status: ServiceExecStatus, content: Any) -> None:
        super().__init__(status=status, content=content)


def create_file(file_path: str, content: str = "") -> ServiceResponse:
    """Create a file and write content to it.

    Args:
        file_path: The path of the file to create.
        content: What to write.
    """
    if file_path == "exists.txt":
        return ServiceResponse(ServiceExecStatus.ERROR, "FileExistsError: exists.txt exists")
    return ServiceResponse(ServiceExecStatus.SUCCESS, {"path": file_path, "bytes": len(content)})


def _call(file_path: str) -> Any:
    registry = ToolRegistry([create_file])
    call = {"id": "c1", "function": {"name": "create_file", "arguments": {"file_path": file_path}}}
    (record,) = registry.dispatch_records([call])
    return record


def test_an_error_status_is_reported_to_the_agent_as_a_failed_call() -> None:
    """A ServiceResponse with status ERROR is an error output naming its content."""
    record = _call("exists.txt")
    assert record.is_error
    assert isinstance(record.error, ToolExecutionError)
    assert record.output == "Error: tool 'create_file' failed: FileExistsError: exists.txt exists"


def test_a_success_status_sends_its_content() -> None:
    """A ServiceResponse with status SUCCESS sends its content, unwrapped, as JSON."""
    record = _call("new.txt")
    assert not record.is_error
    assert record.output == '{"path": "new.txt", "bytes": 0}'


@pytest.mark.parametrize(
    "value",
    [
        {"status": "error", "content": "x", "id": 3},  # more than status and content: data
        {"status": 500, "content": "x"},  # a number is not a status word
        {"status": "pending", "content": "x"},  # an unknown word is left alone
    ],
)
def test_ordinary_data_that_looks_alike_is_left_alone(value: dict[str, Any]) -> None:
    """Only a mapping of exactly status and content, with a status word, is unwrapped."""
    assert unwrap_status(value) == value


def test_string_statuses_count_too() -> None:
    """A plain "error" string status fails the call, whatever its case."""
    with pytest.raises(ReportedFailure, match="disk full"):
        unwrap_status({"status": "ERROR", "content": "disk full"})


def test_json_schemas_gives_each_tool_by_name() -> None:
    """registry.json_schemas is AgentScope's ServiceToolkit.json_schemas: name to tool."""
    schemas = ToolRegistry([create_file]).json_schemas
    assert list(schemas) == ["create_file"]
    assert schemas["create_file"]["function"]["parameters"]["required"] == ["file_path"]


def test_a_dispatch_report_reads_like_agentscopes_parse_and_call_func() -> None:
    """The model's JSON list of calls runs, and each gets arguments, status and result."""
    report = ToolRegistry([create_file]).dispatch_report(
        '[{"name": "create_file", "arguments": {"file_path": "exists.txt"}},'
        ' {"name": "create_file", "arguments": {"file_path": "a.txt"}}]'
    )
    assert report == (
        "1. Execute function create_file\n"
        "    [ARGUMENTS]:\n        file_path: exists.txt\n"
        "    [STATUS]: ERROR\n"
        "    [RESULT]: Error: tool 'create_file' failed: FileExistsError: exists.txt exists\n"
        "2. Execute function create_file\n"
        "    [ARGUMENTS]:\n        file_path: a.txt\n"
        "    [STATUS]: SUCCESS\n"
        '    [RESULT]: {"path": "a.txt", "bytes": 0}'
    )
