"""A small stdio MCP server for the monitor's tests, correct or broken in one way:
python3 peer.py MODE. Each MODE breaks one rule family (or exercises the relay):

good                    a conforming server (tools, answers what it is asked)
banner                  writes a banner line to stdout first (S2)
answer_after_cancel     answers a tools/call after its cancellation arrived (C3)
answer_twice            answers tools/list twice (J6)
progress_after_result   sends progress for a call's token after answering it (P4)
unknown_token           sends progress for a token nobody gave (P2)
undeclared_list_changed sends tools/list_changed without declaring listChanged (T6)
batch                   answers ping inside a JSON array (J8)
early_notification      sends a notification before the initialize result (L8)
undeclared_sampling     asks the client for sampling it never declared (X1)
progress_backwards      sends progress 2 then 1 for a call's token (P3)
cursor_loop             ends the tool listing with an empty next cursor (G3)
bad_meta                puts a `_meta` key that is no valid name in the listing (J12)
unknown_tool_error      lists no tools, and answers a call of one with isError (T5)
url_elicitation_error   answers a call with -32042 to a client without URL elicitation (X5)
unsubscribed_update     sends resources/updated for a resource nobody subscribed to (X2)
tasks_and_sampling      a conforming server of tasks (tools/call) that asks for sampling with
                        tools once initialized: tool uses answered, tasks/result names its task
sampling_unpaired       as tasks_and_sampling, but mixes text into the tool results (X4)
task_result_unrelated   as tasks_and_sampling, but tasks/result lacks its related-task (X7)
bytes                   writes a banner, invalid UTF-8, a 10 MB message and a split message
crash                   writes half a message and exits with status 3
signal                  kills itself with SIGKILL after the initialize result
stderr_flood            writes 4 MB to stderr, then behaves
hang                    reads requests and never answers
"""

import json
import os
import signal
import sys
import time

MODE = sys.argv[1]
out = sys.stdout.buffer
TASKS = MODE in ("tasks_and_sampling", "sampling_unpaired", "task_result_unrelated")
TASK = {"taskId": "t1", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
        "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": 60000}


def send(obj) -> None:
    out.write(json.dumps(obj).encode() + b"\n")
    out.flush()


def result(id_, res) -> None:
    send({"jsonrpc": "2.0", "id": id_, "result": res})


def sampling_with_tools() -> dict:
    """A sampling request that goes on after a tool use: the tool's result answers it (mixed
    with text in sampling_unpaired)."""
    results = [{"type": "tool_result", "toolUseId": "u1",
                "content": [{"type": "text", "text": "sunny"}]}]
    if MODE == "sampling_unpaired":
        results.insert(0, {"type": "text", "text": "here are the results"})
    messages = [{"role": "user", "content": {"type": "text", "text": "weather?"}},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "u1",
                                                   "name": "weather", "input": {}}]},
                {"role": "user", "content": results}]
    tools = [{"name": "weather", "inputSchema": {"type": "object"}}]
    return {"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage",
            "params": {"messages": messages, "tools": tools, "maxTokens": 100}}


def main() -> None:
    if MODE == "banner":
        out.write(b"Server ready on stdio\n")
        out.flush()
    if MODE == "stderr_flood":
        sys.stderr.write("log line\n" * 450_000)
        sys.stderr.flush()
    if MODE == "bytes":
        out.write(b"banner line\n\xff\xfe not UTF-8\n")
        out.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                              "params": {"level": "info", "data": "x" * 10_000_000}}).encode() + b"\n")
        out.write(b'{"jsonrpc":"2.0","method":"notifications/me')
        out.flush()
        time.sleep(0.2)
        out.write(b'ssage","params":{"level":"info","data":"split"}}\n')
        out.flush()
    if MODE == "hang":
        for _ in sys.stdin.buffer:
            pass
        while True:
            time.sleep(60)
    pending = None
    for line in sys.stdin.buffer:
        msg = json.loads(line)
        method, id_ = msg.get("method"), msg.get("id")
        if method == "initialize":
            caps = {"tools": {}, "logging": {}}
            if MODE == "unsubscribed_update":
                caps["resources"] = {"subscribe": True}
            if TASKS:
                caps["tasks"] = {"requests": {"tools": {"call": {}}}}
            if MODE == "crash":
                out.write(b'{"jsonrpc":"2.0","id":')
                out.flush()
                sys.exit(3)
            if MODE == "early_notification":
                send({"jsonrpc": "2.0", "method": "notifications/elicitation/complete",
                      "params": {"elicitationId": "e"}})
            result(id_, {"protocolVersion": "2025-11-25", "capabilities": caps,
                         "serverInfo": {"name": "peer", "version": "1"}})
            if MODE == "signal":
                os.kill(os.getpid(), signal.SIGKILL)
        elif method == "notifications/initialized" and MODE == "undeclared_list_changed":
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        elif method == "notifications/initialized" and MODE == "undeclared_sampling":
            send({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage",
                  "params": {"messages": [], "maxTokens": 1}})
        elif method == "notifications/initialized" and MODE == "unsubscribed_update":
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                  "params": {"uri": "file:///never-subscribed"}})
        elif method == "notifications/initialized" and TASKS:
            send(sampling_with_tools())
        elif method == "ping":
            if MODE == "batch":
                out.write(json.dumps([{"jsonrpc": "2.0", "id": id_, "result": {}}]).encode() + b"\n")
                out.flush()
            else:
                result(id_, {})
        elif method == "tools/list":
            listing = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
            if MODE == "cursor_loop":
                listing["nextCursor"] = ""
            if MODE == "bad_meta":
                listing["_meta"] = {"_private": True}
            if MODE == "unknown_tool_error":
                listing["tools"] = []
            result(id_, listing)
            if MODE == "answer_twice":
                result(id_, {"tools": []})
        elif method == "tools/call" and TASKS and "task" in msg.get("params", {}):
            result(id_, {"task": TASK})
        elif method == "tasks/result" and TASKS:
            related = {"io.modelcontextprotocol/related-task": {"taskId": "t1"}}
            meta = {} if MODE == "task_result_unrelated" else {"_meta": related}
            result(id_, {"content": [{"type": "text", "text": "done"}], **meta})
        elif method == "tools/call":
            token = msg.get("params", {}).get("_meta", {}).get("progressToken")
            if MODE == "answer_after_cancel":
                pending = id_
                continue
            if MODE == "progress_backwards" and token is not None:
                for value in (2, 1):
                    send({"jsonrpc": "2.0", "method": "notifications/progress",
                          "params": {"progressToken": token, "progress": value}})
            if MODE == "unknown_tool_error":
                result(id_, {"content": [{"type": "text", "text": "unknown tool"}], "isError": True})
                continue
            if MODE == "url_elicitation_error":
                send({"jsonrpc": "2.0", "id": id_, "error": {
                    "code": -32042, "message": "URL elicitation required",
                    "data": {"elicitations": []}}})
                continue
            if MODE == "unknown_token":
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": "nobody", "progress": 1}})
            result(id_, {"content": [{"type": "text", "text": "hi"}]})
            if MODE == "progress_after_result" and token is not None:
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": 1}})
        elif method == "notifications/cancelled" and pending is not None:
            time.sleep(1.5)  # well after the cancel: not a crossing
            result(pending, {"content": []})
            pending = None
        elif id_ is not None and method is not None:
            send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": "no"}})


main()
