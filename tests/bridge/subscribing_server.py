"""A modern MCP server written with the Python `mcp` SDK (2.3.0) whose resource and tool list
change, for the bridge's subscriptions (docs/bridge.md): `memo://note` is a resource, `write`
changes it (a `notifications/resources/updated` to the `subscriptions/listen` streams that asked
for it), `grow` says the tool list changed (a `notifications/tools/list_changed` to the
streams that asked for list changes), `hang_up` ends every listen stream (the SDK's
`ListenHandler.close`: each gets its final result) and answers once as many new listens are
open again, or after 5 s (`not re-opened`). The SDK serves `subscriptions/listen` itself: it
acknowledges first and names the listen in every message (M13).

python subscribing_server.py              (stdio)
python subscribing_server.py --http PORT  (Streamable HTTP on 127.0.0.1:PORT/mcp)
"""
import sys

import anyio
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


@mcp.tool()
async def hang_up() -> str:
    """Ends every listen; answers once the client has opened as many again."""
    handler = mcp._lowlevel_server.get_request_handler("subscriptions/listen").handler
    old = set(handler._streams)
    handler.close()
    with anyio.move_on_after(5):
        while len(handler._streams - old) < len(old):
            await anyio.sleep(0.02)
        return f"re-opened {len(old)}"
    return f"not re-opened: {len(handler._streams - old)} of {len(old)}"


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--http":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
