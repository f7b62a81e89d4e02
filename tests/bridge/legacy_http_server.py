"""A legacy MCP server (the Python `mcp` SDK 1.x, FastMCP: 2025-11-25 only) on Streamable HTTP,
for `agentpi bridge --to legacy --upstream URL`: `add`, `echo`, and `ask` and `confirm`, which
elicit in the middle of the call (the bridge holds the call for the modern client's retry), and
`hold`, which stays open until `release` ends it. It keeps its
sessions in memory, so a restart on the same port loses them: a request with an old
`Mcp-Session-Id` gets 404 (the bridge's re-established session is tested that way).

python legacy_http_server.py           (stdio: the reference, the same server directly)
python legacy_http_server.py PORT      (http://127.0.0.1:PORT/mcp; 0: any free port)
"""
import asyncio
import sys

from pydantic import BaseModel

from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("agentpi-legacy-http-fixture", host="127.0.0.1", port=int(sys.argv[1]) if len(sys.argv) > 1 else 0)


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@mcp.tool()
def echo(text: str) -> str:
    """Says `text` back."""
    return text


class Answer(BaseModel):
    answer: str


@mcp.tool()
async def ask(question: str, ctx: Context) -> str:
    """Asks the user `question` (an elicitation) and says what came back."""
    got = await ctx.elicit(question, Answer)
    return f"{got.action}: {got.data.answer if got.action == 'accept' else ''}"


gates: dict[str, asyncio.Event] = {}


@mcp.tool()
async def hold(key: str) -> str:
    """Stays open until `release` is called with `key` (a call in flight for as long as a test
    needs, with no timing)."""
    await gates.setdefault(key, asyncio.Event()).wait()
    return f"released {key}"


@mcp.tool()
def release(key: str) -> str:
    """Ends the `hold` calls of `key`."""
    gates.setdefault(key, asyncio.Event()).set()
    return f"releasing {key}"


@mcp.tool()
async def confirm(question: str, ctx: Context) -> str:
    """The same as `ask`, under another name (two calls held at once, told apart)."""
    return await ask(question, ctx)


if __name__ == "__main__":
    mcp.run(transport="streamable-http" if len(sys.argv) > 1 else "stdio")
