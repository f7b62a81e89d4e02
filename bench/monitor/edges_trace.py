#!/usr/bin/env python3
"""Writes a trace (docs/trace.md format) of messages on the edges of the flat scan of
crates/monitor/src/flat.rs: escapes, ids as strings and numbers, repeated members, unusual white
space, negative and float ids, batches, text that is no JSON, cancellations and progress, runs of
messages that differ only by their id (skeleton.rs), in the
legacy or the modern era: python3 bench/monitor/edges_trace.py legacy|modern > /tmp/edges.jsonl"""
import json, sys
era = sys.argv[1] if len(sys.argv) > 1 else "legacy"
t = 0.0
def line(d, raw):
    global t
    t += 0.001
    print(json.dumps({"t": round(t, 6), "dir": d, "raw": raw}))
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
if era == "legacy":
    line("c2s", json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}}))
    line("s2c", json.dumps({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "x", "version": "1"}}}))
    line("c2s", '{"jsonrpc":"2.0","method":"notifications/initialized"}')
else:
    line("c2s", json.dumps({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": meta}}))
    line("s2c", json.dumps({"jsonrpc": "2.0", "id": 0, "result": {"supportedVersions": ["2026-07-28"], "capabilities": {}, "serverInfo": {"name": "x", "version": "1"}, "resultType": "complete"}}))
msgs = [
    ("c2s", '{"jsonrpc":"2.0","id":1,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":1,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":"1","method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":"1","result":{}}'),
    ("c2s", ' \t{ "jsonrpc" : "2.0" ,\r\n "id" : 2 , "method" : "ping" } \n'), ("s2c", '{"jsonrpc":"2.0","id":2,"result":{ }}'),
    ("c2s", '{"jsonrpc":"2.0","id":3,"id":4,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":3,"result":{}}'), ("s2c", '{"jsonrpc":"2.0","id":4,"result":{}}'),
    ("c2s", '{"jsonrpc":"2\\u002e0","id":5,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":5,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":"a\\"b","method":"p\\u0069ng"}'), ("s2c", '{"jsonrpc":"2.0","id":"a\\"b","result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":-6,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":-6,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":7.0,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":7.0,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":1e1,"method":"ping"}'),
    ("c2s", '{"jsonrpc":"2.0","id":07,"method":"ping"}'),
    ("c2s", '{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":18446744073709551615,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":99999999999999999999,"method":"ping"}'),
    ("c2s", '{"jsonrpc":"1.0","id":8,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","jsonrpc":"1.0","id":8,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":9,"method":"ping","method":"tools/list"}'), ("s2c", '{"jsonrpc":"2.0","id":9,"result":{"tools":[]}}'),
    ("c2s", '[{"jsonrpc":"2.0","id":10,"method":"ping"}]'),
    ("c2s", '{"jsonrpc":"2.0","id":11,"method":"ping",}'),
    ("c2s", '{"jsonrpc":"2.0","id":null,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}'),
    ("c2s", '{"jsonrpc":"2.0","id":true,"method":"ping"}'),
    ("c2s", '{"jsonrpc":"2.0","id":12}'),
    ("s2c", '{"jsonrpc":"2.0","id":13,"result":{}}'),
    ("s2c", '{"jsonrpc":"2.0","id":14,"result":{},"error":{"code":1,"message":"m"}}'),
    ("c2s", '{"jsonrpc":"2.0","id":15,"method":"ping","params":{}}'), ("s2c", '{"jsonrpc":"2.0","id":15,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":16,"method":"ping","params":"x"}'), ("s2c", '{"jsonrpc":"2.0","id":16,"result":"x"}'),
    ("c2s", '{"jsonrpc":"2.0","id":17,"method":"ping","x":"\u00e9\u2713"}'), ("s2c", '{"jsonrpc":"2.0","id":17,"error":{"code":-32601,"message":"no"}}'),
    ("c2s", '{"jsonrpc":"2.0","id":18,"method":"ping"}x'),
    ("c2s", '{"jsonrpc":"2.0","id":"19","method":"ping"}'), ("c2s", '{"jsonrpc":"2.0","id":19,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":19,"result":{}}'), ("s2c", '{"jsonrpc":"2.0","id":"19","result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":20}}'),
    ("c2s", '{"jsonrpc":"2.0","id":21,"method":"ping"}'), ("c2s", '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":21}}'), ("s2c", '{"jsonrpc":"2.0","id":21,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":22,"method":"ping"}'), ("c2s", '{"jsonrpc":"2.0","id":22,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":22,"result":{}}'),
    ("c2s", 'not json'), ("s2c", 'Server started'), ("stderr", 'log line'),
    ("c2s", '"2.0"'), ("c2s", '{}'), ("c2s", '{"jsonrpc":"2.0","method":"notifications/initialized"}'),
    ("s2c", '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}'),
    ("c2s", '{"jsonrpc":"2.0","id":23,"method":"ping","params":{"_meta":{"progressToken":5}}}'),
    ("s2c", '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":1}}'),
    ("s2c", '{"jsonrpc":"2.0","id":23,"result":{}}'),
    # Messages like the one before of their side but for their id, read from it
    # (crates/monitor/src/skeleton.rs), and the ones that must not be.
    ("c2s", '{"jsonrpc":"2.0","id":30,"method":"ping"}'), ("c2s", '{"jsonrpc":"2.0","id":31,"method":"ping"}'),
    ("s2c", '{"jsonrpc":"2.0","id":30,"result":{}}'), ("s2c", '{"jsonrpc":"2.0","id":31,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}'), ("c2s", '{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}'),
    ("s2c", '{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}'), ("s2c", '{"jsonrpc":"2.0","id":9223372036854775808,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":032,"method":"ping"}'), ("c2s", '{"jsonrpc":"2.0","id":0,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":0,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":"a","id":33,"method":"ping"}'), ("c2s", '{"jsonrpc":"2.0","id":"a","id":34,"method":"ping"}'),
    ("c2s", '{"jsonrpc":"2.0","id":35,"id":"a","method":"ping"}'),
    ("s2c", '{"jsonrpc":"2.0","id":33,"result":{}}'), ("s2c", '{"jsonrpc":"2.0","id":34,"result":{}}'), ("s2c", '{"jsonrpc":"2.0","id":"a","result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":38,"method":"ping"}'), ("c2s", '{"jsonrpc":"2.0","id":39,"method":"tools/list"}'),
    ("s2c", '{"jsonrpc":"2.0","id":38,"result":{}}'), ("s2c", '{"jsonrpc":"2.0","id":39,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":40,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":40,"result":{}}'),
    ("c2s", '{"jsonrpc":"2.0","id":40,"method":"ping"}'), ("s2c", '{"jsonrpc":"2.0","id":40,"result":{}}'),
]
for d, raw in msgs:
    line(d, raw)
