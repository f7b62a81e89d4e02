"""A scripted stdio MCP client: python3 script_client.py SCRIPT -- SERVER ARGS...
Sends the JSON-RPC lines of SCRIPT one at a time, waiting (up to 5 s) for the response to
each request unless the next line cancels it, answers the server's requests with an error,
then closes the server's stdin and reads its stdout to the end. It writes nothing else."""

import json
import subprocess
import sys
import threading
import queue

script = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
server = subprocess.Popen(sys.argv[sys.argv.index("--") + 1 :], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE)
inbox: "queue.Queue[dict]" = queue.Queue()


def read() -> None:
    for line in server.stdout:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict) and "method" in msg and "id" in msg:
            write({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}})
        elif isinstance(msg, dict):
            inbox.put(msg)


lock = threading.Lock()


def write(msg: dict) -> None:
    with lock:
        server.stdin.write(json.dumps(msg).encode() + b"\n")
        server.stdin.flush()


threading.Thread(target=read, daemon=True).start()
for i, msg in enumerate(script):
    write(msg)
    following = script[i + 1] if i + 1 < len(script) else {}
    cancels = following.get("method") == "notifications/cancelled"
    if "id" in msg and "method" in msg and not cancels:
        try:
            while inbox.get(timeout=5).get("id") != msg["id"]:
                pass
        except queue.Empty:
            pass
server.stdin.close()
server.wait()
