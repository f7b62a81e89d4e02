"""The monitor benchmark's client: python3 client.py MODE N -- SERVER ARGS...

Initializes, then sends N `ping` requests and prints, as JSON, messages per second (requests
and responses) and the p50 and p99 round trip in milliseconds. MODE says how they are sent:

- `sequential`: one after the other, each waiting for its answer (latency-bound);
- `flood`: as fast as the client can write them, answers read by a second thread (the
  throughput of whatever sits between client and server);
- `rate=R`: R requests per second at fixed times (the round trip at a steady load, and
  whether the path keeps up: `achieved_per_s`)."""

import json
import subprocess
import sys
import threading
import time

mode, n = sys.argv[1], int(sys.argv[2])
server = subprocess.Popen(sys.argv[sys.argv.index("--") + 1 :], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE)


def send(id_, method, params=None):
    msg = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        msg["params"] = params
    server.stdin.write(json.dumps(msg).encode() + b"\n")
    server.stdin.flush()


def initialize():
    send(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "bench", "version": "1"}})
    server.stdout.readline()
    server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    server.stdin.flush()


def sequential():
    trips = []
    for i in range(1, n + 1):
        t = time.perf_counter()
        send(i, "ping")
        server.stdout.readline()
        trips.append(time.perf_counter() - t)
    return trips


def pipelined(interval):
    """Sends at `interval` seconds apart (0: as fast as possible); a thread reads answers."""
    sent = [0.0] * (n + 1)
    trips = []

    def read():
        for _ in range(n):
            reply = json.loads(server.stdout.readline())
            trips.append(time.perf_counter() - sent[reply["id"]])

    reader = threading.Thread(target=read)
    reader.start()
    start = time.perf_counter()
    for i in range(1, n + 1):
        if interval:
            while time.perf_counter() < start + i * interval:
                pass
        sent[i] = time.perf_counter()
        send(i, "ping")
    reader.join()
    return trips


initialize()
start = time.perf_counter()
if mode == "sequential":
    trips = sequential()
elif mode == "flood":
    trips = pipelined(0)
elif mode.startswith("rate="):
    trips = pipelined(1 / float(mode.split("=")[1]))
else:
    sys.exit(f"unknown mode {mode}: sequential, flood or rate=R")
elapsed = time.perf_counter() - start
server.stdin.close()
server.wait()
trips.sort()
print(json.dumps({"messages_per_s": round(2 * n / elapsed),
                  "achieved_per_s": round(n / elapsed),
                  "p50_ms": round(trips[n // 2] * 1000, 3),
                  "p99_ms": round(trips[int(n * 0.99)] * 1000, 3)}))
