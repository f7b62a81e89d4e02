"""A legacy MCP server (the Python `mcp` SDK 1.x, FastMCP: 2025-11-25 only) on stdio, for
`agentpi bridge --to legacy`: which call a server's elicitation is for when several calls
share the bridge's legacy session. `ask(who)` elicits "a question for WHO" and says whose name
came back. A call that comes while no other is open waits (at most 3 s) for a second; when one
comes, the second call asks first and the first asks once that question is answered, so that
a bridge that gives the server's elicitation to the first call held open shows one client
the other's question. A bridge that sends one call that could be asked at a time never lets a
second come: the wait ends after 3 s and the call asks alone (the wait is the fixture's; the
tests assert nothing on time).

python asking_server.py
"""
import asyncio

from pydantic import BaseModel

from mcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("agentpi-asking-fixture")


class Answer(BaseModel):
    name: str


class Pair:
    """A call waiting for a second one: `second` when it came, `answered` when its question was."""

    def __init__(self):
        self.second = asyncio.Event()
        self.answered = asyncio.Event()


waiting: Pair | None = None


async def question(who: str, ctx: Context) -> str:
    got = await ctx.elicit(f"a question for {who}", Answer)
    by = got.data.name if got.action == "accept" else got.action
    return f"{who}'s question, answered by {by}"


@mcp.tool()
async def ask(who: str, ctx: Context) -> str:
    """Asks the user a question naming `who` (an elicitation) and says who answered."""
    global waiting
    if waiting is not None:
        pair, waiting = waiting, None
        pair.second.set()
        try:
            return await question(who, ctx)
        finally:
            pair.answered.set()
    pair = waiting = Pair()
    try:
        await asyncio.wait_for(pair.second.wait(), 3)
        await asyncio.wait_for(pair.answered.wait(), 60)
    except asyncio.TimeoutError:
        pass
    finally:
        if waiting is pair:
            waiting = None
    return await question(who, ctx)


if __name__ == "__main__":
    mcp.run()
