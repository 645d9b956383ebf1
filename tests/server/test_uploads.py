"""Uploaded files go into the data directory under server-chosen names, within a limit."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from appclient.server._http._responses import HTTPProblem
from appclient.server._http._uploads import UploadStorage, display_name
from tests.server.helpers import forks


@pytest.mark.parametrize(
    ("sent", "shown"),
    [
        ("hello 测试.txt", "hello 测试.txt"),
        ("../../etc/passwd", "passwd"),
        ("C:\\Users\\me\\a.pdf", "a.pdf"),
        ("", "file"),
        ("bad\x00name", "badname"),
    ],
)
def test_display_name_keeps_only_the_last_segment(sent: str, shown: str) -> None:
    """Directories and control characters are dropped from client file names."""
    assert display_name(sent) == shown


def test_files_are_stored_under_their_id(tmp_path: Path) -> None:
    """Data lands in the directory under the file id, never the client's name."""
    storage = UploadStorage(tmp_path, max_bytes=10)
    stored = storage.save("abc", b"12345")
    assert stored == "abc.bin"
    assert storage.path(stored).read_bytes() == b"12345"
    assert [p.name for p in tmp_path.iterdir()] == ["abc.bin"]


def test_oversize_file_is_a_413(tmp_path: Path) -> None:
    """A file over the limit is refused with 413 and nothing is written."""
    storage = UploadStorage(tmp_path, max_bytes=3)
    with pytest.raises(HTTPProblem) as caught:
        storage.save("abc", b"1234")
    assert caught.value.status == 413
    assert list(tmp_path.iterdir()) == []


def test_past_the_total_limit_a_file_is_a_507_until_one_is_removed(tmp_path: Path) -> None:
    """Stored files, those already in the directory included, may take max_total_bytes."""
    (tmp_path / "old.bin").write_bytes(b"1234")
    storage = UploadStorage(tmp_path, max_total_bytes=10)
    storage.save("a", b"12345")
    with pytest.raises(HTTPProblem) as caught:
        storage.save("b", b"12")
    assert (caught.value.status, caught.value.code) == (507, "InsufficientStorage")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.bin", "old.bin"]
    storage.remove("old.bin")
    storage.remove("old.bin")  # gone already: nothing more is freed
    assert storage.save("b", b"12345") == "b.bin"
    with pytest.raises(HTTPProblem):  # full again: the second remove freed nothing
        storage.save("c", b"1")


def test_temporary_directory_is_removed_on_close() -> None:
    """Without a directory, a temporary one is made and removed on close."""
    storage = UploadStorage()
    directory = storage.directory
    storage.save("x", b"1")
    storage.close()
    assert not directory.exists()


def test_given_directory_is_kept_on_close(tmp_path: Path) -> None:
    """A directory the caller chose is not removed."""
    storage = UploadStorage(tmp_path / "data")
    storage.close()
    assert (tmp_path / "data").is_dir()


def test_temporary_directory_is_removed_even_without_close() -> None:
    """An app that is never closed (a WSGI server's worker) leaves no temporary folder."""
    storage = UploadStorage()
    directory = storage.directory
    storage.save("x", b"1")
    del storage
    gc.collect()
    assert not directory.exists()


def test_temporary_directory_is_removed_at_exit(tmp_path: Path) -> None:
    """A process that exits without close() removes its temporary upload folder."""
    code = (
        "from appclient.server._http._uploads import UploadStorage\n"
        "storage = UploadStorage()\n"
        "storage.save('x', b'1')\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    # S603 below: the command is this interpreter running a fixed script, with no shell.
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)  # noqa: S603
    assert not list(tmp_path.glob("appclient-uploads-*"))


@forks
def test_forked_worker_leaves_the_shared_temporary_directory_alone() -> None:
    """A forked worker (gunicorn --preload) exiting does not remove its parent's folder."""
    storage = UploadStorage()
    pid = os.fork()
    if pid == 0:
        storage.close()
        os._exit(0)
    os.waitpid(pid, 0)
    assert storage.directory.is_dir()
    storage.close()
