"""A fast stdio MCP server for the monitor benchmark: answers `initialize` and every other
request at once with an empty result (stdlib only)."""

import json
import sys

out = sys.stdout.buffer
for line in sys.stdin.buffer:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    if msg["method"] == "initialize":
        res = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
               "serverInfo": {"name": "echo", "version": "1"}}
    else:
        res = {}
    out.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": res}).encode() + b"\n")
    out.flush()
