"""An MCP server written with the Python `mcp` SDK (2.3.0) for `agentpi test`: a slow tool
that reports progress, a tool with structured output and an `x-mcp-header` argument,
tools/list in pages of two (invalid cursors get -32602), a tool that asks the user
(elicitation: a request mid-call in the legacy era, an input-required result in the modern
one), a tool that samples with tools (the same two ways), a resource and a prompt. Dual-era, as the SDK is: a client that opens with
`initialize` gets the legacy protocol, one that opens with a modern request 2026-07-28.

python sdk_server.py              (stdio)
python sdk_server.py --http PORT  (Streamable HTTP on 127.0.0.1:PORT/mcp, resumable: its SSE
                                  events carry ids, and a GET with Last-Event-ID replays a
                                  dropped stream and goes on with it; `--no-events` after the
                                  port: not resumable)
"""
import asyncio
import sys
from typing import Annotated

from pydantic import BaseModel, Field

from mcp.server import MCPServer
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, Resolve, Sample
from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CreateMessageResultWithTools,
    ListToolsResult,
    SamplingMessage,
    TextContent,
    Tool,
    ToolAnnotations,
)

PAGE = 2
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


class PagedServer(MCPServer):
    """tools/list in pages of PAGE tools; the cursor is the index of the page's first tool."""

    async def _handle_list_tools(self, ctx, params) -> ListToolsResult:
        tools = await self.list_tools()
        cursor = params.cursor if params is not None else None
        start = 0
        if cursor is not None:
            if not cursor.isdigit() or int(cursor) >= len(tools):
                raise MCPError(code=-32602, message=f"invalid cursor {cursor!r}")
            start = int(cursor)
        end = start + PAGE
        following = str(end) if end < len(tools) else None
        return ListToolsResult(tools=tools[start:end], next_cursor=following)


class MemoryEvents(EventStore):
    """Every event kept in order, so that a stream resumes after the last one its client got."""

    def __init__(self) -> None:
        self.events: list[tuple[EventId, StreamId, object]] = []

    async def store_event(self, stream_id: StreamId, message) -> EventId:
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        at = next((i for i, e in enumerate(self.events) if e[0] == last_event_id), None)
        if at is None:
            return None
        stream = self.events[at][1]
        for event_id, stream_id, message in self.events[at + 1 :]:
            if stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream


mcp = PagedServer("agentpi-sdk-fixture")


@mcp.tool(annotations=READ_ONLY)
async def slow(seconds: float, ctx: Context) -> str:
    """Waits `seconds` (at most 5), reporting progress every quarter of the way."""
    seconds = max(0.0, min(seconds, 5.0))
    for step in range(1, 5):
        await asyncio.sleep(seconds / 4)
        await ctx.report_progress(step, 4, f"step {step} of 4")
    return f"waited {seconds} s"


@mcp.tool(annotations=READ_ONLY)
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@mcp.tool(annotations=READ_ONLY)
def echo(text: str) -> str:
    """Returns its text."""
    return text


@mcp.tool()
def forget(key: str) -> str:
    """Forgets a key (annotated as nothing: it may write, so a tester leaves it alone)."""
    return f"forgot {key}"


@mcp.tool(annotations=READ_ONLY)
def weather(city: Annotated[str, Field(json_schema_extra={"x-mcp-header": "City"})]) -> dict:
    """The weather of a city, as structured content. Over modern HTTP the city is also sent as
    the `Mcp-Param-City` header (`x-mcp-header`), which the SDK checks against the body."""
    return {"city": city, "celsius": 21}


class Consent(BaseModel):
    agree: bool


def ask_consent() -> Elicit[Consent]:
    return Elicit("May agentpi go ahead?", Consent)


@mcp.tool(annotations=READ_ONLY)
def confirm(answer: Annotated[ElicitationResult[Consent], Resolve(ask_consent)]) -> str:
    """Asks the user whether to go ahead (form elicitation) and says what they answered."""
    return f"the user chose {answer.action}"


def ask_model() -> Sample:
    return Sample(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text="What time is it?"))],
        max_tokens=50,
        tools=[Tool(name="clock", description="The time now.", input_schema={"type": "object"})],
    )


@mcp.tool(annotations=READ_ONLY)
def think(answer: Annotated[CreateMessageResultWithTools, Resolve(ask_model)]) -> str:
    """Asks the client's model a question it may answer with a tool (sampling with tools)."""
    return f"the model stopped with {answer.stop_reason}"


@mcp.resource("fixture://greeting")
def greeting() -> str:
    """A fixed greeting."""
    return "hello"


@mcp.prompt()
def ask(topic: str) -> str:
    """A question about a topic."""
    return f"Tell me about {topic}."


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--http":
        # `--no-events`: no event store, so its SSE events carry no id and cannot be resumed.
        events = None if "--no-events" in sys.argv[3:] else MemoryEvents()
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]), event_store=events)
    else:
        mcp.run()
