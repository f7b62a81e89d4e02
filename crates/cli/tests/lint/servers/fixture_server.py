"""Serves the tools of a lint fixture as a legacy (2025-11-25) stdio MCP server, without any SDK,
so that the rules found only on a live server are tested on a fixture like the others.

Usage: fixture_server.py FIXTURE.json. The fixture's `tools` are listed; its optional `serve`
object says how the server misbehaves:
  {"banner": TEXT}       print TEXT, not JSON-RPC, on stdout before serving (S201)
  {"cursor_loop": true}  list one tool per page, the second page giving its own cursor again (G301)
"""
import json
import sys

with open(sys.argv[1], encoding="utf-8") as fixture_file:
    FIXTURE = json.load(fixture_file)
TOOLS = FIXTURE["tools"]
SERVE = FIXTURE.get("serve") or {}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tools_page(cursor):
    if not SERVE.get("cursor_loop"):
        return {"tools": TOOLS}
    page = int(cursor or 0)
    # Every page's cursor is "1": the second page points at itself.
    return {"tools": TOOLS[page : page + 1], "nextCursor": "1"}


def answer(request):
    if "id" not in request:
        return
    method = request.get("method")
    if method == "initialize":
        info = {"name": "fixture", "version": "0"}
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}
    elif method == "tools/list":
        result = tools_page((request.get("params") or {}).get("cursor"))
    else:
        error = {"code": -32601, "message": "Method not found"}
        send({"jsonrpc": "2.0", "id": request["id"], "error": error})
        return
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def main():
    if "banner" in SERVE:
        print(SERVE["banner"])
        sys.stdout.flush()
    for line in sys.stdin:
        answer(json.loads(line))


main()
