"""What the reference server adds on top of the model when it plans with one.

One tool round trip through the protocol (a run that ends with the model's tool call as an
interrupt, then a run with the tool's output that ends with the model's answer) costs two
model calls. The baseline is those two model calls made directly with the ``openai`` client
against the same scripted model (``ScriptedModel``, with a fixed ``--latency`` standing in for
a real model's thinking time), measured in the same run and interleaved. Printed: the median
of each, the ratio (target: at most 1.2x the bare model calls) and the added milliseconds; and
the time to the first ``running`` delta of a streamed answer next to the model's own first
token (target: within 5 ms).

Run: ``python tests/benchmarks/bench_model_agent.py [--quick] [--latency SECONDS]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import openai

from appclient import AppClient
from appclient.testing import ModelReply, ReferenceServer, ScriptedModel

ARGUMENTS = {"location": "北京"}
ANSWER = "北京今天晴，最高25度，最低13度，适合出门。"


def get_current_weather(location: str) -> str:
    """Get the current weather of a city.

    Args:
        location: The city, e.g. 北京.
    """
    return f"{location}今天晴"


def _brain(request: dict[str, Any]) -> ModelReply:
    if request["messages"][-1]["role"] == "tool":
        return ModelReply(text=ANSWER)
    return ModelReply(tool_calls=(("get_current_weather", ARGUMENTS),))


def _bare_pair(client: openai.OpenAI, tools: list[dict[str, Any]]) -> tuple[float, float]:
    """Two model calls as the agent makes them; (total seconds, first token of the second)."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "北京天气怎么样？"}]
    started = time.perf_counter()
    for _chunk in client.chat.completions.create(
        model="m", messages=messages, tools=tools, stream=True
    ):
        pass
    messages += [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c",
                    "type": "function",
                    "function": {
                        "name": "get_current_weather",
                        "arguments": '{"location": "北京"}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c", "content": "北京今天晴"},
    ]
    second = time.perf_counter()
    first_token = 0.0
    for chunk in client.chat.completions.create(model="m", messages=messages, stream=True):
        if not first_token and chunk.choices and chunk.choices[0].delta.content:
            first_token = time.perf_counter() - second
    return time.perf_counter() - started, first_token


def _served_pair(client: AppClient) -> tuple[float, float]:
    """One round trip through the protocol; (total seconds, first answer delta of the second)."""
    started = time.perf_counter()
    cid = client.create_conversation()
    message = client.run(cid, "北京天气怎么样？", tools=[get_current_weather])
    [call] = message.tool_calls
    second = time.perf_counter()
    first_delta = 0.0
    with client.run(
        cid, tool_outputs=[{"tool_call_id": call.id, "output": "北京今天晴"}], stream=True
    ) as stream:
        for chunk in stream:
            if not first_delta and chunk.answer:
                first_delta = time.perf_counter() - second
    return time.perf_counter() - started, first_delta


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few rounds, a short latency")
    parser.add_argument("--latency", type=float, default=None, help="the model's seconds per reply")
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args(argv)
    latency = args.latency if args.latency is not None else (0.01 if args.quick else 0.05)
    rounds = args.rounds or (4 if args.quick else 30)
    for chunk_seconds in (0.0, latency / 10):
        _measure(latency, chunk_seconds, rounds)
    return 0


def _measure(latency: float, chunk_seconds: float, rounds: int) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_current_weather",
                "description": "weather",
                "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
            },
        }
    ]
    script = [_brain] * (4 * rounds + 4)
    with ScriptedModel(
        script, latency=latency, chunk_seconds=chunk_seconds, chunk_chars=8
    ) as model:
        bare_client = openai.OpenAI(base_url=model.url, api_key="unused", max_retries=0)
        with (
            ReferenceServer(model_url=model.url, model="m") as server,
            AppClient(server.app_id, token=server.token, base_url=server.url) as client,
        ):
            _bare_pair(bare_client, tools)  # warm up both paths
            _served_pair(client)
            bare, served = [], []
            for _ in range(rounds):  # interleaved, so drift hits both alike
                bare.append(_bare_pair(bare_client, tools))
                served.append(_served_pair(client))
    bare_total = statistics.median(t for t, _ in bare)
    served_total = statistics.median(t for t, _ in served)
    bare_first = statistics.median(f for _, f in bare)
    served_first = statistics.median(f for _, f in served)
    spread = (
        f", then a chunk every {chunk_seconds * 1000:.0f} ms" if chunk_seconds else ", all at once"
    )
    print(f"model: {latency * 1000:.0f} ms to its first token{spread}; rounds: {rounds}")
    print(f"  bare model calls (2):        {bare_total * 1000:8.1f} ms")
    print(f"  tool round trip via server:  {served_total * 1000:8.1f} ms")
    added = 1000 * (served_total - bare_total)
    ratio = served_total / bare_total
    print(f"  ratio server/bare: {ratio:.2f}x (target <= 1.2x); added {added:.1f} ms")
    gap = 1000 * (served_first - bare_first)
    print(
        f"  first answer delta {served_first * 1000:.1f} ms, model's first token "
        f"{bare_first * 1000:.1f} ms: +{gap:.1f} ms (target <= +5 ms)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
