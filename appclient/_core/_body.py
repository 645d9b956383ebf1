"""A response body's bytes, from as sent to as meant, within a size limit (pure, no I/O).

The size limit is checked on the bytes as sent and as decoded. Decompressing here, not in
the HTTP library, bounds a compressed body: urllib3 and aiohttp inflate each read whole (one
64 KiB read of a gzip bomb could become 64 MB); here no step makes more than ``piece`` bytes.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from ._errors import ResponseDecodeError, ResponseTooLargeError

# gzip, or deflate as zlib (RFC 9110); 32 + MAX_WBITS detects either header by itself.
_WBITS = 32 + zlib.MAX_WBITS


class BodyReader:
    """Decode one body's ``Content-Encoding`` (gzip, deflate or none) ``piece`` bytes at a time.

    Past ``max_bytes`` (as sent or decoded; ``None``: no limit) it raises ResponseTooLargeError.
    """

    def __init__(self, encoding: str, *, max_bytes: int | None, piece: int = 64 * 1024) -> None:
        coding = encoding.strip().lower()
        if coding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            raise ResponseDecodeError(
                f"the answer has an unsupported Content-Encoding {encoding!r}"
            )
        self._coding = coding
        self._max_bytes = max_bytes
        self._piece = piece
        self._inflater = zlib.decompressobj(_WBITS) if coding not in ("", "identity") else None
        self._sent = 0
        self._decoded = 0

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        """Yield the decoded bytes of ``chunk``, at most ``piece`` at a time."""
        self._sent = self._count(self._sent, chunk)
        if self._inflater is None:
            if chunk:
                yield chunk
            return
        data = chunk
        while data:
            try:
                out = self._inflater.decompress(data, self._piece)
            except zlib.error as exc:
                raise self._corrupt(exc) from None
            if out:
                self._decoded = self._count(self._decoded, out)
                yield out
            if self._inflater.eof:  # a gzip body may hold several members: the next one
                data = self._inflater.unused_data
                self._inflater = zlib.decompressobj(_WBITS)
            else:
                data = self._inflater.unconsumed_tail

    def end(self) -> bytes:
        """Return what the decoder still holds once the body has ended."""
        if self._inflater is None:
            return b""
        try:
            out = self._inflater.flush()
        except zlib.error as exc:
            raise self._corrupt(exc) from None
        self._decoded = self._count(self._decoded, out)
        return out

    def _corrupt(self, exc: zlib.error) -> ResponseDecodeError:
        return ResponseDecodeError(f"the answer's {self._coding} body is corrupt: {exc}")

    def _count(self, total: int, chunk: bytes) -> int:
        total += len(chunk)
        if self._max_bytes is not None and total > self._max_bytes:
            raise ResponseTooLargeError(
                f"the response is larger than {self._max_bytes:,} bytes; raise the limit with "
                "AppClient(limits=appclient.Limits(...)) if this answer is expected"
            )
        return total
