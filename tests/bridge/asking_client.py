"""A modern client (the Python SDK 2.x `Client`, mcp 2.3) for `agentpi bridge --to legacy
--listen`'s routing of a server's elicitation among several clients: it connects to URL (mode
`auto`: the bridge answers its `server/discover` probe, so it speaks 2026-07-28), declaring
elicitation, prints `ready`, waits for a line on its standard input (so that a test starts
several clients' calls at once), calls `ask` with `who` = NAME, answers every elicitation with
its own NAME, and prints one JSON line: the questions it was asked, the call's answer and the
era. With TOOL and ARGUMENTS (JSON) it calls that instead (to time several clients' calls).

python asking_client.py URL NAME [TOOL ARGUMENTS]
"""
import asyncio
import json
import sys

from mcp import Client, types


async def main(url, name, tool, arguments):
    asked = []

    async def elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"name": name})

    async with Client(url, mode="auto", elicitation_callback=elicit) as client:
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        result = await client.call_tool(tool, arguments)
        answer = result.content[0].text if result.content else None
        era = client.session.protocol_version
        print(json.dumps({"asked": asked, "answer": answer, "era": era}), flush=True)


url, name = sys.argv[1], sys.argv[2]
tool, arguments = "ask", {"who": name}
if len(sys.argv) > 4:
    tool, arguments = sys.argv[3], json.loads(sys.argv[4])
asyncio.run(main(url, name, tool, arguments))
