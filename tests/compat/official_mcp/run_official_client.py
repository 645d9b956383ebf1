"""The official appbuilder-sdk 1.1.5 MCP pattern, as its own test does it.

Run with the interpreter of a venv that has appbuilder-sdk 1.1.5 (and the mcp and pydantic
versions it works with); GATEWAY_URL_V2 and APPBUILDER_TOKEN point it at the server. Prints
each run's answer on one line of JSON.
"""

import asyncio
import json
import os
import sys

import appbuilder
from appbuilder.core.console.appbuilder_client.async_event_handler import (
    AsyncToolCallEventHandler,
)
from appbuilder.mcp_server.client import MCPClient


@appbuilder.manifest(description="获取指定中国城市的当前天气信息。")
@appbuilder.manifest_parameter(name="location", description="城市名，例如：北京。")
def get_current_weather(location: str) -> str:
    return f"{location}今天25度"


class Recorder(AsyncToolCallEventHandler):
    """The SDK's own handler, keeping the answer (its ``result`` is reset after tool calls)."""

    async def running(self, run_context, run_response):
        """Add each streamed piece of the answer."""
        await super().running(run_context, run_response)
        if self._stream:
            self.answer += run_response.answer or ""

    async def success(self, run_context, run_response):
        """Keep the whole answer of a plain run."""
        await super().success(run_context, run_response)
        if not self._stream:
            self.answer = run_response.answer


async def main(app_id: str) -> None:
    functions = [get_current_weather]
    tools = [appbuilder.Manifest.from_function(f) for f in functions]
    mcp_client = MCPClient()
    await mcp_client.connect_to_server(os.path.join(os.path.dirname(__file__), "weather_server.py"))
    tools.extend(mcp_client.tools)
    client = appbuilder.AsyncAppBuilderClient(app_id)
    conversation_id = await client.create_conversation()
    for query, stream in (("北京明天的天气怎么样", False), ("翻译hello world为中文", True)):
        handler = Recorder(mcp_client, functions=functions)
        handler.answer = ""
        with await client.run_with_handler(
            conversation_id=conversation_id,
            query=query,
            tools=tools,
            event_handler=handler,
            stream=stream,
        ) as run:
            await run.until_done()
        print(json.dumps({"query": query, "answer": handler.answer}, ensure_ascii=False))
    await client.http_client.session.close()
    await mcp_client.cleanup()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
