"""A small Streamable HTTP MCP server for the monitor's tests, correct or broken in one way:
python3 http_peer.py MODE. It listens on a free loopback port, prints the port on the first
line of stdout, and serves until killed. Each MODE breaks one HTTP rule:

good                conforming: JSON and SSE answers, 202 for notifications, a session id,
                    404 for a terminated session, 400 for a bad MCP-Protocol-Version
notification_200    answers a notification 200 instead of 202 (H2)
request_text        answers a request with content type text/plain (H3)
bad_session_id      gives a session id that is not visible ASCII (H4)
alive_after_delete  still serves a session after its DELETE (H4)
get_json            answers the GET with application/json instead of an SSE stream (H6)
response_on_get     answers tools/list on the GET stream, not on its POST's stream (H6)

Modern requests (2026-07-28, with _meta) get modern answers: 405 to GET and DELETE, 400 with
-32020 when a header does not match the body, 404 with -32601 for an unknown method.

modern_status       sends -32601 for an unknown method with status 200 (H9)
modern_get_sse      answers the GET with an SSE stream instead of 405 (H10)
modern_after_response  sends a log message on tools/list's stream after its response (H10)
modern_request      sends a ping request on tools/list's stream (H10)
modern_lenient      answers a request whose _meta lacks the version with a result (H9)

A subscriptions/listen is acknowledged, gets the notifications it asked for, then a result.

modern_listen_unrequested  sends prompts/list_changed on a listen that did not ask for it (M13)
modern_listen_log   sends a log message on a listen stream (M14)
modern_listen_unmarked  sends tools/list_changed on a listen stream without its subscriptionId (M13)
modern_slow         answers tools/call 6 on an SSE stream a second after its head, whether
                    or not the client closed the stream meanwhile (C4 when it did)
modern_slow_honours_close  the same, but a close of the stream (the end of the connection,
                    which the monitor passes on as a half-close) cancels the call: no answer
"""

import json
import select
import socket
import time
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1]
# What a complete modern result of discovery or a listing carries: the server's name (M2) and
# cache hints (M10).
# The one modern tool: its `region` argument is mirrored into the Mcp-Param-Region header.
WEATHER = {"name": "weather", "inputSchema": {"type": "object", "properties": {
    "region": {"type": "string", "x-mcp-header": "Region"}}}}
HINTS = {"ttlMs": 0, "cacheScope": "private",
         "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "http-peer", "version": "1"}}}
VERSIONS = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}
SESSION = "session 1" if MODE == "bad_session_id" else "s-1"
ended = set()
held = []  # responses kept for the GET stream (response_on_get)


def event(message) -> bytes:
    return b"id: e\ndata: " + json.dumps(message).encode() + b"\n\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def send(self, status: int, content_type=None, body=b"", headers=()) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def refused(self) -> bool:
        """404 for a terminated session, 400 for a bad version: True when refused."""
        if self.headers.get("Mcp-Session-Id") in ended and MODE != "alive_after_delete":
            self.send(404)
            return True
        version = self.headers.get("MCP-Protocol-Version")
        if version is not None and version not in VERSIONS:
            self.send(400)
            return True
        return False

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        message = json.loads(body)
        if "_meta" in message.get("params", {}):
            self.modern(message)
            return
        if self.headers.get("MCP-Protocol-Version") == "2026-07-28" and "id" not in message:
            self.send(202)  # a modern notification
            return
        if message.get("method") != "initialize" and self.refused():
            return
        if "id" not in message:
            if MODE == "notification_200":
                self.send(200)
            else:
                self.send(202)
            return
        self.answer(message)

    def answer(self, message) -> None:
        method, id_ = message["method"], message["id"]
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25",
                      "capabilities": {"tools": {"listChanged": True}},
                      "serverInfo": {"name": "http-peer", "version": "1"}}
            reply = json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}).encode()
            self.send(200, "application/json", reply, [("Mcp-Session-Id", SESSION)])
            return
        result = {"tools": []} if method == "tools/list" else {}
        response = {"jsonrpc": "2.0", "id": id_, "result": result}
        if MODE == "request_text":
            self.send(200, "text/plain", json.dumps(response).encode())
        elif MODE == "response_on_get" and method == "tools/list":
            held.append(response)
            self.send(200, "text/event-stream", b"id: p\ndata: \n\n")
        elif method == "tools/list":
            self.send(200, "text/event-stream", b"id: p\ndata: \n\n" + event(response))
        else:
            self.send(200, "application/json", json.dumps(response).encode())

    def modern(self, message) -> None:
        method, id_ = message["method"], message.get("id")
        version = message["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion")
        lenient = MODE == "modern_lenient" and version is None
        if not lenient and (self.headers.get("MCP-Protocol-Version"), self.headers.get("Mcp-Method")) != (version, method):
            error = {"code": -32020, "message": "headers do not match the body"}
            self.json(400, {"jsonrpc": "2.0", "id": id_, "error": error})
        elif method == "server/discover":
            result = {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                      "capabilities": {"tools": {}}, **HINTS}
            self.json(200, {"jsonrpc": "2.0", "id": id_, "result": result})
        elif method == "tools/list":
            response = {"jsonrpc": "2.0", "id": id_,
                        "result": {"resultType": "complete", "tools": [WEATHER], **HINTS}}
            log = {"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "data": "listed"}}
            ping = {"jsonrpc": "2.0", "id": "s1", "method": "ping"}
            stream = {"modern_after_response": [response, log],
                      "modern_request": [ping, response]}.get(MODE, [response])
            self.send(200, "text/event-stream", b"".join(event(m) for m in stream))
        elif method == "subscriptions/listen":
            self.listen(id_, message["params"]["notifications"])
        elif method == "tools/call":
            region = message["params"].get("arguments", {}).get("region")
            if self.headers.get("Mcp-Param-Region") != region:
                error = {"code": -32020, "message": "Mcp-Param-Region does not match"}
                self.json(400, {"jsonrpc": "2.0", "id": id_, "error": error})
            else:
                result = {"resultType": "complete", "content": [{"type": "text", "text": "sunny"}],
                          "_meta": HINTS["_meta"]}
                if MODE.startswith("modern_slow") and id_ == 6:
                    self.slow({"jsonrpc": "2.0", "id": id_, "result": result})
                else:
                    self.json(200, {"jsonrpc": "2.0", "id": id_, "result": result})
        else:
            error = {"code": -32601, "message": f"no method {method}"}
            status = 200 if MODE == "modern_status" else 404
            self.json(status, {"jsonrpc": "2.0", "id": id_, "error": error})

    def slow(self, response) -> None:
        """An SSE stream whose response comes a second after its head (the client may close
        the stream meanwhile: its cancellation)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        if MODE == "modern_slow_honours_close":
            readable, _, _ = select.select([self.connection], [], [], 1.0)
            if readable and not self.connection.recv(1, socket.MSG_PEEK):
                return  # the client closed the stream: the call is cancelled
        else:
            time.sleep(1.0)
        try:
            self.wfile.write(event(response))
            self.wfile.flush()
        except OSError:
            pass

    def listen(self, id_, asked) -> None:
        """A listen's stream: the acknowledgement, what it asked for, and its end."""
        on_stream = {"_meta": {"io.modelcontextprotocol/subscriptionId": id_}}

        def note(method, **params):
            return {"jsonrpc": "2.0", "method": method, "params": {**params, **on_stream}}

        stream = [note("notifications/subscriptions/acknowledged", notifications=asked)]
        if asked.get("toolsListChanged"):
            stream.append(note("notifications/tools/list_changed"))
        if MODE == "modern_listen_unmarked":
            stream.append({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        if MODE == "modern_listen_unrequested":
            stream.append(note("notifications/prompts/list_changed"))
        if MODE == "modern_listen_log":
            stream.append(note("notifications/message", level="info", data="listening"))
        end = {"resultType": "complete", "_meta": {**HINTS["_meta"], **on_stream["_meta"]}}
        stream.append({"jsonrpc": "2.0", "id": id_, "result": end})
        self.send(200, "text/event-stream", b"".join(event(m) for m in stream))

    def json(self, status: int, message) -> None:
        self.send(status, "application/json", json.dumps(message).encode())

    def do_GET(self) -> None:
        if self.headers.get("MCP-Protocol-Version") == "2026-07-28":
            if MODE == "modern_get_sse":
                self.send(200, "text/event-stream", b": nothing yet\n\n")
            else:
                self.send(405)
            return
        if self.refused():
            return
        if MODE == "get_json":
            self.send(200, "application/json")
            return
        changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
        stream = b"".join(event(m) for m in held) + event(changed)
        self.send(200, "text/event-stream", stream)

    def do_DELETE(self) -> None:
        if self.headers.get("MCP-Protocol-Version") == "2026-07-28":
            self.send(405)
            return
        if self.refused():
            return
        ended.add(self.headers.get("Mcp-Session-Id"))
        self.send(200)


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
