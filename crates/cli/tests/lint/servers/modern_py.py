"""A modern-era (2026-07-28) MCP server written with the Python `mcp` SDK, for `agentpi lint` tests.

Runs on stdio, or with `--http PORT` as a Streamable HTTP server on 127.0.0.1:PORT/mcp.
Two tools: one well described and annotated, one that leaves things out on purpose so that the
linter has findings to report.
"""
import sys

from mcp.server import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("agentpi-modern-fixture")


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def add(a: int, b: int) -> int:
    """Add two integers and return their sum. Fails only if the arguments are not integers."""
    return a + b


@mcp.tool()
def delete_note(note_id: str) -> str:
    """delete note"""
    return "deleted " + note_id


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
