"""An MCP server (stdio) that crashes in the middle of a call, for `agentpi bridge`'s fault
tests: `crash` ends the process with status 3 before answering; `slow` waits, so that it is
still in flight when `crash` comes; `crash_in` waits, then ends the process the same way (so
that a call waiting behind it in the bridge is in flight when it ends). Its era is the SDK's it runs under: the Python `mcp` SDK
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


@mcp.tool()
async def crash_in(seconds: float) -> str:
    """Ends the server with status 3 after `seconds` (at most 5), before answering."""
    await asyncio.sleep(max(0.0, min(seconds, 5.0)))
    os._exit(3)


if __name__ == "__main__":
    mcp.run()
