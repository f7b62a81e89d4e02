"""A real MCP client for the proxy tests: the Python SDK's ClientSession over Streamable HTTP.

Usage: client.py URL. Initializes, lists the tools, calls the long-running tool of
server-everything with a progress callback (so progress notifications arrive as SSE events while
the call is open), lets the SDK open its GET stream and DELETE the session on close, and prints
what it received as one JSON document, so that a run through the proxy and a direct run compare.
"""
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(url: str) -> None:
    progress = []

    async def on_progress(value, total, message):
        progress.append([value, total])

    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            call = await session.call_tool(
                "trigger-long-running-operation",
                {"duration": 0.3, "steps": 3},
                progress_callback=on_progress,
            )
    print(
        json.dumps(
            {
                "initialize": init.model_dump(mode="json", by_alias=True, exclude_none=True),
                "tools": [tool.name for tool in tools.tools],
                "call": call.model_dump(mode="json", by_alias=True, exclude_none=True),
                "progress": progress,
            },
            sort_keys=True,
        )
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
