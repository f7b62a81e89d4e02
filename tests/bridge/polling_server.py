"""A legacy MCP server (the Python `mcp` SDK 1.x, FastMCP: 2025-11-25) on Streamable HTTP that
keeps its SSE events (an event store), so that it may end a request's stream early and let the
client resume it (the 2025-11-25 polling): `ask` elicits in the middle of the call (the bridge
holds the call for the modern client's retry) and `end_ask` ends the stream of the `ask` in
progress normally, without its answer (a stream that ends is not a server that went away:
crates/cli/tests/bridge_lost.rs); `add` answers at once.

python polling_server.py PORT      (http://127.0.0.1:PORT/mcp; 0: any free port)
"""
import sys

from pydantic import BaseModel

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.streamable_http import EventStore


class MemoryEvents(EventStore):
    """Every event kept in order, so that a stream resumes after the last one its client got."""

    def __init__(self) -> None:
        self.events = []

    async def store_event(self, stream_id, message):
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        at = next((i for i, e in enumerate(self.events) if e[0] == last_event_id), None)
        if at is None:
            return None
        stream = self.events[at][1]
        from mcp.server.streamable_http import EventMessage

        for event_id, stream_id, message in self.events[at + 1 :]:
            if stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream


mcp = FastMCP(
    "agentpi-legacy-polling-fixture", host="127.0.0.1", port=int(sys.argv[1]), event_store=MemoryEvents()
)


class Answer(BaseModel):
    answer: str


asking: list[Context] = []


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@mcp.tool()
async def ask(question: str, ctx: Context) -> str:
    """Asks the user `question` (an elicitation) and says what came back."""
    asking.append(ctx)
    got = await ctx.elicit(question, Answer)
    return f"{got.action}: {got.data.answer if got.action == 'accept' else ''}"


@mcp.tool()
async def end_ask() -> str:
    """Ends the stream of each `ask` in progress (normally: the client may resume it)."""
    for ctx in asking:
        await ctx.close_sse_stream()
    return f"ended {len(asking)}"


if __name__ == "__main__":
    mcp.run(transport="streamable-http")
