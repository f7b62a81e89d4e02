"""A small stdio MCP server for `agentpi test`, correct or broken in one way:
python3 broken.py MODE. The good server answers everything as the specification asks (errors
for malformed frames, -32601 for unknown methods, -32602 for unknown tools and invalid
cursors, isError for invalid arguments, progress for a slow tool, no answer to a cancelled
call, tools/list in two pages); each other MODE breaks one rule (`MODE,MODE,...` breaks
several at once):

good                    a conforming legacy server
unknown_method_result   answers a method it does not have with a result (J9)
late_answer             answers a cancelled call 0.7 s after the cancellation, or at the end
                        of its input if that comes first (C3: the late answer is sent
                        whatever the timer's lag on a loaded machine)
crash_on_invalid        exits when a call's arguments do not match the tool's schema (T10)
cursor_loop             gives the second page of tools/list its own cursor again (G3)
ignore_ping             never answers ping (L13)
echo_version            echoes whatever protocol version the client asks for (L4)
progress_backwards      reports progress 2, then 1 (P3)
answer_twice            answers ping twice (J6)
slow_echo               has slow_echo(text, ms) instead of sleep, and answers a call after its
                        ms whether it was cancelled or not (C3, issue 30: a tester that leaves
                        ms small sees every answer inside the race window)
quick_echo              has echo(text), answered at once, instead of sleep: no call can be
                        in flight past the race window, so C3 cannot be exercised
long_poll               has poll(view), answered after 2 s (a long poll by design; stopped by
                        a cancellation), instead of sleep: with --timeout 1 its calls time
                        out, which is no failure
"""

import heapq
import json
import select
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
MODES = set(MODE.split(","))
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False}
TOOLS = [
    {"name": "add", "description": "Adds two integers.", "annotations": READ_ONLY,
     "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                     "required": ["a", "b"], "additionalProperties": False}},
    {"name": "sleep", "description": "A long-running wait, with progress.", "annotations": READ_ONLY,
     "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 5}},
                     "required": ["seconds"], "additionalProperties": False}},
    {"name": "wipe", "description": "Deletes everything (never called without --allow-writes).",
     "annotations": {"readOnlyHint": False, "destructiveHint": True},
     "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}},
]
SLOW_ECHO = {"name": "slow_echo", "description": "Echoes the text after a delay.", "annotations": READ_ONLY,
             "inputSchema": {"type": "object", "properties": {
                 "text": {"type": "string"},
                 "ms": {"type": "integer", "minimum": 0, "description": "delay before the echo, in milliseconds"}},
                 "required": ["text"], "additionalProperties": False}}
ECHO = {"name": "echo", "description": "Echoes the text.", "annotations": READ_ONLY,
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                        "required": ["text"], "additionalProperties": False}}
POLL = {"name": "poll", "description": "Waits for the next command of a viewer.", "annotations": READ_ONLY,
        "inputSchema": {"type": "object", "properties": {"view": {"type": "string"}},
                        "required": ["view"], "additionalProperties": False}}
if "long_poll" in MODES:
    TOOLS[1] = POLL
elif "slow_echo" in MODES:
    TOOLS[1] = SLOW_ECHO
elif "quick_echo" in MODES:
    TOOLS[1] = ECHO
timers = []      # (when, seq, action, owed)
pending = {}     # id of a call in progress -> its token
seq = 0


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def result(id_, res):
    send({"jsonrpc": "2.0", "id": id_, "result": res})


def error(id_, code, message):
    send({"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}})


def later(delay, action, owed=False):
    """Runs `action` after `delay` seconds; an `owed` one also when the input ends first."""
    global seq
    seq += 1
    heapq.heappush(timers, (time.monotonic() + delay, seq, action, owed))


def pay_owed():
    """Runs the owed actions still waiting, in order: the input ended before their time."""
    while timers:
        _, _, action, owed = heapq.heappop(timers)
        if owed:
            action()


def valid(tool, args):
    """The few JSON Schema checks these tools need: object, required, types, no extras."""
    schema = tool["inputSchema"]
    if not isinstance(args, dict) or any(k not in args for k in schema.get("required", [])):
        return False
    for key, value in args.items():
        prop = schema["properties"].get(key)
        if prop is None:
            return False
        kind = prop["type"]
        if kind == "string" and not isinstance(value, str):
            return False
        if kind == "integer" and (not isinstance(value, int) or isinstance(value, bool)):
            return False
        if kind == "number" and (not isinstance(value, (int, float)) or isinstance(value, bool)):
            return False
    return True


def call(id_, params):
    name, args = params.get("name"), params.get("arguments", {})
    tool = next((t for t in TOOLS if t["name"] == name), None)
    if tool is None:
        return error(id_, -32602, f"unknown tool {name}")
    if not valid(tool, args):
        if "crash_on_invalid" in MODES:
            sys.exit(1)
        return result(id_, {"content": [{"type": "text", "text": "invalid arguments"}], "isError": True})
    if name == "add":
        return result(id_, {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]})
    if name == "echo":
        return result(id_, {"content": [{"type": "text", "text": args["text"]}]})
    if name == "poll":
        pending[json.dumps(id_)] = None
        return later(2.0, lambda: finish(id_))
    if name == "slow_echo":
        # Not pending: a cancellation does not stop it.
        echo = {"content": [{"type": "text", "text": args["text"]}]}
        return later(args.get("ms", 0) / 1000, lambda: result(id_, echo))
    token = params.get("_meta", {}).get("progressToken")
    pending[json.dumps(id_)] = token
    seconds = float(args["seconds"])
    steps = [2, 1] if "progress_backwards" in MODES else [1, 2]
    for i, value in enumerate(steps):
        later(seconds * (i + 1) / 3, lambda v=value: progress(id_, v))
    later(seconds, lambda: finish(id_))


def progress(id_, value):
    token = pending.get(json.dumps(id_))
    if token is not None:
        send({"jsonrpc": "2.0", "method": "notifications/progress",
              "params": {"progressToken": token, "progress": value, "total": 3}})


def finish(id_):
    if pending.pop(json.dumps(id_), "gone") != "gone":
        result(id_, {"content": [{"type": "text", "text": "slept"}]})


def cancelled(params):
    key = json.dumps(params.get("requestId"))
    if key in pending:
        pending.pop(key)
        if "late_answer" in MODES:
            late = {"content": [{"type": "text", "text": "late"}]}
            later(0.7, lambda: result(json.loads(key), late), owed=True)


def tools_list(id_, params):
    cursor = params.get("cursor")
    if cursor is None:
        return result(id_, {"tools": TOOLS[:2], "nextCursor": "page2"})
    if cursor != "page2":
        return error(id_, -32602, "invalid cursor")
    page = {"tools": TOOLS[2:]}
    if "cursor_loop" in MODES:
        page["nextCursor"] = "page2"
    result(id_, page)


def initialize(id_, params):
    asked = params.get("protocolVersion")
    version = asked if asked in VERSIONS or "echo_version" in MODES else "2025-11-25"
    result(id_, {"protocolVersion": version, "capabilities": {"tools": {}},
                 "serverInfo": {"name": "broken-" + MODE, "version": "1"}})


def request(id_, method, params):
    if method == "initialize":
        initialize(id_, params)
    elif method == "ping":
        if "ignore_ping" not in MODES:
            result(id_, {})
        if "answer_twice" in MODES:
            result(id_, {})
    elif method == "tools/list":
        tools_list(id_, params)
    elif method == "tools/call":
        call(id_, params)
    elif "unknown_method_result" in MODES:
        result(id_, {})
    else:
        error(id_, -32601, f"method not found: {method}")


def handle(line):
    try:
        msg = json.loads(line)
    except ValueError:
        return error(None, -32700, "parse error")
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0" or "method" not in msg:
        return error(None, -32600, "invalid request")
    id_, method, params = msg.get("id"), msg["method"], msg.get("params") or {}
    if "id" not in msg:
        if method == "notifications/cancelled":
            cancelled(params)
        return
    if not isinstance(id_, (str, int)) or isinstance(id_, bool):
        return error(None, -32600, "invalid request id")
    request(id_, method, params)


def main():
    buffered = b""
    while True:
        wait = max(0.0, timers[0][0] - time.monotonic()) if timers else None
        ready, _, _ = select.select([sys.stdin], [], [], wait)
        while timers and timers[0][0] <= time.monotonic():
            heapq.heappop(timers)[2]()
        if not ready:
            continue
        chunk = sys.stdin.buffer.read1(65536)
        if not chunk:
            return pay_owed()
        buffered += chunk
        while b"\n" in buffered:
            line, buffered = buffered.split(b"\n", 1)
            if line.strip():
                handle(line)


main()
