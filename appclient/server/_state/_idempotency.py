"""``Idempotency-Key``: a retried request gets the first answer instead of running twice.

Keys are scoped to the caller's owner fingerprint. A repeat gets the stored answer back byte
for byte (streams included, with the original request id); the same key with a different
request (compared parsed, not as bytes) is a 422, and a repeat while the first still runs a
409 with ``Retry-After: 1``. Only successes are stored: a failed request releases its key.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from ..._core._constants import HEADER_IDEMPOTENCY_KEY
from .._http._responses import HTTPProblem, Response
from .._settings import DEFAULT_RUN_LEASE_SECONDS, MAX_IDEMPOTENCY_KEY_LENGTH
from ._state import StoredResponse
from ._store import Store, lease_owner_id

_log = logging.getLogger("appclient.server")

#: Header set on a replayed answer, so tests and logs can tell replays apart.
REPLAY_HEADER = "Idempotent-Replayed"


def fingerprint(path: str, payload: Any) -> str:
    """Return a digest of a request's path and parsed content (key order does not matter)."""
    canonical = json.dumps([path, payload], sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def check_key(key: str | None) -> str | None:
    """Return the key if it is usable, ``None`` when absent; 400 when malformed."""
    key = (key or "").strip()
    if not key:
        return None
    if len(key) > MAX_IDEMPOTENCY_KEY_LENGTH or not key.isprintable():
        raise HTTPProblem(
            400,
            "InvalidParameter",
            f"{HEADER_IDEMPOTENCY_KEY}: at most {MAX_IDEMPOTENCY_KEY_LENGTH} printable characters",
        )
    return key


def stored_response(response: Response, body: bytes | None = None) -> StoredResponse:
    """Return ``response`` as kept for replays (``body``: a live stream's whole body)."""
    stream = response.chunks is not None
    if body is None:
        body = b"".join(response.chunks) if response.chunks is not None else response.body
    return StoredResponse(response.status, response.request_id, response.content_type, body, stream)


def _replay(stored: StoredResponse) -> Response:
    pieces = stored.body.split(b"\n\n") if stored.stream else ()
    return Response(
        status=stored.status,
        request_id=stored.request_id,
        body=b"" if stored.stream else stored.body,
        chunks=tuple(piece + b"\n\n" for piece in pieces if piece) if stored.stream else None,
        content_type=stored.content_type,
        headers=((REPLAY_HEADER, "true"),),
    )


class IdempotencyGuard:
    """Runs a request at most once per idempotency key (see :meth:`Store.reserve_key`)."""

    def __init__(
        self,
        store: Store,
        *,
        stale_after: float = DEFAULT_RUN_LEASE_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._stale_after = stale_after
        self._clock = clock

    def serve(
        self,
        *,
        key: str | None,
        owner: str,
        request_fingerprint: str,
        produce: Callable[[str | None], Response],
    ) -> Response:
        """Return the stored answer for a repeated key, or ``produce()`` and store it.

        ``produce`` gets the owner-scoped key (``None`` without a key), so a run can keep its
        answer in the same transaction as its writes (:meth:`Store.commit_run`).

        Raises:
            HTTPProblem: 409 while the first request runs, 422 for a reused key.
        """
        if key is None:
            return produce(None)
        scoped = f"{owner}:{key}"
        reservation = self._store.reserve_key(
            scoped,
            request_fingerprint,
            now=self._clock(),
            stale_after=self._stale_after,
            holder=lease_owner_id(),
        )
        if reservation.outcome == "replay" and reservation.response is not None:
            return _replay(reservation.response)
        if reservation.outcome == "busy":
            raise HTTPProblem(
                409,
                "IdempotencyKeyInUse",
                f"{HEADER_IDEMPOTENCY_KEY}: a request with this key is still running",
                headers={"Retry-After": "1"},
            )
        if reservation.outcome == "mismatch":
            raise HTTPProblem(
                422,
                "IdempotencyKeyReused",
                f"{HEADER_IDEMPOTENCY_KEY}: this key was used for a different request",
            )
        try:
            response = produce(scoped)
        except BaseException:
            self._store.release_key(scoped)
            raise
        if response.status != 200:
            self._store.release_key(scoped)
            return response
        if isinstance(response.chunks, Iterator):  # a live run: keep it once it has all gone
            return replace(response, chunks=self._kept_as_it_streams(scoped, response))
        self._keep(scoped, response, None)
        return response

    def _kept_as_it_streams(self, scoped: str, response: Response) -> Iterator[bytes]:
        """Pass a live stream on, and keep it once it has all gone (or release the key)."""
        sent: list[bytes] = []
        chunks = iter(response.chunks or ())
        try:
            for chunk in chunks:
                sent.append(chunk)
                yield chunk
        except GeneratorExit:
            # The client went away mid-stream, but the run goes on (its tool outputs may be
            # applied already): read it to the end and keep it, so the client's resend with
            # the same key reads the rest from the replay instead of being refused.
            try:
                sent.extend(chunks)
            except Exception:
                self._store.release_key(scoped)
                raise
            self._keep(scoped, response, b"".join(sent))
            raise
        except BaseException:
            self._store.release_key(scoped)  # the run failed: a retry runs (and streams) again
            raise
        self._keep(scoped, response, b"".join(sent))

    def _keep(self, scoped: str, response: Response, body: bytes | None) -> None:
        try:
            # A run kept its answer when it committed; this keeps the others' (a no-op then).
            self._store.complete_key(scoped, stored_response(response, body))
        except Exception:
            # The work is done and saved: answer it. The key stays reserved, so a repeat
            # gets 409 until the reservation goes stale instead of running a second time.
            message = "request %s: its answer could not be kept for replays"
            _log.warning(message, response.request_id, exc_info=True)
