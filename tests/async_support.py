"""Helpers of the AsyncAppClient tests: a one-thread executor, a scenario runner, waits."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import aiohttp

from appclient._tools._async_loop import ROUND_TRIP_THREAD_PREFIX

T = TypeVar("T")
QUERY = "今天北京天气怎么样？"
FIRST = {"answer": "北京", "content": [{"event_status": "running"}]}
SECOND = {"answer": "25度", "content": [{"event_status": "running"}]}
FINAL = {"answer": "", "is_completion": True, "content": [{"event_status": "success"}]}


def get_current_weather(location: str, unit: str = "celsius") -> str:
    """Weather of a city.

    Args:
        location: The city.
        unit: The unit.
    """
    return f"{location}今天25度"


class OneWorker(ThreadPoolExecutor):
    """A default executor of one thread that counts the calls it has started."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.started = 0

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Schedule ``fn`` and count it when it starts."""

        def counted() -> T:
            self.started += 1
            return fn(*args, **kwargs)

        return super().submit(counted)


def run_scenario(scenario: Callable[[], Awaitable[T]], *, executor: OneWorker | None = None) -> T:
    """Run a scenario with a one-thread default executor, so a blocked worker is visible."""

    async def main() -> T:
        asyncio.get_running_loop().set_default_executor(executor or OneWorker())
        return await scenario()

    return asyncio.run(main())


async def worker_is_free() -> bool:
    """Whether the one worker thread can take new work (it is not stuck on a socket)."""
    loop = asyncio.get_running_loop()
    # A bound for the failure case only, below the fake gateway's 10 s gate timeout.
    await asyncio.wait_for(loop.run_in_executor(None, lambda: None), timeout=5)
    return True


async def until(condition: Callable[[], bool]) -> int:
    """Let the loop turn until ``condition`` holds; return how many turns it took."""
    turns = 0
    while not condition():
        turns += 1
        assert turns < 1_000_000, "the condition never held"
        await asyncio.sleep(0)
    return turns


async def recording_session(paths: list[str]) -> aiohttp.ClientSession:
    """An aiohttp session (of the running loop) that records the path of every request."""

    async def record(
        session: aiohttp.ClientSession, context: Any, params: aiohttp.TraceRequestStartParams
    ) -> None:
        paths.append(params.url.path)

    trace = aiohttp.TraceConfig()
    trace.on_request_start.append(record)
    return aiohttp.ClientSession(trace_configs=[trace])


def round_trip_threads() -> list[threading.Thread]:
    """The threads async round trips run their steps in, still alive."""
    return [t for t in threading.enumerate() if t.name.startswith(ROUND_TRIP_THREAD_PREFIX)]


async def round_trips_end() -> bool:
    """Wait until no round-trip thread is left (none is stuck on a socket or an approval)."""
    await until(lambda: not round_trip_threads())
    return True
