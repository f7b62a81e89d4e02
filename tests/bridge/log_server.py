"""A modern MCP server written with the Python `mcp` SDK (2.x) whose tool logs during a call,
for the listening bridge's routing of log messages by stream
(crates/cli/tests/bridge_http_sessions.rs): `say` sends its text as two `notifications/message`
log lines (on the call's own stream, as the 2026-07-28 era puts them, when the request's `_meta`
carries `io.modelcontextprotocol/logLevel`), then answers with the text. It declares `logging`.
With `--undeclared` (crates/cli/tests/bridge_logging.rs) it does not (no `logging/setLevel`
handler), and its tool `blurt` sends a log line all the same (breaking M9: no request opted
in), as a server that ignores its own declaration would. `meet` logs only once two `meet`
calls are in flight, and answers only once both logged: on stdio, two calls whose log lines
nothing tells apart.

python log_server.py --http PORT  (Streamable HTTP on 127.0.0.1:PORT/mcp; PORT 0: any free one)
python log_server.py [--undeclared] (stdio)
"""
import sys

import anyio
from mcp import types
from mcp.server import MCPServer
from mcp.server.mcpserver import Context

mcp = MCPServer("agentpi-log-fixture")


async def set_level(ctx, params: types.SetLevelRequestParams) -> dict:
    """A legacy session's `logging/setLevel` (accepted): with a handler for it the server
    declares `logging`, as a server that logs must (X6); a modern request opts in by `_meta`."""
    return {}


UNDECLARED = "--undeclared" in sys.argv
if not UNDECLARED:
    mcp._lowlevel_server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)


@mcp.tool()
async def say(text: str, ctx: Context) -> str:
    """Logs `text` twice (info), then returns it."""
    for n in (1, 2):
        await ctx.info(f"{text} {n}")
    return text


@mcp.tool()
async def blurt(text: str, ctx: Context) -> str:
    """Sends `text` as a log line whatever the request opted in to (the SDK's own `ctx.info`
    would drop it), then returns it."""
    line = types.LoggingMessageNotification(
        params=types.LoggingMessageNotificationParams(level="info", data=text))
    await ctx.request_context.session._notify(line, request_scoped=True)
    return text


MEETING = {"in": 0, "logged": 0}
EVENTS = {}


async def both(key: str) -> None:
    """Counts this call in under `key` and waits (at most 5 s) until two calls are."""
    event = EVENTS.setdefault(key, anyio.Event())
    MEETING[key] += 1
    if MEETING[key] >= 2:
        event.set()
    with anyio.move_on_after(5):
        await event.wait()


@mcp.tool()
async def meet(text: str, ctx: Context) -> str:
    """Waits for a second `meet` call, logs `text` twice (info), waits until both logged, then
    returns it."""
    await both("in")
    for n in (1, 2):
        await ctx.info(f"{text} {n}")
    await both("logged")
    return text


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--http":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
