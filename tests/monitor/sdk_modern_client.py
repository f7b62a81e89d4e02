"""The Python `mcp` SDK's high-level `Client` (mode "auto": a `server/discover` probe, then
the era the server speaks) driving a stdio server through `agentpi monitor`:
python sdk_modern_client.py AGENTPI RECORD REPORT -- SERVER ARGS...
It lists the tools, calls `add`, and closes."""

import asyncio
import sys

from mcp import Client, StdioServerParameters


async def main() -> None:
    agentpi, record, report = sys.argv[1:4]
    server = sys.argv[sys.argv.index("--") + 1 :]
    params = StdioServerParameters(
        command=agentpi,
        args=["monitor", "--record", record, "--report", report, "--", *server],
    )
    async with Client(params) as client:
        tools = await client.list_tools()
        if any(t.name == "add" for t in tools.tools):
            await client.call_tool("add", {"a": 1, "b": 2})


asyncio.run(main())
