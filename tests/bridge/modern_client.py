"""A client of the Python SDK 2.x (`Client`, mcp 2.3) for `agentpi bridge --to legacy`'s tests:
it starts the stdio command after `--` (a legacy server, or `agentpi bridge --to legacy -- ...`
in front of one), connects in MODE (`auto`: a `server/discover` probe, then the era the peer
speaks; `legacy`: the initialize handshake), declaring elicitation and sampling, and makes
the calls of SCENARIO, printing one JSON line per answer, so that a session through the bridge
can be compared with a session with the legacy server directly. The last line is the era.

python modern_client.py MODE SCENARIO -- CMD ARGS...
python modern_client.py MODE SCENARIO -- URL           (Streamable HTTP)
  SCENARIO: `everything` (server-everything: tools, echo, get-sum, an elicitation, a
  sampling, a prompt, a resource), `calls` (server-everything's calls that ask nothing:
  echo, get-sum, a prompt; several clients may run it at once), `filesystem` (allowed directories, a listing, a read; the
  directory is CMD's last argument), `memory` (create entities, read the graph), `crash`
  (two calls in flight when the server exits, one waiting in the bridge: prints each one's error), `timeout` (a call whose
  elicitation is never answered in time: the SDK's round is driven by hand, no retry sent;
  then a late retry, which gets an error)
"""
import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters, types


async def elicit(context, params):
    return types.ElicitResult(action="accept", content={"name": "Ada", "check": True})


async def sample(context, params):
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="noon"),
        model="fixture-model",
        stopReason="endTurn",
    )


def show(name, result):
    data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    for key in ("_meta", "meta", "resultType", "ttlMs", "cacheScope", "nextCursor"):
        data.pop(key, None)
    print(json.dumps({name: data}, sort_keys=True), flush=True)


async def everything(client):
    tools = await client.list_tools()
    print(json.dumps({"tools": sorted(t.name for t in tools.tools)}), flush=True)
    show("echo", await client.call_tool("echo", {"message": "hi"}))
    show("get-sum", await client.call_tool("get-sum", {"a": 1, "b": 2}))
    show("elicit", await client.call_tool("trigger-elicitation-request", {}))
    show("sample", await client.call_tool("trigger-sampling-request", {"prompt": "hi", "maxTokens": 5}))
    prompts = await client.list_prompts()
    print(json.dumps({"prompts": sorted(p.name for p in prompts.prompts)}), flush=True)
    show("prompt", await client.get_prompt("simple-prompt", {}))


async def calls(client):
    show("echo", await client.call_tool("echo", {"message": "hi"}))
    show("get-sum", await client.call_tool("get-sum", {"a": 1, "b": 2}))
    show("prompt", await client.get_prompt("simple-prompt", {}))


async def filesystem(client, root):
    show("allowed", await client.call_tool("list_allowed_directories", {}))
    show("list", await client.call_tool("list_directory", {"path": root}))
    show("read", await client.call_tool("read_text_file", {"path": os.path.join(root, "a.txt")}))


async def memory(client):
    entity = {"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}
    show("create", await client.call_tool("create_entities", {"entities": [entity]}))
    show("graph", await client.call_tool("read_graph", {}))


async def adder(client):
    show("tools", await client.list_tools())
    show("add", await client.call_tool("add", {"a": 2, "b": 3}))
    show("echo", await client.call_tool("echo", {"text": "over HTTP"}))


async def crash(client):
    async def call(name, arguments):
        try:
            await client.call_tool(name, arguments)
            return "answered"
        except Exception as e:  # the bridge's error for each call in flight
            return str(e)
    # The bridge sends one call that could be asked at a time on stdio (this client declares
    # elicitation and sampling): `slow` waits in the bridge while `crash_in` runs.
    crashed = asyncio.create_task(call("crash_in", {"seconds": 5}))
    await asyncio.sleep(0.5)
    slow = await call("slow", {"seconds": 1})
    print(json.dumps({"slow": slow, "crash": await crashed}), flush=True)
    os._exit(0)  # the server is gone: nothing to close


async def timeout(client):
    session = client.session
    first = await session.call_tool("trigger-elicitation-request", {}, allow_input_required=True)
    print(json.dumps({"first": first.result_type}), flush=True)
    await asyncio.sleep(3)  # longer than the bridge's --retry-timeout of the test
    answers = {key: {"action": "accept", "content": {"name": "Ada"}} for key in first.input_requests}
    try:
        await session.call_tool(
            "trigger-elicitation-request", {}, input_responses=answers,
            request_state=first.request_state, allow_input_required=True,
        )
        print(json.dumps({"late": "answered"}), flush=True)
    except Exception as e:
        print(json.dumps({"late": "error"}), flush=True)


async def main(mode, scenario, command):
    # A URL: the bridge (or a server) listening on Streamable HTTP.
    if command[0].startswith("http"):
        params = command[0]
    else:
        params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with Client(params, mode=mode, elicitation_callback=elicit, sampling_callback=sample) as client:
        if scenario == "everything":
            await everything(client)
        elif scenario == "calls":
            await calls(client)
        elif scenario == "filesystem":
            await filesystem(client, command[-1])
        elif scenario == "memory":
            await memory(client)
        elif scenario == "adder":
            await adder(client)
        elif scenario == "crash":
            await crash(client)
        elif scenario == "timeout":
            await timeout(client)
        print(json.dumps({"era": client.session.protocol_version}), flush=True)


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[sys.argv.index("--") + 1 :]))
