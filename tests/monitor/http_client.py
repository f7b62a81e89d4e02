"""A scripted Streamable HTTP MCP client for the monitor's tests, correct or broken in one
way: python3 http_client.py URL MODE. One request at a time, each answer read to its end:
initialize, notifications/initialized, tools/list, the GET stream, DELETE. Each MODE breaks
one HTTP rule (or adds a step):

good            conforming headers throughout
no_accept       posts tools/list with Accept: application/json only (H1)
no_session      posts tools/list without the session id (H4)
no_version      posts tools/list without MCP-Protocol-Version (H5)
bad_version     posts tools/list with MCP-Protocol-Version: 1999-01-01 (H5)
after_delete    pings once more with the terminated session's id (a server must answer 404)
modern          the modern era (2026-07-28): server/discover, tools/list and an unknown method,
                each with _meta and the headers Mcp-Method and MCP-Protocol-Version; a tool
                call; a subscriptions/listen for tools/list_changed (asking for logs); GET, DELETE
modern_no_method  modern, but tools/list without Mcp-Method (H8)
modern_no_param   modern, but calls `weather` without its Mcp-Param-Region header (H8)
modern_no_meta    modern, but tools/list without _meta protocolVersion and clientCapabilities (M1)
modern_close      modern, with a second tool call (id 6) whose stream it closes after the head
                  (the call's cancellation over Streamable HTTP, C5)
modern_cancel     modern, and then cancels the tool call with notifications/cancelled, which
                  HTTP never uses: closing the stream is the cancellation (C5)
modern_reuse_in_flight  modern, with a tool call (id 6) whose stream it keeps open while it
                  sends tools/list with the same id 6 (J4), then closes the call's stream
modern_reuse_after_close  modern, closes the stream of tool call 6 and at once sends
                  tools/list with the same id 6: the call is no longer in flight (J4 holds)
"""

import http.client
import json
import time
import sys
from urllib.parse import urlsplit

URL, MODE = urlsplit(sys.argv[1]), sys.argv[2]
BOTH = "application/json, text/event-stream"
state = {}


def request(verb: str, message=None, **headers) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection(URL.hostname, URL.port)
    sent = {"Accept": BOTH if verb != "GET" else "text/event-stream"}
    if "session" in state:
        sent["Mcp-Session-Id"] = state["session"]
    if "version" in state:
        sent["MCP-Protocol-Version"] = state["version"]
    sent.update({k.replace("_", "-"): v for k, v in headers.items()})
    sent = {k: v for k, v in sent.items() if v is not None}
    body = None if message is None else json.dumps(message).encode()
    if body is not None:
        sent["Content-Type"] = "application/json"
    connection.request(verb, URL.path, body=body, headers=sent)
    response = connection.getresponse()
    if verb == "GET":
        # A real server keeps its GET stream open: what came within a second is enough.
        connection.sock.settimeout(1.0)
    try:
        response.read()
    except TimeoutError:
        pass
    connection.close()
    return response


def rpc(id_, method, params=None, **headers) -> http.client.HTTPResponse:
    message = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        message["params"] = params
    return request("POST", message, **headers)


def modern(id_, method, extra=None, meta_extra=None, **headers) -> None:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "http-client", "version": "1"},
            **(meta_extra or {})}
    if MODE == "modern_no_meta" and method == "tools/list":
        meta = {"io.modelcontextprotocol/clientInfo": meta["io.modelcontextprotocol/clientInfo"]}
    rpc(id_, method, {"_meta": meta, **(extra or {})}, **{"Mcp_Method": method, **headers})


def opened(id_, method, extra) -> http.client.HTTPResponse:
    """Sends a modern request and reads its response head: its stream stays open until the
    response is closed."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "http-client", "version": "1"}}
    message = {"jsonrpc": "2.0", "id": id_, "method": method, "params": {"_meta": meta, **extra}}
    connection = http.client.HTTPConnection(URL.hostname, URL.port)
    connection.request("POST", URL.path, body=json.dumps(message).encode(),
                       headers={"Accept": BOTH, "Content-Type": "application/json",
                                "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method,
                                "Mcp-Name": "weather", "Mcp-Param-Region": "eu"})
    response = connection.getresponse()
    connection.close()  # the response holds the stream
    return response


def close(id_, method, extra, then=None) -> None:
    """Sends a modern request, reads its response head and closes the stream unread: the
    request's cancellation over Streamable HTTP (C5). `then` runs right after the close."""
    opened(id_, method, extra).close()
    if then:
        then()
    time.sleep(1.5)  # the server's answer comes (and finds the stream gone) meanwhile


def main() -> None:
    if MODE.startswith("modern"):
        state["version"] = "2026-07-28"
        modern(1, "server/discover")
        broken = {"Mcp_Method": None} if MODE == "modern_no_method" else {}
        modern(2, "tools/list", **broken)
        modern(3, "nope/nope")
        # `weather`'s `region` is an x-mcp-header argument: mirrored as Mcp-Param-Region.
        region = None if MODE == "modern_no_param" else "eu"
        modern(4, "tools/call", {"name": "weather", "arguments": {"region": "eu"}},
               Mcp_Name="weather", Mcp_Param_Region=region)
        call = {"name": "weather", "arguments": {"region": "eu"}}
        if MODE == "modern_close":
            close(6, "tools/call", call)
        if MODE == "modern_reuse_after_close":
            close(6, "tools/call", call, lambda: modern(6, "tools/list"))
        if MODE == "modern_reuse_in_flight":
            stream = opened(6, "tools/call", call)
            modern(6, "tools/list")
            stream.close()
            time.sleep(1.5)
        if MODE == "modern_cancel":
            cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                      "params": {"requestId": 4}}
            request("POST", cancel, Mcp_Method="notifications/cancelled")
        # The server ends the listen once it has sent what it has (a result).
        modern(5, "subscriptions/listen", {"notifications": {"toolsListChanged": True}},
               {"io.modelcontextprotocol/logLevel": "info"})
        request("GET")
        request("DELETE")
        return
    init = rpc(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "http-client", "version": "1"}})
    if init.getheader("Mcp-Session-Id"):
        state["session"] = init.getheader("Mcp-Session-Id")
    state["version"] = "2025-11-25"
    request("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"})
    broken = {
        "no_accept": {"Accept": "application/json"},
        "no_session": {"Mcp_Session_Id": None},
        "no_version": {"MCP_Protocol_Version": None},
        "bad_version": {"MCP_Protocol_Version": "1999-01-01"},
    }
    rpc(2, "tools/list", **broken.get(MODE, {}))
    request("GET")
    request("DELETE")
    if MODE == "after_delete":
        rpc(3, "ping")


if __name__ == "__main__":
    main()
