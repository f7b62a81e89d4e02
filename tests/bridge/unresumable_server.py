"""A scripted legacy MCP server (2025-11-25) on Streamable HTTP whose streams cannot be resumed:
`tools/call drop` answers with an SSE stream that gives one event with an id (so the client
may resume it) and then ends without the call's answer; a GET with `Last-Event-ID` that
resumes it is refused with STATUS (400: the server keeps the session, as for an event id it
does not know; 404: the session is gone, and every later request naming it gets 404 until
the client initializes again). Any other call (`add`) is answered at once in a JSON body.
Scripted, not an SDK's: no SDK server refuses a resumption it made possible (the Python SDK
1.x replays from its event store, and a store that cannot answers 200 with an empty stream),
and a refusal is what a server restarted behind a load balancer, or one whose event store
forgot the stream, says. Standard library only.

python unresumable_server.py STATUS PORT      (http://127.0.0.1:PORT/mcp; 0: any free port)
"""
import http.server
import json
import sys
import uuid

STATUS = int(sys.argv[1])
SESSIONS = set()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def json(self, message, headers=()):
        body = json.dumps(message).encode()
        self.answer(200, body, [("Content-Type", "application/json"), *headers])

    def do_POST(self):
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        session = self.headers.get("Mcp-Session-Id")
        method, id = message.get("method"), message.get("id")
        if method == "initialize":
            session = uuid.uuid4().hex
            SESSIONS.add(session)
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "unresumable", "version": "1"},
            }
            return self.json({"jsonrpc": "2.0", "id": id, "result": result}, [("Mcp-Session-Id", session)])
        if session is None:
            return self.answer(400, b"no session id")
        if session not in SESSIONS:
            return self.answer(404, b"no such session")
        if id is None or method is None:
            return self.answer(202)
        if method == "tools/call" and message["params"]["name"] == "drop":
            # One event with an id, then the end, the call unanswered: the client may resume.
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"id: drop-1\ndata: \n\n")
            self.wfile.flush()
            self.close_connection = True
            return
        if method == "tools/call":
            args = message["params"].get("arguments", {})
            text = str(args.get("a", 0) + args.get("b", 0))
            result = {"content": [{"type": "text", "text": text}], "isError": False}
            return self.json({"jsonrpc": "2.0", "id": id, "result": result})
        if method == "tools/list":
            return self.json({"jsonrpc": "2.0", "id": id, "result": {"tools": []}})
        error = {"code": -32601, "message": f"no method {method}"}
        return self.json({"jsonrpc": "2.0", "id": id, "error": error})

    def do_GET(self):
        session = self.headers.get("Mcp-Session-Id")
        if self.headers.get("Last-Event-ID") is None:
            return self.answer(405)
        if STATUS == 404:
            SESSIONS.discard(session)
        self.answer(STATUS, b"cannot resume")

    def do_DELETE(self):
        SESSIONS.discard(self.headers.get("Mcp-Session-Id"))
        self.answer(200)


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
