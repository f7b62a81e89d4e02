"""A real MCP client (the Python `mcp` SDK's ClientSession) driving a stdio server through
`agentpi monitor`: python sdk_client.py AGENTPI RECORD REPORT -- SERVER ARGS...
It lists and calls the server's first tools, lists resources and prompts when declared,
and closes the session. The monitor's findings are in RECORD and REPORT."""

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    agentpi, record, report = sys.argv[1:4]
    server = sys.argv[sys.argv.index("--") + 1 :]
    params = StdioServerParameters(
        command=agentpi,
        args=["monitor", "--record", record, "--report", report, "--", *server],
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            caps = init.capabilities
            if caps.tools is not None:
                tools = await session.list_tools()
                for tool in tools.tools:
                    if tool.name in ("echo", "get-sum", "read_graph", "list_allowed_directories"):
                        args = {"echo": {"message": "hi"}, "get-sum": {"a": 1, "b": 2}}
                        await session.call_tool(tool.name, args.get(tool.name, {}))
            if caps.resources is not None:
                await session.list_resources()
            if caps.prompts is not None:
                await session.list_prompts()
            await session.send_ping()


asyncio.run(main())
