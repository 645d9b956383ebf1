"""Status-bearing tool results (AgentScope's ServiceResponse and the like) are understood."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import pytest

from appclient import ToolExecutionError, ToolRegistry
from appclient._tool_results import ReportedFailure, unwrap_status


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
