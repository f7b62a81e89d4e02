"""An MCP server written with the Python `mcp` SDK for the `agentpi run` tests: tools that
fetch, publish, clean up and notify (each logged to the file given with `--log`, so a test
sees what the world saw), and tools that go wrong on purpose: one fails (`isError`), one is
refused with a JSON-RPC error, one is slow, one crashes the server in the middle of the call.
Dual-era, as the SDK is.

python tools.py --log FILE              (stdio)
python tools.py --log FILE --http PORT  (Streamable HTTP on 127.0.0.1:PORT/mcp)
"""
import asyncio
import os
import sys

from mcp.server import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)

mcp = MCPServer("agentpi-run-tools")
LOG = None


def log(line: str) -> None:
    """Appends one line to the log file, flushed at once (a crash loses nothing logged)."""
    if LOG is not None:
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(line + "\n")


@mcp.tool(annotations=READ_ONLY)
def fetch(source: str) -> str:
    """Returns the data of a source."""
    log(f"fetch {source}")
    return f"data of {source}"


@mcp.tool(annotations=WRITES)
def publish(channel: str, text: str) -> str:
    """Publishes a text to a channel."""
    log(f"publish {channel}: {text}")
    return f"published to {channel}"


@mcp.tool(annotations=WRITES)
def cleanup(what: str = "all") -> str:
    """Removes what a failed run left behind."""
    log(f"cleanup {what}")
    return "cleaned up"


@mcp.tool(annotations=WRITES)
def notify(text: str = "") -> str:
    """Tells someone what happened."""
    log(f"notify {text}")
    return "notified"


@mcp.tool(annotations=READ_ONLY)
def fail(message: str = "it failed") -> str:
    """Always fails: the result is an error (isError)."""
    log("fail")
    raise ValueError(message)


@mcp.tool(annotations=READ_ONLY)
def reject() -> str:
    """Always refused with a JSON-RPC error."""
    log("reject")
    raise MCPError(code=-32001, message="refused on purpose")


@mcp.tool(annotations=READ_ONLY)
async def slow(seconds: float = 10.0) -> str:
    """Answers after `seconds` (a client with a shorter deadline cancels it)."""
    log("slow start")
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        log("slow cancelled")
        raise
    log("slow done")
    return f"slept {seconds} s"


@mcp.tool(annotations=READ_ONLY)
def crash() -> str:
    """Ends the server in the middle of the call."""
    log("crash")
    sys.stdout.flush()
    os._exit(3)


def main() -> None:
    global LOG
    args = sys.argv[1:]
    if "--log" in args:
        LOG = args[args.index("--log") + 1]
    if "--http" in args:
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(args[args.index("--http") + 1]))
    else:
        mcp.run()


if __name__ == "__main__":
    main()
