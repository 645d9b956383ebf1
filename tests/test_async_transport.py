"""The async client's aiohttp transport keeps the sync transport's limits and errors."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import aiohttp
import pytest

from appclient import AsyncAppClient, InvalidRequestError, RunError
from appclient.errors import ConnectError, ServerError, StreamInterruptedError
from appclient.types import AsyncRunStream
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
    monkeypatch.delitem(sys.modules, "appclient._clients._async_transport", raising=False)
    with pytest.raises(InvalidRequestError, match=r"appclient\[async\]"):
        AsyncAppClient("app", token="tok", base_url="http://127.0.0.1:9")


RUNNING = {"answer": "part", "content": [{"event_status": "running"}]}
DONE = {"answer": "ok", "content": [{"event_status": "success"}], "is_completion": True}


async def _no_wait(seconds: float) -> None:
    """A retry wait that passes no time."""


def test_a_stream_cut_mid_way_is_resent_and_its_replay_read_on() -> None:
    """A stream cut after two messages is sent again with its key; the replay's rest is read."""
    cut = Reply(sse=[RUNNING, RUNNING, DONE], cut_after=2)
    replay = Reply(sse=[RUNNING, RUNNING, DONE])
    with FakeGateway().add(cut, replay) as gateway:
        client = AsyncAppClient("app", token="tok-a", base_url=gateway.url, sleep=_no_wait)

        async def scenario() -> str:
            async with client:
                stream = await client.run("c1", "hi", stream=True)
                return (await stream.collect()).answer

        assert run_scenario(scenario) == "partpartok"
        keys = [request.headers["Idempotency-Key"] for request in gateway.requests]
    assert len(keys) == 2
    assert len(set(keys)) == 1


def test_a_resent_stream_that_differs_is_not_spliced() -> None:
    """When the resent run answers differently (no replay), the cut is reported."""
    reply = Reply(sse=[RUNNING, RUNNING, DONE], cut_after=2)
    with FakeGateway(fallback=Reply(sse=[DONE])).add(reply) as gateway:
        client = AsyncAppClient("app", token="tok-a", base_url=gateway.url, sleep=_no_wait)

        async def scenario() -> str:
            async with client:
                stream = await client.run("c1", "hi", stream=True)
                with pytest.raises(StreamInterruptedError, match="answered differently"):
                    await stream.collect()
                return stream.answer

        assert run_scenario(scenario) == "partpart"
        assert len(gateway.requests) == 2


def test_a_retried_upload_sends_the_whole_file_again(tmp_path: Path) -> None:
    """A 500 to an upload is retried, and the second attempt carries the whole file."""
    path = tmp_path / "report.txt"
    path.write_bytes(b"line one\nline two\n")
    failed = Reply(status=500, body={"code": "Boom", "message": "try again"})
    stored = Reply(body={"request_id": "r", "id": "file-1"})
    with FakeGateway().add(failed, stored) as gateway:
        client = AsyncAppClient("app", token="tok-a", base_url=gateway.url, sleep=_no_wait)

        async def scenario() -> str:
            async with client:
                return await client.upload_file("c1", path)

        assert run_scenario(scenario) == "file-1"
        bodies = [request.body for request in gateway.requests]
    assert len(bodies) == 2
    assert all(b"line one\nline two\n" in body for body in bodies)
    assert all(b'filename="report.txt"' in body for body in bodies)


def test_a_callers_decompressing_session_still_reads_gzip_once() -> None:
    """A session of the caller's with aiohttp's own decompression on still reads gzip right."""
    body = gzip.compress(json.dumps({"conversation_id": "c-own"}).encode())
    reply = Reply(body=body, headers={"Content-Encoding": "gzip"})
    with FakeGateway().add(reply) as gateway:

        async def scenario() -> str:
            async with aiohttp.ClientSession() as session:  # auto_decompress=True
                client = AsyncAppClient("app", token="tok-a", base_url=gateway.url, session=session)
                return await client.create_conversation()

        assert run_scenario(scenario) == "c-own"


def test_a_json_error_to_a_stream_request_is_an_async_stream_raising_run_error() -> None:
    """The hosted service's HTTP 200 JSON error to a stream request: async for raises RunError."""
    reply = Reply(body={"request_id": "r", "code": "AppNotPublished", "message": "publish it"})
    with FakeGateway().add(reply) as gateway:
        client = _client(gateway)

        async def scenario() -> None:
            async with await client.run("c1", "hi", stream=True) as stream:
                assert isinstance(stream, AsyncRunStream)
                with pytest.raises(RunError, match="AppNotPublished: publish it"):
                    async for _ in stream:
                        pass

        run_scenario(scenario)


def test_the_clients_own_session_goes_through_the_proxy_the_environment_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """$HTTP_PROXY is used as requests would use it; $NO_PROXY hosts go direct.

    The proxied host is never resolved by the client (the fake proxy answers for it).
    """
    created = Reply(body={"request_id": "r", "conversation_id": "c-proxied"})
    with FakeGateway().add(created) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        for name in ("http_proxy", "no_proxy", "all_proxy", "ALL_PROXY"):
            monkeypatch.delenv(name, raising=False)
        client = _client_for("http://gateway.invalid:8000")
        assert run_scenario(client.create_conversation) == "c-proxied"
        direct = _client_for("http://127.0.0.1:9")  # bypassed: refused, no proxy asked
        with pytest.raises(ConnectError):
            run_scenario(direct.create_conversation)
    assert [request.path for request in proxy.requests] == [
        "http://gateway.invalid:8000/v2/app/conversation"
    ]


def _client_for(base_url: str) -> AsyncAppClient:
    return AsyncAppClient("app", token="tok-a", base_url=base_url, max_retries=0)
