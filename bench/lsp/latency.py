"""Time from `didChange` to `publishDiagnostics` of `agentpi lsp` on a generated model.

Usage: latency.py LINES CHANGES AGENTPI [ARGS...]. Writes the model (units of six lines: a
comment, a channel, a two-line process, a system, a check), starts the server over pipes,
opens the model, then sends CHANGES full-text changes (every other one brings a type error,
the next one removes it) and waits for each one's diagnostics. Prints the model's size and
the latency's median, 90th percentile and maximum in milliseconds.
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def model(lines, broken):
    units = []
    for k in range(lines // 6):
        value = "true" if broken and k == 0 else "1"
        units.append(
            f"// Unit {k}: a process that counts down on its own channel.\n"
            f"chan c{k} : 0..3\n"
            f"proc P{k}(x: 0..3) = c{k}!x . c{k}?y .\n"
            f"    if y > 0 then P{k}(y - 1) else 0\n"
            f"system S{k} = P{k}({value}) | (c{k}?z . c{k}!z) ; 0\n"
            f"check S{k}: deadlock free\n"
        )
    return "".join(units)


def send(proc, message):
    body = json.dumps(message).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def receive(proc):
    length = 0
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(proc.stdout.read(length))


def until(proc, predicate):
    while True:
        message = receive(proc)
        if predicate(message):
            return message


def main():
    lines, changes, command = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    folder = tempfile.mkdtemp(prefix="agentpi-lsp-bench-")
    path = os.path.join(folder, "big.pi")
    text = model(lines, False)
    with open(path, "w") as f:
        f.write(text)
    uri = "file://" + path
    proc = subprocess.Popen(command + ["lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    until(proc, lambda m: m.get("id") == 1)
    send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    document = {"uri": uri, "languageId": "agentpi", "version": 1, "text": text}
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": document}})
    published = lambda m: m.get("method") == "textDocument/publishDiagnostics"
    first = until(proc, published)
    assert first["params"]["diagnostics"] == [], first
    times = []
    for version in range(2, changes + 2):
        broken = version % 2 == 0
        change = {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": model(lines, broken)}],
        }
        start = time.perf_counter()
        send(proc, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": change})
        message = until(proc, published)
        times.append((time.perf_counter() - start) * 1000)
        assert bool(message["params"]["diagnostics"]) == broken, message
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    until(proc, lambda m: m.get("id") == 2)
    send(proc, {"jsonrpc": "2.0", "method": "exit", "params": None})
    proc.wait(timeout=10)
    os.remove(path)
    os.rmdir(folder)
    times.sort()
    print(
        f"{text.count(chr(10))} lines, {len(text)} bytes, {changes} changes: "
        f"median {times[len(times) // 2]:.1f} ms, p90 {times[len(times) * 9 // 10]:.1f} ms, "
        f"max {times[-1]:.1f} ms"
    )


main()
