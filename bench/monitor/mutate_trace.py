#!/usr/bin/env python3
"""Writes a flood trace with 2 % of odd events added after random lines (seeded): stray responses,
string ids, cancellations, reused ids, stray progress. For holding two builds' checkers to the
same findings off the flood's one path: python3 bench/monitor/mutate_trace.py FLOOD.jsonl SEED"""
import json, random, sys
random.seed(int(sys.argv[2]))
lines = open(sys.argv[1]).read().splitlines()
out = []
for ln in lines:
    out.append(ln)
    if random.random() < 0.02:
        e = json.loads(ln)
        n = random.randint(1, 3000)
        kind = random.choice(["stray", "strid", "cancel", "reuse", "prog"])
        raw = {
            "stray": {"jsonrpc": "2.0", "id": n + 100000, "result": {}},
            "strid": {"jsonrpc": "2.0", "id": str(n), "method": "ping"},
            "cancel": {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": n}},
            "reuse": {"jsonrpc": "2.0", "id": n, "method": "ping"},
            "prog": {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": n, "progress": 1}},
        }[kind]
        d = "s2c" if kind in ("stray", "prog") else "c2s"
        out.append(json.dumps({"t": e.get("t", 0), "dir": d, "raw": json.dumps(raw, separators=(",", ":"))}))
print("\n".join(out))
