"""A small modern (2026-07-28) stdio MCP server for the judgments across traces (`agentpi trace
check A B ...`): python3 modern_peer.py MODE. It answers server/discover and tools/list.

good        the same answers to every request, in every process
context     its discovery's instructions count the requests the process has had before (M7:
            an answer derived from earlier requests)
reordered   lists its two tools in the other order (M8 SHOULD, against `good`)
other_tools lists another second tool (M8 MUST, against `good`)
"""

import json
import sys

MODE = sys.argv[1]
META = {"io.modelcontextprotocol/serverInfo": {"name": "modern-peer", "version": "1"}}
HINTS = {"ttlMs": 0, "cacheScope": "private", "resultType": "complete", "_meta": META}
SCHEMA = {"type": "object", "properties": {}, "additionalProperties": False}
TOOLS = [{"name": "clock", "description": "The time.", "inputSchema": SCHEMA},
         {"name": "weather", "description": "The weather.", "inputSchema": SCHEMA}]
if MODE == "reordered":
    TOOLS.reverse()
if MODE == "other_tools":
    TOOLS[1] = {"name": "news", "description": "The news.", "inputSchema": SCHEMA}


def main() -> None:
    seen = 0
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        method = message["method"]
        if method == "server/discover":
            said = f"{seen} requests before this one" if MODE == "context" else "Ask away."
            result = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                      "instructions": said, **HINTS}
        elif method == "tools/list":
            result = {"tools": TOOLS, **HINTS}
        else:
            error = {"code": -32601, "message": f"no method {method}"}
            print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}), flush=True)
            seen += 1
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
        seen += 1


if __name__ == "__main__":
    main()
