"""A deliberately misbehaving MCP server for `agentpi lint` tests, without any SDK.

Usage: raw_server.py MODE, where MODE is one of
  banner   print a banner line on stdout, then serve legacy MCP with two tools
  paged    serve legacy MCP with five tools over three tools/list pages
  loop     like paged, but the second page returns its own cursor again
  silent   read stdin and never answer
  exits    write an error on stderr and exit with status 3 at once
  notjson  answer every line with text that is not JSON
"""
import json
import sys

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
    if MODE == "banner":
        return {"tools": TOOLS[0:2]}
    tools, next_cursor = PAGES[cursor]
    if MODE == "loop" and cursor == "p2":
        next_cursor = "p2"
    result = {"tools": tools}
    if next_cursor:
        result["nextCursor"] = next_cursor
    return result


def answer(request):
    method = request.get("method")
    if "id" not in request:
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
    for line in sys.stdin:
        if MODE == "silent":
            continue
        if MODE == "notjson":
            print("OK, got it")
            sys.stdout.flush()
            continue
        answer(json.loads(line))


main()
