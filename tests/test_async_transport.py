"""The async client's aiohttp transport keeps the sync transport's limits and errors."""

from __future__ import annotations

import sys

import pytest

from appclient import (
    AsyncAppClient,
    ConnectError,
    InvalidRequestError,
    ServerError,
)
from tests.async_support import FINAL, FIRST, run_scenario
from tests.client_fake_gateway import FakeGateway, Reply

MIB = 1024 * 1024


def _client(gateway: FakeGateway, **options: object) -> AsyncAppClient:
    return AsyncAppClient(
        "app",
        token="tok-async-transport",
        base_url=gateway.url,
        max_retries=0,
        **options,  # type: ignore[arg-type]
    )


def test_a_server_error_is_the_sync_clients_error() -> None:
    """A 500 with the protocol's error body raises ServerError with its code and message."""
    reply = Reply(status=500, body={"code": "Boom", "message": "it broke", "request_id": "r-1"})
    with (
        FakeGateway().add(reply) as gateway,
        pytest.raises(ServerError, match="it broke") as caught,
    ):
        run_scenario(_client(gateway).create_conversation)
    assert caught.value.code == "Boom"
    assert caught.value.request_id == "r-1"


def test_no_server_is_a_connect_error_naming_the_url() -> None:
    """Nothing listening: ConnectError saying what to check, after no retry."""
    client = AsyncAppClient("app", token="tok", base_url="http://127.0.0.1:9", max_retries=0)
    with pytest.raises(ConnectError, match=r"127\.0\.0\.1:9"):
        run_scenario(client.create_conversation)


def test_a_server_that_silently_drops_kept_connections_still_answers_every_run() -> None:
    """Streams read whole keep their connection; one the server closed is retried anew."""
    reply = Reply(sse=[FIRST, FINAL], chunked=True)  # closes after each stream, unannounced
    with FakeGateway(fallback=reply) as gateway:
        client = AsyncAppClient("app", token="tok-async-transport", base_url=gateway.url)

        async def scenario() -> list[str]:
            answers = []
            for _ in range(3):
                stream = await client.run("c1", "hi", stream=True)
                answers.append((await stream.collect()).answer)
            await client.aclose()
            return answers

        assert run_scenario(scenario) == ["北京"] * 3
    keys = {request.headers["Idempotency-Key"] for request in gateway.requests}
    assert len(keys) == 3  # a retried attempt repeats its run's key: no run was sent twice


def test_without_aiohttp_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """With aiohttp missing, making an AsyncAppClient says which extra to install."""
    monkeypatch.setitem(sys.modules, "aiohttp", None)
    monkeypatch.delitem(sys.modules, "appclient._async_transport", raising=False)
    with pytest.raises(InvalidRequestError, match=r"appclient\[async\]"):
        AsyncAppClient("app", token="tok", base_url="http://127.0.0.1:9")
