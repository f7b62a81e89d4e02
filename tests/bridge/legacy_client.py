"""A legacy MCP client (the Python SDK 1.x, `ClientSession`) for `agentpi bridge`'s tests: it
starts the stdio server given on its command line, opens a 2025-11-25 session declaring
elicitation and sampling (with tools), and makes the calls named by its first argument,
printing one JSON line per answer, so that a session through the bridge can be compared
with a session with a dual-era server directly.

python legacy_client.py SCENARIO CMD ARGS...
  SCENARIO: `all` (lists, add, echo, confirm, think, a resource, a prompt), `concurrent`
  (four calls in flight at once, three of which ask the client, two of them `confirm`) or `cancel` (`confirm`
  cancelled by the client while its elicitation is pending, the elicitation's answer crossing
  the cancel; then a ping and `add` show the session goes on), or `undeclared` (a session
  declaring nothing, against tests/bridge/rude_server.py, whose tools ask for elicitation,
  sampling and roots all the same: what the client gets for each, an error printed as such)
  or `rmcp` (against crates/cli/examples/rmcp_asks.rs: its tools, `add`, `confirm` twice in
  a row, `think` (a sampling), a ping)
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError


# The `cancel` scenario: the session while the call is to be cancelled, and an event set once
# the elicitation callback has sent the cancel.
CANCEL = {"session": None, "sent": None}


async def elicit(context, params):
    if CANCEL["session"] is None:
        return types.ElicitResult(action="accept", content={"agree": True})
    session = CANCEL["session"]
    # The call in flight is the last request the session sent. The SDK 1.x runs this callback
    # inside its receive loop, so nothing (the server's withdrawal of this elicitation
    # either) is read until it returns: the user gives up, the call is cancelled, and the
    # callback's answer crosses whatever the server does with the cancel.
    call = session._request_id - 1
    cancel = types.CancelledNotification(
        params=types.CancelledNotificationParams(requestId=call, reason="the user gave up"))
    await session.send_notification(types.ClientNotification(cancel))
    CANCEL["sent"].set()
    return types.ElicitResult(action="cancel")


async def sample(context, params):
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="noon"),
        model="fixture-model",
        stopReason="endTurn",
    )


def show(name, result):
    data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    data.pop("_meta", None)
    print(json.dumps({name: data}, sort_keys=True), flush=True)


async def everything(session):
    tools = await session.list_tools()
    print(json.dumps({"tools": sorted(t.name for t in tools.tools)}), flush=True)
    show("add", await session.call_tool("add", {"a": 2, "b": 3}))
    show("echo", await session.call_tool("echo", {"text": "through the bridge"}))
    show("confirm", await session.call_tool("confirm", {}))
    show("think", await session.call_tool("think", {}))
    show("greeting", await session.read_resource("fixture://greeting"))
    show("ask", await session.get_prompt("ask", {"topic": "bridges"}))
    await session.send_ping()
    print(json.dumps({"ping": "ok"}), flush=True)


async def concurrent(session):
    # `confirm` twice: two held calls of one tool at once on the modern side (M12 pairs each
    # retry by its requestState).
    names = ["confirm", "think", "confirm", "add"]
    args = [{}, {}, {}, {"a": 1, "b": 1}]
    results = await asyncio.gather(*(session.call_tool(n, a) for n, a in zip(names, args)))
    for name, result in zip(names, results):
        show(name, result)


async def cancel(session):
    CANCEL["session"], CANCEL["sent"] = session, asyncio.Event()
    call = asyncio.create_task(session.call_tool("confirm", {}))
    await CANCEL["sent"].wait()
    CANCEL["session"] = None
    # The ping's answer comes after the server has read the cancel and the crossing answer
    # (stdio keeps the order): no answer comes for the cancelled call, so stop waiting.
    await session.send_ping()
    call.cancel()
    print(json.dumps({"confirm": "cancelled mid-elicitation", "ping": "ok"}), flush=True)
    show("add", await session.call_tool("add", {"a": 2, "b": 3}))


async def undeclared(session):
    for name, args in [("insist", {}), ("ponder", {}), ("wander", {}), ("insist", {}), ("add", {"a": 2, "b": 3})]:
        try:
            show(name, await session.call_tool(name, args))
        except McpError as error:
            print(json.dumps({name: {"error": error.error.message}}), flush=True)


async def rmcp(session):
    tools = await session.list_tools()
    print(json.dumps({"tools": sorted(t.name for t in tools.tools)}), flush=True)
    show("add", await session.call_tool("add", {"a": 2, "b": 3}))
    show("confirm", await session.call_tool("confirm", {}))
    show("confirm", await session.call_tool("confirm", {}))
    show("think", await session.call_tool("think", {}))
    await session.send_ping()
    print(json.dumps({"ping": "ok"}), flush=True)


async def main():
    scenario, command = sys.argv[1], sys.argv[2:]
    caps = types.SamplingCapability(tools=types.SamplingToolsCapability())
    # A URL: the bridge (or a server) listening on Streamable HTTP.
    if command[0].startswith("http"):
        connect = streamablehttp_client(command[0])
    else:
        connect = stdio_client(StdioServerParameters(command=command[0], args=command[1:]))
    async with connect as (read, write, *_):
        # `undeclared`: no callbacks, so the session declares no client capability at all.
        asks = {} if scenario == "undeclared" else dict(
            sampling_callback=sample, elicitation_callback=elicit, sampling_capabilities=caps)
        async with ClientSession(read, write, **asks) as session:
            init = await session.initialize()
            print(json.dumps({"version": init.protocolVersion}), flush=True)
            scenarios = {"all": everything, "concurrent": concurrent, "cancel": cancel,
                         "undeclared": undeclared, "rmcp": rmcp}
            await scenarios[scenario](session)


asyncio.run(main())
