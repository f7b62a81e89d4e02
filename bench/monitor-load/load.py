"""The HTTP monitor under load: python3 load.py serve | client URL SESSIONS REQUESTS | bench AGENTPI
SESSIONS REQUESTS.

- `serve`: a fast Streamable HTTP server on loopback (asyncio, stdlib only) that prints its port
  and serves until killed. Its answers depend on the request alone (`answer`): `initialize`
  gets a session named after the client, a notification 202, `tools/list` a JSON body and
  `tools/call` an SSE stream of two progress notifications and the result, sent event by event.
- `client`: SESSIONS concurrent sessions, each on one kept-alive connection: `initialize`, the
  `initialized` notification, then REQUESTS requests (`tools/list` and `tools/call` in turn).
  Every answer's status and body must be exactly the bytes `answer` gives for its request (so
  every byte came through, in order); prints JSON: requests, seconds, requests/s, p50 and p99
  latency (ms), answers that differed, and a digest of every answer in session order.
- `bench`: the server, the client direct, `AGENTPI monitor --listen` in front of the server
  (recording and checking), the client through it while the monitor's resident memory is
  sampled, SIGTERM; prints a Markdown table and exits 1 when an answer differed, the digests
  differ or the monitor did not end with status 0.
"""

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

VERSION = "2025-06-18"


def answer(message, session):
    """(status, headers, body chunks) the server sends for `message` in `session`."""
    method, id_ = message.get("method"), message.get("id")
    if id_ is None:
        return 202, [], []
    if method == "initialize":
        name = message["params"]["clientInfo"]["name"]
        result = {"protocolVersion": VERSION, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "load", "version": "1"}}
        body = json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}).encode()
        return 200, [("Mcp-Session-Id", "s-" + name)], [body]
    # Some bytes that depend on the session and the request, so that a mix-up shows.
    text = f"{session}/{id_}:" + "x" * (200 + 37 * (id_ % 50))
    if method == "tools/list":
        tools = [{"name": f"t{i}", "description": text, "inputSchema": {"type": "object"}}
                 for i in range(3)]
        body = json.dumps({"jsonrpc": "2.0", "id": id_, "result": {"tools": tools}})
        return 200, [], [body.encode()]
    events = []
    for step in (1, 2):
        note = {"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": id_, "progress": step, "total": 2}}
        events.append(f"event: message\ndata: {json.dumps(note)}\n\n".encode())
    result = {"content": [{"type": "text", "text": text}]}
    final = json.dumps({"jsonrpc": "2.0", "id": id_, "result": result})
    events.append(f"event: message\ndata: {final}\n\n".encode())
    return 200, [("Content-Type", "text/event-stream")], events


async def read_message(reader):
    """(first line, headers (lower-case names), body) of the next HTTP message; None at EOF."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            body += await reader.readexactly(size + 2)
            body = body[:-2]
            if size == 0:
                return lines[0], headers, body
    length = int(headers.get("content-length", "0"))
    return lines[0], headers, await reader.readexactly(length)


async def serve_connection(reader, writer):
    try:
        while (message := await read_message(reader)) is not None:
            _, headers, body = message
            status, extra, chunks = answer(json.loads(body), headers.get("mcp-session-id"))
            reason = {200: "OK", 202: "Accepted"}[status]
            head = f"HTTP/1.1 {status} {reason}\r\n"
            if any(name == "Content-Type" for name, _ in extra):
                head += "Transfer-Encoding: chunked\r\n"
            else:
                length = sum(map(len, chunks))
                type_ = "Content-Type: application/json\r\n" if chunks else ""
                head += f"{type_}Content-Length: {length}\r\n"
            head += "".join(f"{name}: {value}\r\n" for name, value in extra) + "\r\n"
            writer.write(head.encode())
            chunked = "Transfer-Encoding" in head
            for chunk in chunks:
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
                # Each event goes out on its own, as a server's stream would.
                await writer.drain()
            if chunked:
                writer.write(b"0\r\n\r\n")
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    writer.close()


async def serve():
    server = await asyncio.start_server(serve_connection, "127.0.0.1", 0, backlog=4096)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


def expected(message, session):
    status, _, chunks = answer(message, session)
    return status, b"".join(chunks)


async def session(url, index, requests, latencies, digest):
    """One client session; returns how many answers differed from `answer`'s."""
    host, rest = url.split("://", 1)[1].split("/", 1)
    address, port = host.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(address, int(port))
    name, sid, wrong = f"c{index}", None, 0
    messages = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
                 "params": {"protocolVersion": VERSION, "capabilities": {},
                            "clientInfo": {"name": name, "version": "1"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    for n in range(1, requests + 1):
        method = "tools/list" if n % 2 else "tools/call"
        params = {} if n % 2 else {"name": "t0", "arguments": {},
                                   "_meta": {"progressToken": n}}
        messages.append({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
    for message in messages:
        body = json.dumps(message).encode()
        head = (f"POST /{rest} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n")
        if sid:
            head += f"Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: {VERSION}\r\n"
        started = time.perf_counter()
        writer.write(head.encode() + b"\r\n" + body)
        first, headers, got = await read_message(reader)
        if "id" in message:
            latencies.append(time.perf_counter() - started)
        status = int(first.split(" ")[1])
        sid = sid or headers.get("mcp-session-id")
        if (status, got) != expected(message, sid):
            wrong += 1
        digest.update(b"%d %d\n" % (status, len(got)) + got)
    writer.close()
    return wrong


async def client(url, sessions, requests):
    latencies, digests = [], [hashlib.sha256() for _ in range(sessions)]
    started = time.perf_counter()
    wrong = await asyncio.gather(*(session(url, i, requests, latencies, digests[i])
                                   for i in range(sessions)))
    seconds = time.perf_counter() - started
    latencies.sort()
    total = hashlib.sha256(b"".join(d.digest() for d in digests)).hexdigest()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
    return {"requests": len(latencies), "seconds": round(seconds, 3),
            "requests_per_s": round(len(latencies) / seconds),
            "p50_ms": round(pick(0.50), 2), "p99_ms": round(pick(0.99), 2),
            "wrong": sum(wrong), "digest": total}


def run_client(url, sessions, requests):
    """The client in a process of its own (as a real client is), its result as a dict."""
    out = subprocess.run([sys.executable, __file__, "client", url, str(sessions), str(requests)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def bench(agentpi, sessions, requests):
    server = subprocess.Popen([sys.executable, __file__, "serve"], stdout=subprocess.PIPE,
                              text=True)
    port = int(server.stdout.readline())
    upstream = f"http://127.0.0.1:{port}/mcp"
    work = tempfile.mkdtemp(prefix="monitor-load-")
    try:
        direct = run_client(upstream, sessions, requests)
        monitor = subprocess.Popen(
            [agentpi, "monitor", "--listen", "127.0.0.1:0", "--upstream", upstream,
             "--record", f"{work}/record.jsonl", "--report", f"{work}/report.json",
             *os.environ.get("MONITOR_ARGS", "").split()],
            stderr=subprocess.PIPE, text=True)
        banner = monitor.stderr.readline()
        url = next(w for w in banner.split() if w.startswith("http://")).rstrip(",")
        idle_kib = kib(monitor.pid, "VmRSS")
        peak, done = [idle_kib], threading.Event()

        def sample():
            while not done.wait(0.05):
                peak[0] = max(peak[0], kib(monitor.pid, "VmRSS"))

        sampler = threading.Thread(target=sample)
        sampler.start()
        proxied = run_client(url, sessions, requests)
        done.set()
        sampler.join()
        hwm = kib(monitor.pid, "VmHWM")
        # How much of the record the observer had written when the load ended (the rest was
        # still in its channel).
        written = os.path.getsize(f"{work}/record.jsonl")
        after_kib = kib(monitor.pid, "VmRSS")
        monitor.terminate()
        rest = monitor.stderr.read()
        status = monitor.wait()
        report = json.load(open(f"{work}/report.json"))
        record_mib = os.path.getsize(f"{work}/record.jsonl") / 2**20
    finally:
        server.kill()
        subprocess.run(["rm", "-rf", work])
    same = direct["digest"] == proxied["digest"]
    judged = report.get("sessions", [])
    print(f"{sessions} concurrent sessions x ({requests} requests + initialize), "
          f"{proxied['requests']} requests each way; every answer byte for byte as the server's: "
          f"direct {direct['wrong'] == 0}, through the monitor {proxied['wrong'] == 0}; "
          f"digests equal: {same}")
    print()
    print("| path | requests/s | p50 ms | p99 ms | seconds |")
    print("| --- | --- | --- | --- | --- |")
    for name, run in (("direct", direct), ("through `monitor --listen`", proxied)):
        print(f"| {name} | {run['requests_per_s']} | {run['p50_ms']} | {run['p99_ms']} "
              f"| {run['seconds']} |")
    print()
    print(f"monitor resident memory: {idle_kib / 1024:.1f} MiB listening, peak "
          f"{max(peak[0], hwm) / 1024:.1f} MiB (VmHWM), {after_kib / 1024:.1f} MiB after the "
          f"load; record {record_mib:.1f} MiB "
          f"({100 * written / 2**20 / record_mib:.0f} % written when the load ended); report: {len(judged)} sessions judged, "
          f"{sum(s['messages'] for s in judged)} messages in them, "
          f"{len(report.get('violations', []))} violations, notes {report.get('notes')}; "
          f"exit status {status}")
    ok = same and direct["wrong"] == 0 and proxied["wrong"] == 0 and status == 0
    if not ok:
        print(rest, file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "serve":
        asyncio.run(serve())
    elif command == "client":
        result = asyncio.run(client(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
        print(json.dumps(result))
    else:
        sys.exit(bench(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
