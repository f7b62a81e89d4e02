"""A real MCP client over Streamable HTTP, the Python `mcp` SDK's (2.3.0) high-level `Client`,
for the monitor's multi-session tests: python sdk_http_client.py URL MODE, MODE `auto` (a
`server/discover` probe, then the era the server speaks: 2026-07-28 against a modern server,
`initialize` after the probe's error against a legacy one) or `legacy` (the initialize
handshake). Lists the tools, calls `add` or `echo` when listed, and prints the era it spoke.
With a third argument `cancel` it also calls `slow` (for 2 s) and gives it up after 0.3 s
(a modern client closes the call's stream: its cancellation), then lists the tools again.
With `slow` instead it calls `slow` for 3 s and waits for it: two such clients started at once
have calls with the same request id in flight together (each numbers its own requests)."""

import asyncio
import sys

from mcp import Client


async def main(url: str, mode: str, extra: list[str]) -> None:
    async with Client(url, mode=mode) as client:
        tools = await client.list_tools()
        names = [t.name for t in tools.tools]
        if "add" in names:
            await client.call_tool("add", {"a": 1, "b": 2})
        elif "echo" in names:
            await client.call_tool("echo", {"message": "hi"})
        if extra == ["slow"]:
            await client.call_tool("slow", {"seconds": 3})
        if extra == ["cancel"]:
            try:
                await asyncio.wait_for(client.call_tool("slow", {"seconds": 2}), 0.3)
            except TimeoutError:
                pass
            await asyncio.sleep(2.5)  # the call would have ended meanwhile
            await client.list_tools()
        print(client.session.protocol_version)


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
