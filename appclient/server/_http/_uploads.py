"""Uploaded files on disk: one data directory, server-chosen names, a size limit.

A file is written under its random file id, never the client's name, through a temporary
name renamed into place.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import weakref
from pathlib import Path

from .._settings import DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_MAX_UPLOAD_TOTAL_BYTES
from ._responses import HTTPProblem

_MAX_NAME_CHARS = 255


def display_name(filename: str) -> str:
    """Return the last path segment of a client's file name, trimmed to a sane length."""
    name = filename.replace("\\", "/").rsplit("/", 1)[-1].strip()
    name = "".join(char for char in name if char.isprintable())
    return name[:_MAX_NAME_CHARS] or "file"


def _remove_directory(directory: str, creator_pid: int) -> None:
    # A worker forked from the creator (gunicorn --preload) shares the directory: only the
    # process that made it removes it.
    if os.getpid() == creator_pid:
        shutil.rmtree(directory, ignore_errors=True)


class UploadStorage:
    """Stores uploaded bytes in ``directory``, or a temporary one.

    At most ``max_bytes`` a file and ``max_total_bytes`` in all (what the directory held
    when opened included; counted per process).
    """

    def __init__(
        self,
        directory: str | Path | None = None,
        *,
        max_bytes: int = DEFAULT_MAX_UPLOAD_BYTES,
        max_total_bytes: int = DEFAULT_MAX_UPLOAD_TOTAL_BYTES,
    ) -> None:
        self.max_bytes = max_bytes
        self.max_total_bytes = max_total_bytes
        self._lock = threading.Lock()
        self._remove_temporary = None
        if directory is None:
            directory = tempfile.mkdtemp(prefix="appclient-uploads-")
            # Removed on close(), or when the storage is collected or the process exits
            # without close() (a WSGI server never closes the app it serves).
            self._remove_temporary = weakref.finalize(
                self, _remove_directory, directory, os.getpid()
            )
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._total = sum(path.stat().st_size for path in self.directory.glob("*.bin"))

    def __repr__(self) -> str:
        return (
            f"UploadStorage({str(self.directory)!r}, max_bytes={self.max_bytes}, "
            f"max_total_bytes={self.max_total_bytes})"
        )

    def check_size(self, size: int) -> None:
        """Raise the 413 problem when ``size`` bytes are over the limit."""
        if size > self.max_bytes:
            raise HTTPProblem(
                413,
                "PayloadTooLarge",
                f"file: {size} bytes is over the upload limit of {self.max_bytes} bytes",
            )

    def save(self, file_id: str, data: bytes) -> str:
        """Write ``data`` as the file of ``file_id`` and return its stored name.

        Raises:
            HTTPProblem: 413 for a file over ``max_bytes``; 507 when the stored files would
                pass ``max_total_bytes``.
        """
        self.check_size(len(data))
        with self._lock:
            if self._total + len(data) > self.max_total_bytes:
                raise HTTPProblem(
                    507,
                    "InsufficientStorage",
                    f"file: the server's upload space of {self.max_total_bytes:,} bytes is full",
                )
            self._total += len(data)
        stored_as = f"{file_id}.bin"
        handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".upload-")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.replace(temporary, self.path(stored_as))
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            with self._lock:
                self._total -= len(data)
            raise
        return stored_as

    def remove(self, stored_as: str) -> None:
        """Delete a stored file (gone already, or none: ``""``, is fine)."""
        if not stored_as:
            return
        path = self.path(stored_as)
        with self._lock, contextlib.suppress(FileNotFoundError):
            size = path.stat().st_size
            path.unlink()
            self._total -= size

    def path(self, stored_as: str) -> Path:
        """Return the path of a stored file."""
        return self.directory / stored_as

    def close(self) -> None:
        """Remove the directory if this storage created it."""
        if self._remove_temporary is not None:
            self._remove_temporary()
