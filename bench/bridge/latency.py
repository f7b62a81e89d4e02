"""Round-trip latency of `tools/call add` from a legacy client (the Python SDK 1.x), one
call at a time, against whatever stdio command follows: the server directly, `agentpi
monitor -- SERVER`, or `agentpi bridge --to modern -- SERVER`. Prints p50 and p99 in ms.

python latency.py CALLS CMD ARGS...
"""
import asyncio
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main():
    calls, command = int(sys.argv[1]), sys.argv[2:]
    server = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            times = []
            for k in range(calls + 20):
                start = time.perf_counter()
                await session.call_tool("add", {"a": k, "b": 1})
                if k >= 20:  # the first calls warm up
                    times.append((time.perf_counter() - start) * 1000)
            times.sort()
            p50, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
            print(f"p50 {p50:.2f} ms  p99 {p99:.2f} ms  ({calls} calls)")


asyncio.run(main())
