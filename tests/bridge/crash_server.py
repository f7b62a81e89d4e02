"""An MCP server (stdio) that crashes in the middle of a call, for `agentpi bridge`'s fault
tests: `crash` ends the process with status 3 before answering; `slow` waits, so that it is
still in flight when `crash` comes. Its era is the SDK's it runs under: the Python `mcp` SDK
2.x (`MCPServer`, modern) for `--to modern`, 1.x (`FastMCP`, 2025-11-25 only) for `--to legacy`.

python crash_server.py
"""
import asyncio
import os

try:
    from mcp.server import MCPServer as Server
except ImportError:  # SDK 1.x
    from mcp.server.fastmcp import FastMCP as Server

mcp = Server("agentpi-crash-fixture")


@mcp.tool()
async def slow(seconds: float) -> str:
    """Waits `seconds` (at most 5)."""
    await asyncio.sleep(max(0.0, min(seconds, 5.0)))
    return f"waited {seconds} s"


@mcp.tool()
def crash() -> str:
    """Ends the server at once, with status 3, before answering."""
    os._exit(3)


if __name__ == "__main__":
    mcp.run()
