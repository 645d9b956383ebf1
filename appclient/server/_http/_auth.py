"""Who is calling: bearer tokens, compared in constant time, and the owner they stand for.

The rest of the server sees an *owner*: the token's SHA-256, safe to store and to log.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable


def generate_token() -> str:
    """Return a fresh random token (URL-safe text, 192 bits of randomness)."""
    return secrets.token_urlsafe(24)


def owner_of(token: str) -> str:
    """Return the owner fingerprint of a token (hex SHA-256; the token cannot be recovered)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def presented_token(header: str | None) -> str | None:
    """Return an ``Authorization`` header's token without its ``Bearer`` scheme, or ``None``."""
    if not header:
        return None
    value = header.strip()
    scheme, _, rest = value.partition(" ")
    if scheme.lower() == "bearer":
        value = rest.strip()
    return value or None


class TokenAuthority:
    """Checks presented tokens against the configured ones; ValueError for none or an empty one."""

    def __init__(self, tokens: Iterable[str]) -> None:
        # A token configured as "Bearer x" (how APPBUILDER_TOKEN may hold it) is the token
        # "x": clients send such a token as is, and the header's scheme is not the token.
        given = [presented_token(token) if isinstance(token, str) else None for token in tokens]
        accepted = [token for token in given if token is not None]
        if not given:
            raise ValueError("at least one token is needed")
        if len(accepted) != len(given):
            raise ValueError("tokens must be non-empty strings")
        self._tokens = [token.encode("utf-8") for token in accepted]
        self._owners = [owner_of(token) for token in accepted]

    def __repr__(self) -> str:
        return f"TokenAuthority(tokens=<{len(self._tokens)} hidden>)"

    def authenticate(self, header: str | None) -> str | None:
        """Return the owner for an ``Authorization`` header, or ``None`` if it is not valid.

        Every token is compared, so the time taken does not tell which one matched.
        """
        token = presented_token(header)
        if token is None:
            return None
        try:
            # WSGI gives header values as latin-1 text standing for the raw bytes.
            candidate = token.encode("latin-1")
        except UnicodeEncodeError:
            candidate = token.encode("utf-8", "surrogatepass")
        found: str | None = None
        for accepted, owner in zip(self._tokens, self._owners, strict=True):
            if hmac.compare_digest(candidate, accepted) and found is None:
                found = owner
        return found
