"""A deliberately misbehaving MCP server for `agentpi lint` tests, without any SDK.

Usage: raw_server.py MODE, where MODE is one of
  banner   print a banner line on stdout, then serve legacy MCP with two tools
  paged    serve legacy MCP with five tools over three tools/list pages
  loop     like paged, but the second page returns its own cursor again
  silent   read stdin and never answer
  exits    write an error on stderr and exit with status 3 at once
  notjson  answer every line with text that is not JSON
  nodiscover  never answer server/discover, serve legacy MCP; refuse `initialize` if it comes
           10 s or more after the probe (a client that waits out a long probe is too slow)
  slowmodern  a modern-only server that starts slowly: read nothing for 3 s, answer
           server/discover, refuse `initialize` with -32022 (stdio keeps the first era)
"""
import json
import sys
import time

MODE = sys.argv[1]

TOOLS = [
    {
        "name": f"tool_{i}",
        "description": f"Returns the value number {i} from the fixture store as a string.",
        "inputSchema": {"type": "object", "additionalProperties": False},
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
    }
    for i in range(5)
]
PAGES = {None: (TOOLS[0:2], "p2"), "p2": (TOOLS[2:4], "p3"), "p3": (TOOLS[4:5], None)}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tools_page(cursor):
    if MODE in ("banner", "nodiscover"):
        return {"tools": TOOLS[0:2]}
    tools, next_cursor = PAGES[cursor]
    if MODE == "loop" and cursor == "p2":
        next_cursor = "p2"
    result = {"tools": tools}
    if next_cursor:
        result["nextCursor"] = next_cursor
    return result


PROBED = []


def modern(request):
    """slowmodern: the modern era only."""
    method = request.get("method")
    meta = {"io.modelcontextprotocol/serverInfo": {"name": "raw", "version": "0"}}
    if method == "server/discover":
        result = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "_meta": meta, "ttlMs": 0, "cacheScope": "public"}
    elif method == "tools/list":
        result = {"resultType": "complete", "tools": TOOLS[0:2], "ttlMs": 0, "cacheScope": "public"}
    else:
        error = {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"}}
        send({"jsonrpc": "2.0", "id": request["id"], "error": error})
        return
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def answer(request):
    method = request.get("method")
    if "id" not in request:
        return
    if MODE == "slowmodern":
        return modern(request)
    if MODE == "nodiscover" and method == "server/discover":
        PROBED.append(time.monotonic())
        return
    late = MODE == "nodiscover" and PROBED and time.monotonic() - PROBED[0] >= 10
    if method == "initialize" and late:
        send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32603, "message": "initialize came 10 s after the probe"}})
        return
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "raw", "version": "0"}}
    elif method == "tools/list":
        result = tools_page((request.get("params") or {}).get("cursor"))
    else:
        send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "Method not found"}})
        return
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def main():
    if MODE == "exits":
        sys.stderr.write("raw_server: fatal: no configuration file found\n")
        sys.exit(3)
    if MODE == "banner":
        print("Weather server v1.0 ready on stdio")
        sys.stdout.flush()
    if MODE == "slowmodern":
        time.sleep(3)
    for line in sys.stdin:
        if MODE == "silent":
            continue
        if MODE == "notjson":
            print("OK, got it")
            sys.stdout.flush()
            continue
        answer(json.loads(line))


main()
