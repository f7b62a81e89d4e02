"""Round-trip latency of `tools/call get-sum` from a modern-capable client (the Python SDK 2.x
`Client`), one call at a time, against whatever stdio command follows: the legacy server
directly or through `agentpi monitor` (MODE `legacy`), or `agentpi bridge --to legacy --
SERVER` (MODE `auto`: 2026-07-28 through the bridge). Prints p50 and p99 in ms.

python legacy_latency.py CALLS MODE CMD ARGS...
"""
import asyncio
import sys
import time

from mcp import Client, StdioServerParameters


async def main():
    calls, mode, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    server = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(server, mode=mode) as client:
        times = []
        for k in range(calls + 20):
            start = time.perf_counter()
            await client.call_tool("get-sum", {"a": k, "b": 1})
            if k >= 20:  # the first calls warm up
                times.append((time.perf_counter() - start) * 1000)
        times.sort()
        p50, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
        print(f"p50 {p50:.2f} ms  p99 {p99:.2f} ms  ({calls} calls, {client.session.protocol_version})")


asyncio.run(main())
