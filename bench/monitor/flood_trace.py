#!/usr/bin/env python3
"""Writes a flood trace (docs/trace.md format) to stdout: a legacy handshake, then N pings
with up to PEAK in flight (the server answers ping i - PEAK after ping i), then the rest of the
answers. The same input every time, for timing `agentpi trace check` on a flood without a
recording: python3 bench/monitor/flood_trace.py [N] [PEAK] > /tmp/flood.jsonl"""
import json
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
peak = int(sys.argv[2]) if len(sys.argv) > 2 else 1200
t = 0.0


def line(direction, message):
    global t
    t += 0.00001
    print(json.dumps({"t": round(t, 6), "dir": direction, "raw": json.dumps(message)}))


version = "2025-11-25"
info = {"name": "flood", "version": "1"}
line("c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": info}})
line("s2c", {"jsonrpc": "2.0", "id": 0,
             "result": {"protocolVersion": version, "capabilities": {}, "serverInfo": info}})
line("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"})
for i in range(1, n + 1):
    line("c2s", {"jsonrpc": "2.0", "id": i, "method": "ping"})
    if i > peak:
        line("s2c", {"jsonrpc": "2.0", "id": i - peak, "result": {}})
for i in range(max(1, n - peak + 1), n + 1):
    line("s2c", {"jsonrpc": "2.0", "id": i, "result": {}})
