"""A legacy MCP server (the Python `mcp` SDK 1.x, FastMCP, stdio: 2025-11-25 only) that crashes
in the middle of a call, for `agentpi bridge --to legacy`'s fault tests: `crash` ends the
process with status 3 before answering; `slow` waits, so that it is still in flight when
`crash` comes.

python legacy_crash_server.py
"""
import asyncio
import os

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("agentpi-legacy-crash-fixture")


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
