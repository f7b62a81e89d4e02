"""The monitor benchmark's client: python3 client.py N -- SERVER ARGS...
Initializes, then sends N `ping` requests one after the other (each waits for its answer)
and prints messages per second and the p50 and p99 round trip in milliseconds as JSON."""

import json
import subprocess
import sys
import time

n = int(sys.argv[1])
server = subprocess.Popen(sys.argv[sys.argv.index("--") + 1 :], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE)


def call(id_, method, params=None):
    msg = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    server.stdin.write(json.dumps(msg).encode() + b"\n")
    server.stdin.flush()
    server.stdout.readline()


call(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "bench", "version": "1"}})
server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
server.stdin.flush()
trips = []
start = time.perf_counter()
for i in range(1, n + 1):
    t = time.perf_counter()
    call(i, "ping")
    trips.append(time.perf_counter() - t)
elapsed = time.perf_counter() - start
server.stdin.close()
server.wait()
trips.sort()
print(json.dumps({"messages_per_s": round(2 * n / elapsed),
                  "p50_ms": round(trips[n // 2] * 1000, 3),
                  "p99_ms": round(trips[int(n * 0.99)] * 1000, 3)}))
