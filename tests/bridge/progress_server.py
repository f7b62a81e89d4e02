"""MCP servers whose tools report progress, for the bridge's progress tokens
(crates/cli/tests/bridge_progress.rs), in either era.

modern (the Python `mcp` SDK 2.x, 2026-07-28 through the bridge's `server/discover`):
  `count` reports progress twice, then answers; `count_after` asks the user first (an
  `input_required` round: its body, and so its progress, runs in the retry), then does the same.
legacy (the SDK 1.x, FastMCP, 2025-11-25): `count` as above; `count_after` reports progress,
  asks the user (an elicitation in the middle of the call: the bridge holds the call for the
  modern client's retry), then reports progress twice more and answers; `say` logs its text
  twice, then answers (it declares `logging`).

python progress_server.py modern|legacy   (stdio)
python progress_server.py modern --http PORT   (Streamable HTTP on 127.0.0.1:PORT/mcp; 0: any)
"""
import sys

from pydantic import BaseModel


class Consent(BaseModel):
    agree: bool


def modern():
    from typing import Annotated

    from mcp.server import MCPServer
    from mcp.server.mcpserver import Context, Elicit, ElicitationResult, Resolve

    mcp = MCPServer("agentpi-progress-fixture")

    @mcp.tool()
    async def count(ctx: Context) -> str:
        """Reports progress twice, then answers."""
        for step in (1, 2):
            await ctx.report_progress(step, 2, f"step {step} of 2")
        return "counted"

    def ask_consent() -> Elicit[Consent]:
        return Elicit("Count?", Consent)

    @mcp.tool()
    async def count_after(answer: Annotated[ElicitationResult[Consent], Resolve(ask_consent)], ctx: Context) -> str:
        """Asks the user, then reports progress twice and answers."""
        for step in (1, 2):
            await ctx.report_progress(step, 2, f"step {step} of 2")
        return f"counted after {answer.action}"

    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        mcp.run(transport="streamable-http", host="127.0.0.1", port=port)
    else:
        mcp.run()


def legacy():
    from mcp.server.fastmcp import Context, FastMCP

    mcp = FastMCP("agentpi-legacy-progress-fixture")

    @mcp.tool()
    async def count(ctx: Context) -> str:
        """Reports progress twice, then answers."""
        for step in (1, 2):
            await ctx.report_progress(step, 2, f"step {step} of 2")
        return "counted"

    @mcp._mcp_server.set_logging_level()
    async def set_level(level) -> None:
        """With a `logging/setLevel` handler the server declares `logging` (X6)."""

    @mcp.tool()
    async def say(text: str, ctx: Context) -> str:
        """Logs `text` twice (info), then returns it."""
        for n in (1, 2):
            await ctx.info(f"{text} {n}")
        return text

    @mcp.tool()
    async def count_after(ctx: Context) -> str:
        """Reports progress, asks the user, reports progress twice more, answers."""
        await ctx.report_progress(1, 3, "before asking")
        answer = await ctx.elicit("Count?", Consent)
        for step in (2, 3):
            await ctx.report_progress(step, 3, f"step {step} of 3")
        return f"counted after {answer.action}"

    mcp.run()


if __name__ == "__main__":
    {"modern": modern, "legacy": legacy}[sys.argv[1]]()
