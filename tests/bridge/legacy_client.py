"""A legacy MCP client (the Python SDK 1.x, `ClientSession`) for `agentpi bridge`'s tests: it
starts the stdio server given on its command line, opens a 2025-11-25 session declaring
elicitation and sampling (with tools), and makes the calls named by its first argument,
printing one JSON line per answer, so that a session through the bridge can be compared
with a session with a dual-era server directly.

python legacy_client.py SCENARIO CMD ARGS...
  SCENARIO: `all` (lists, add, echo, confirm, think, a resource, a prompt) or `concurrent`
  (three calls in flight at once, two of which ask the client)
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def elicit(context, params):
    return types.ElicitResult(action="accept", content={"agree": True})


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
    names = ["confirm", "think", "add"]
    args = [{}, {}, {"a": 1, "b": 1}]
    results = await asyncio.gather(*(session.call_tool(n, a) for n, a in zip(names, args)))
    for name, result in zip(names, results):
        show(name, result)


async def main():
    scenario, command = sys.argv[1], sys.argv[2:]
    server = StdioServerParameters(command=command[0], args=command[1:])
    caps = types.SamplingCapability(tools=types.SamplingToolsCapability())
    async with stdio_client(server) as (read, write):
        async with ClientSession(
            read, write, sampling_callback=sample, elicitation_callback=elicit,
            sampling_capabilities=caps,
        ) as session:
            init = await session.initialize()
            print(json.dumps({"version": init.protocolVersion}), flush=True)
            await {"all": everything, "concurrent": concurrent}[scenario](session)


asyncio.run(main())
