"""The transport under AppClient: configuration parsing, secrets, the first-attempt fast path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import responses

from appclient import AuthenticationError, InvalidRequestError
from appclient._clients._http_transport import Transport
from appclient._clients._transport_base import parse_base_url
from appclient._core._limits import Limits, Timeout, parse_timeout
from appclient.errors import ServerError

BASE = "http://127.0.0.1:8936"
TOKEN = "tok-transport-test-3141"


@pytest.fixture
def mock() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        yield rsps


def _transport(sleeps: list[float], max_retries: int = 2) -> Transport:
    return Transport(
        token=TOKEN,
        base_url=BASE,
        timeout=Timeout(1.0, 2.0),
        limits=Limits(),
        max_retries=max_retries,
        session=None,
        sleep=sleeps.append,
    )


def test_parse_timeout_defaults_and_pairs() -> None:
    """None gives the defaults, a number both limits, a pair each limit."""
    assert parse_timeout(None) == Timeout()
    assert parse_timeout(2) == Timeout(connect=2.0, read=2.0)
    assert parse_timeout((1, 30.5)) == Timeout(connect=1.0, read=30.5)


def test_parse_base_url_strips_and_keeps_a_path_prefix() -> None:
    """Whitespace and trailing slashes go; a mount path behind a proxy stays."""
    assert parse_base_url(" http://127.0.0.1:8000/mount/ ") == "http://127.0.0.1:8000/mount"


def test_parse_base_url_refuses_non_strings() -> None:
    """A non-string base URL is refused with its type."""
    with pytest.raises(InvalidRequestError, match="must be a string"):
        parse_base_url(8000)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "base_url", ["http://127.0.0.1:99999", "http://127.0.0.1:port", "http://[::1"]
)
def test_parse_base_url_refuses_a_malformed_host_or_port(base_url: str) -> None:
    """A bad port or IPv6 literal is refused naming base_url, not sent (and retried) later."""
    with pytest.raises(InvalidRequestError, match="base_url"):
        parse_base_url(base_url)


@pytest.mark.parametrize("base_url", ["http://api..example.com", "http://.", "http://" + "a" * 64])
def test_parse_base_url_refuses_a_host_with_a_bad_label(base_url: str) -> None:
    """An empty or over-long host label is refused (urllib3 raised its own error on each call)."""
    with pytest.raises(InvalidRequestError, match="base_url"):
        parse_base_url(base_url)


def test_parse_base_url_names_the_environment_variable_it_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bad $GATEWAY_URL_V2 is reported under that name (the caller passed no base_url)."""
    monkeypatch.setenv("GATEWAY_URL_V2", "ftp://qianfan.baidubce.com")
    with pytest.raises(InvalidRequestError, match=r"\$GATEWAY_URL_V2 must be an http\(s\) URL"):
        parse_base_url(None)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("qianfan.baidubce.com", "https://qianfan.baidubce.com"),
        ("127.0.0.1:8080/", "https://127.0.0.1:8080"),
        (" http://127.0.0.1:8080/ ", "http://127.0.0.1:8080"),
    ],
)
def test_a_host_without_a_scheme_means_https(given: str, expected: str) -> None:
    """A gateway written without a scheme gets https://, as the official SDKs do."""
    assert parse_base_url(given) == expected


@pytest.mark.parametrize("base_url", ["http:/127.0.0.1:8080", "https:/qianfan.baidubce.com"])
def test_a_scheme_with_one_slash_is_refused_not_taken_for_a_host(base_url: str) -> None:
    """``http:/host`` is a typo reported as such, not turned into ``https://http:/host``."""
    with pytest.raises(InvalidRequestError, match="base_url") as caught:
        parse_base_url(base_url)
    assert "://" in str(caught.value)
    assert "https://http" not in str(caught.value)


def test_repr_and_secrets() -> None:
    """The repr shows no token; secrets() lists the raw token and the header value."""
    transport = _transport([])
    assert TOKEN not in repr(transport)
    assert transport.secrets() == (TOKEN, f"Bearer {TOKEN}")


def test_an_echoed_bearer_token_is_scrubbed_without_its_prefix(
    mock: responses.RequestsMock,
) -> None:
    """For a token given as 'Bearer <key>', an error body echoing the bare key hides it."""
    transport = Transport(
        token=f"Bearer {TOKEN}",
        base_url=BASE,
        timeout=Timeout(1.0, 2.0),
        limits=Limits(),
        max_retries=0,
        session=None,
        sleep=lambda _: None,
    )
    body = {"code": "AuthFailed", "message": f"key {TOKEN} is unknown"}
    mock.post(f"{BASE}/v2/app/conversation", json=body, status=401)
    with pytest.raises(AuthenticationError) as caught:
        transport.send("/v2/app/conversation", json_body=b"{}")
    assert TOKEN not in str(caught.value)


def test_a_netrc_entry_for_the_host_does_not_replace_the_token(
    mock: responses.RequestsMock, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A ~/.netrc entry for the host neither replaces the Bearer token nor has its password sent."""
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login alice password hunter2\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    mock.post(f"{BASE}/v2/app/conversation", json={"conversation_id": "c"})
    _transport([]).send("/v2/app/conversation", json_body=b"{}")
    assert mock.calls[0].request.headers["Authorization"] == f"Bearer {TOKEN}"


def test_success_on_the_first_attempt_skips_the_retry_loop(
    mock: responses.RequestsMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request that succeeds at once never enters tenacity."""
    transport = _transport([])

    def no_loop(*args: object, **kwargs: object) -> None:
        raise AssertionError("the retry loop ran")

    monkeypatch.setattr(transport, "_retrying", no_loop)
    mock.post(f"{BASE}/v2/app/conversation", json={"conversation_id": "c"})
    assert transport.send("/v2/app/conversation", json_body=b"{}").status_code == 200


def test_retry_loop_counts_the_first_attempt(mock: responses.RequestsMock) -> None:
    """After a failed first attempt the loop makes at most max_retries more."""
    sleeps: list[float] = []
    transport = _transport(sleeps, max_retries=2)
    mock.post(f"{BASE}/v2/app/conversation", json={}, status=500)
    with pytest.raises(ServerError):
        transport.send("/v2/app/conversation", json_body=b"{}")
    assert len(mock.calls) == 3
    assert len(sleeps) == 2


def test_transport_refuses_bad_max_retries() -> None:
    """max_retries must be a non-negative int."""
    with pytest.raises(InvalidRequestError, match="max_retries"):
        _transport([], max_retries=-1)
