"""One registered tool: secrets to redact, partial-bound values, advertised tool dicts."""

from __future__ import annotations

import functools

import pytest
from pydantic import SecretStr

from appclient import ToolError, ToolRegistry
from appclient._tools._registered_tool import advertised_tool, partial_values, secret_texts
from tests.seed import SEED_WEATHER_TOOL


def _search(query: str, api_key: str, region: str) -> str:
    """Search the intranet."""
    return query


def test_secret_texts_unwrap_secret_str_and_skip_short_values() -> None:
    """SecretStr values are unwrapped; short or non-text values are not redacted."""
    assert secret_texts([SecretStr("sk-abcdef"), "en", 42, "long-key"]) == ("sk-abcdef", "long-key")


def test_partial_values_collect_every_layer() -> None:
    """Positional and keyword values of nested partials are all found."""
    inner = functools.partial(_search, api_key="k-1234")
    outer = functools.partial(inner, region="north")
    assert sorted(partial_values(outer)) == ["k-1234", "north"]


def test_advertised_tool_takes_the_registered_name() -> None:
    """A ready-made tool dict is advertised under the name it was registered with."""
    tool = advertised_tool(SEED_WEATHER_TOOL, "weather_now")
    assert tool["function"]["name"] == "weather_now"
    assert tool["function"]["parameters"] == SEED_WEATHER_TOOL["function"]["parameters"]


def test_repr_hides_bound_values() -> None:
    """A registered tool's repr names its bound parameters but never their values."""
    entry = ToolRegistry().add(_search, api_key="sk-secret-123", region="north")
    assert "sk-secret-123" not in repr(entry)
    assert "api_key" in repr(entry)


def test_secret_escaped_in_a_json_result_is_redacted() -> None:
    """A bound password with a quote or backslash is hidden in its JSON-escaped form too."""
    password = 'pa"ss\\w0rd-long'

    def login(user: str, password: str) -> dict[str, str]:
        """Echo the credentials back, as a careless tool might."""
        return {"user": user, "password": password}

    registry = ToolRegistry()
    registry.add(login, password=password)
    call = {"id": "c", "function": {"name": "login", "arguments": {"user": "u"}}}
    [output] = registry.dispatch([call])
    assert output.output == '{"user": "u", "password": "***"}'


def test_bound_bytes_value_is_redacted() -> None:
    """A key bound as bytes is hidden from outputs like a key bound as text."""

    def sign(payload: str, key: bytes) -> str:
        """Echo the key back, as a careless tool might."""
        return f"signed {payload} with {key.decode()}"

    registry = ToolRegistry()
    registry.add(sign, key=b"hmac-key-0123456789")
    call = {"id": "c", "function": {"name": "sign", "arguments": {"payload": "p"}}}
    [output] = registry.dispatch([call])
    assert output.output == "signed p with ***"


def test_secret_texts_find_values_inside_bound_containers() -> None:
    """Texts inside a bound dict, list or tuple are secrets too; the dict's keys are not."""
    bound = [{"Authorization": "Bearer sk-inner-1"}, ["north", ("user", SecretStr("pw-4567"))]]
    found = set(secret_texts(bound))
    assert {"Bearer sk-inner-1", "north", "user", "pw-4567"} <= found
    assert "Authorization" not in found


def test_secret_inside_bound_headers_is_redacted_from_errors() -> None:
    """A tool failing with its bound headers in the message does not show the token."""

    def fetch(url: str, headers: dict[str, str]) -> str:
        """Fetch a page."""
        raise RuntimeError(f"401 from {url} with {headers}")

    registry = ToolRegistry()
    registry.add(fetch, headers={"Authorization": "Bearer sk-inner-1"})
    call = {"id": "c", "function": {"name": "fetch", "arguments": {"url": "u"}}}
    [output] = registry.dispatch([call])
    assert "sk-inner-1" not in output.output


def test_secret_percent_encoded_in_a_url_is_redacted() -> None:
    """A bound key with '/' or '+' is hidden in its percent-encoded form (in a URL) too."""
    key = "wJalr/K7MDENG+bPxRfiCY"

    def fetch(path: str, api_key: str) -> str:
        """Fetch a page, failing with the URL as an HTTP library reports it."""
        from urllib.parse import quote, quote_plus

        raise RuntimeError(
            f"403 for /v1/{path}?key={quote(api_key, safe='')}&k={quote_plus(api_key)}"
        )

    registry = ToolRegistry()
    registry.add(fetch, api_key=key)
    call = {"id": "c", "function": {"name": "fetch", "arguments": {"path": "p"}}}
    [output] = registry.dispatch([call])
    assert "K7MDENG" not in output.output


def test_secret_cut_short_in_a_pydantic_error_is_redacted() -> None:
    """A long bound key in a pydantic error, shown cut as start...end, shows neither part."""
    from pydantic import BaseModel

    key = "sk-" + "A1b2C3d4" * 8

    class Config(BaseModel):
        port: int

    def connect(host: str, api_key: str) -> str:
        """Connect, validating a config the key was put in by mistake."""
        Config(port=api_key)  # the mistake under test: a text where a number belongs
        return host

    registry = ToolRegistry()
    registry.add(connect, api_key=key)
    call = {"id": "c", "function": {"name": "connect", "arguments": {"host": "h"}}}
    [output] = registry.dispatch([call])
    assert "int_parsing" in output.output
    assert "A1b2C3d4A1b2" not in output.output


def test_a_bound_number_is_redacted_from_errors() -> None:
    """A PIN bound as an int is hidden when the tool's error quotes it."""

    def unlock(door: str, pin: int) -> str:
        """Unlock a door."""
        raise PermissionError(f"pin {pin} rejected for {door}")

    registry = ToolRegistry()
    registry.add(unlock, pin=918273)
    call = {"id": "c", "function": {"name": "unlock", "arguments": {"door": "front"}}}
    [output] = registry.dispatch([call])
    assert "918273" not in output.output
    assert "front" in output.output


class _Creds:
    def __init__(self, key: str) -> None:
        self.key = key

    def __repr__(self) -> str:
        return f"_Creds({self.key!r})"


def test_a_bound_object_is_redacted_by_its_repr_and_attributes() -> None:
    """An object bound as a value is hidden whether the tool shows its repr or its fields."""

    def call_api(path: str, creds: _Creds) -> str:
        """Call the API."""
        return f"{path}: {creds!r} / {creds.key}"

    registry = ToolRegistry()
    registry.add(call_api, creds=_Creds("sk-object-secret-42"))
    call = {"id": "c", "function": {"name": "call_api", "arguments": {"path": "/v1"}}}
    [output] = registry.dispatch([call])
    assert "sk-object-secret-42" not in output.output
    assert output.output.startswith("/v1: ")


def test_a_bound_number_is_redacted_from_raised_errors() -> None:
    """With raise_on_error, the raised ToolError does not show a bound number either."""

    def unlock(door: str, pin: int) -> str:
        """Unlock a door."""
        raise PermissionError(f"pin {pin} rejected")

    registry = ToolRegistry()
    registry.add(unlock, pin=918273)
    call = {"id": "c", "function": {"name": "unlock", "arguments": {"door": "front"}}}
    with pytest.raises(ToolError) as caught:
        registry.dispatch([call], raise_errors=True)
    assert "918273" not in str(caught.value)
