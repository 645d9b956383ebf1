"""Bearer tokens: parsing, constant-time checking, owner fingerprints, no leaks."""

from __future__ import annotations

import pytest

from appclient.server._http._auth import TokenAuthority, generate_token, owner_of, presented_token


@pytest.mark.parametrize(
    ("header", "token"),
    [
        ("Bearer abc", "abc"),
        ("bearer abc", "abc"),
        ("BEARER   abc  ", "abc"),
        ("abc", "abc"),
        ("Bearer bce-v3/ALTAK-xxxx/yyyy", "bce-v3/ALTAK-xxxx/yyyy"),
        ("", None),
        (None, None),
        ("Bearer ", None),
    ],
)
def test_presented_token(header: str | None, token: str | None) -> None:
    """The Bearer scheme (any case) is removed; a bare token is taken as is."""
    assert presented_token(header) == token


def test_configured_tokens_authenticate_to_their_owner() -> None:
    """Each configured token maps to its own owner fingerprint; others fail."""
    authority = TokenAuthority(["one", "two"])
    assert authority.authenticate("Bearer one") == owner_of("one")
    assert authority.authenticate("Bearer two") == owner_of("two")
    assert authority.authenticate("Bearer three") is None
    assert authority.authenticate(None) is None
    assert authority.authenticate("Bearer on") is None


def test_already_prefixed_secret_key_is_accepted() -> None:
    """The official client's 'Bearer already-prefixed' secret key authenticates."""
    assert TokenAuthority(["already-prefixed"]).authenticate("Bearer already-prefixed")


def test_token_configured_with_its_bearer_prefix_is_accepted() -> None:
    """A token configured as 'Bearer x' (as APPBUILDER_TOKEN may hold it) accepts 'Bearer x'."""
    authority = TokenAuthority(["Bearer bce-v3/key"])
    assert authority.authenticate("Bearer bce-v3/key") == owner_of("bce-v3/key")


def test_non_ascii_header_does_not_crash() -> None:
    """A header with unusual characters is simply not a valid token."""
    assert TokenAuthority(["tok"]).authenticate("Bearer \u4f60\u597d") is None


def test_owner_is_a_fingerprint_not_the_token() -> None:
    """The owner never contains the token."""
    owner = owner_of("secret-token")
    assert "secret-token" not in owner
    assert len(owner) == 64


@pytest.mark.parametrize("tokens", [[], [""], ["  "]])
def test_empty_token_lists_are_refused(tokens: list[str]) -> None:
    """At least one non-empty token is required."""
    with pytest.raises(ValueError, match="token"):
        TokenAuthority(tokens)


def test_repr_hides_tokens() -> None:
    """The authority's repr never shows a token."""
    assert "s3cret" not in repr(TokenAuthority(["s3cret"]))


def test_generated_tokens_are_random_and_long() -> None:
    """Generated tokens differ and carry enough randomness."""
    first, second = generate_token(), generate_token()
    assert first != second
    assert len(first) >= 32
