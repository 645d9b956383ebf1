"""AppClient.upload_file: which local sources are accepted, and the errors for the others."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import responses

from appclient import AppClient, InvalidRequestError

BASE = "http://127.0.0.1:8931"


@pytest.fixture
def client() -> Iterator[AppClient]:
    with AppClient("app-1", token="tok-upload-test", base_url=BASE, sleep=lambda _: None) as c:
        yield c


@pytest.mark.parametrize("file_path", [io.BytesIO(b"x"), 3, b"/tmp/a.txt"])
def test_upload_refuses_a_file_path_that_is_not_a_path(client: AppClient, file_path: Any) -> None:
    """A file object, number or bytes as file_path is an InvalidRequestError naming it."""
    with pytest.raises(InvalidRequestError, match="file_path must be a path"):
        client.upload_file("c1", file_path=file_path)


def test_upload_refuses_an_empty_file_path(client: AppClient) -> None:
    """An empty file_path is refused by name, not reported as the directory '.'."""
    with pytest.raises(InvalidRequestError, match="file_path must not be empty"):
        client.upload_file("c1", file_path="")


def test_upload_of_a_file_whose_name_is_not_utf8(client: AppClient, tmp_path: Path) -> None:
    """A legal but non-UTF-8 file name is uploaded under a readable name, not a crash."""
    path = tmp_path / os.fsdecode(b"caf\xe9.txt")
    try:
        path.write_bytes(b"hello")
    except (OSError, UnicodeError):  # pragma: no cover - file systems that insist on UTF-8
        pytest.skip("this file system refuses non-UTF-8 names")
    with responses.RequestsMock() as mock:
        mock.post(f"{BASE}/v2/app/conversation/file/upload", json={"id": "f-1"})
        assert client.upload_file("c1", file_path=path) == "f-1"
        body = mock.calls[0].request.body
    assert 'filename="caf\ufffd.txt"'.encode() in body
    assert b"hello" in body
