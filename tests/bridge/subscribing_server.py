"""A modern MCP server written with the Python `mcp` SDK (2.3.0) whose resource and tool list
change, for the bridge's subscriptions (docs/bridge.md): `memo://note` is a resource, `write`
changes it (a `notifications/resources/updated` to the `subscriptions/listen` streams that asked
for it), `grow` says the tool list changed (a `notifications/tools/list_changed` to the
streams that asked for list changes). The SDK serves `subscriptions/listen` itself: it
acknowledges first and names the listen in every message (M13).

python subscribing_server.py              (stdio)
python subscribing_server.py --http PORT  (Streamable HTTP on 127.0.0.1:PORT/mcp)
"""
import sys

from mcp.server import MCPServer
from mcp.server.mcpserver import Context

mcp = MCPServer("subscribing-server")
NOTE = {"text": "empty"}


@mcp.resource("memo://note")
def note() -> str:
    """The note that `write` changes."""
    return NOTE["text"]


@mcp.tool()
async def write(text: str, ctx: Context) -> str:
    """Writes the note: its subscribers are told."""
    NOTE["text"] = text
    await ctx.notify_resource_updated("memo://note")
    return "written"


@mcp.tool()
async def grow(ctx: Context) -> str:
    """Says the tool list changed."""
    await ctx.notify_tools_changed()
    return "grown"


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--http":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
