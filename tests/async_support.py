"""Helpers of the AsyncAppClient tests: a one-thread executor, a scenario runner, waits."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

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
