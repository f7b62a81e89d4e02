"""The bridge's added latency against `agentpi monitor` alone, measured so that the machine's
load falls on both alike: one client process holds a session through each command at once and
alternates one call on each (A B, then B A, ...: ABBA), so every call of one has a call of the
other next to it in time; each round starts every process afresh (where the scheduler puts
them is most of the spread between sessions), and the summary is the median over rounds.

Per round and session: p50 and p99 of the timed calls (after WARMUP calls each, not timed),
the p50 against the first session's (the reference: `agentpi monitor`), the CPU the
command's process took per timed call (`cpu`: user+sys of all its threads, from /proc, the
server it started not included), and the client's own CPU per call (`client`: the client's
work differs with its mode, and is in that session's p50 too).

python abab.py ROUNDS CALLS WARMUP TOOL :: LABEL MODE CMD ARGS... [:: LABEL MODE CMD ARGS...]...
  MODE: `legacy` or `auto` (the Python SDK 2.x `Client`: `auto` speaks 2026-07-28 to a peer that
  does), or `session` (the SDK's `ClientSession` over `stdio_client`, the 1.x client);
  TOOL: the tool called, with arguments {"a": k, "b": 1} (`add`, `get-sum`).
"""
import asyncio
import contextlib
import os
import statistics
import sys
import time

import mcp
from mcp import StdioServerParameters


def children():
    """This process's children (the commands the sessions started): pid -> their CPU ticks."""
    me, out = os.getpid(), {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the name: state, ppid, ..., utime (14th field of the whole line), stime.
        if int(fields[1]) == me:
            out[int(pid)] = int(fields[11]) + int(fields[12])
    return out


async def open_session(stack, mode, command):
    """A session through `command`, and how to call a tool on it."""
    server = StdioServerParameters(command=command[0], args=command[1:])
    if mode == "session":
        from mcp.client.stdio import stdio_client

        read, write = await stack.enter_async_context(stdio_client(server))
        session = await stack.enter_async_context(mcp.ClientSession(read, write))
        await session.initialize()
        return session.call_tool
    client = await stack.enter_async_context(mcp.Client(server, mode=mode))
    return client.call_tool


async def one_round(calls, warmup, tool, sessions):
    """Each session's timed calls (ms), its command's CPU ticks over them, and the client's
    own CPU seconds over them."""
    async with contextlib.AsyncExitStack() as stack:
        before = set(children())
        callers, pids = [], []
        for _, mode, command in sessions:
            callers.append(await open_session(stack, mode, command))
            started = set(children()) - before - set(pids)
            # The session's own process: the one started as it opened.
            pids.append(min(started) if started else None)
        for k in range(warmup):
            for call in callers:
                await call(tool, {"a": k, "b": 1})
        cpu0 = children()
        times = [[] for _ in sessions]
        mine = [0.0 for _ in sessions]
        n = len(sessions)
        for k in range(calls):
            # A B, B A, ...: neither always goes first.
            order = range(n) if k % 2 == 0 else reversed(range(n))
            for s in order:
                start, cpu = time.perf_counter(), time.process_time()
                await callers[s](tool, {"a": k, "b": 1})
                times[s].append((time.perf_counter() - start) * 1000)
                mine[s] += time.process_time() - cpu
        cpu1 = children()
        ticks = [cpu1.get(p, 0) - cpu0.get(p, 0) if p else None for p in pids]
    return times, ticks, mine


def pct(sorted_times, p):
    return sorted_times[min(len(sorted_times) - 1, int(len(sorted_times) * p))]


def main():
    rounds, calls, warmup, tool = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rest = sys.argv[5:]
    sessions = []
    while rest and rest[0] == "::":
        rest = rest[1:]
        end = rest.index("::") if "::" in rest else len(rest)
        label, mode, command = rest[0], rest[1], rest[2:end]
        sessions.append((label, mode, command))
        rest = rest[end:]
    hz = os.sysconf("SC_CLK_TCK")
    ratios = {label: [] for label, _, _ in sessions[1:]}
    p50s = {label: [] for label, _, _ in sessions}
    p99s = {label: [] for label, _, _ in sessions}
    print(f"load: {os.getloadavg()}  ({calls} timed calls a session a round, {warmup} not timed)")
    for r in range(1, rounds + 1):
        times, ticks, mine = asyncio.run(one_round(calls, warmup, tool, sessions))
        ref = None
        for (label, _, _), t, cpu, own in zip(sessions, times, ticks, mine):
            t.sort()
            p50, p99 = pct(t, 0.5), pct(t, 0.99)
            p50s[label].append(p50)
            p99s[label].append(p99)
            line = f"round {r:2} {label:10} p50 {p50:.3f} ms  p99 {p99:.3f} ms"
            if cpu is not None:
                line += f"  cpu {cpu / hz / calls * 1e6:5.0f} us/call"
            line += f"  client {own / calls * 1e6:4.0f} us/call"
            if ref is None:
                ref = p50
            else:
                ratios[label].append(p50 / ref)
                line += f"  vs {sessions[0][0]} {p50 / ref:.2f}x, {p50 - ref:+.3f} ms"
            print(line, flush=True)
    print(f"load: {os.getloadavg()}")
    print(f"median over {rounds} rounds:")
    for label, _, _ in sessions:
        line = (
            f"  {label:10} p50 {statistics.median(p50s[label]):.3f} ms"
            f"  p99 {statistics.median(p99s[label]):.3f} ms"
        )
        if label in ratios:
            diff = statistics.median(p - q for p, q in zip(p50s[label], p50s[sessions[0][0]]))
            line += (
                f"  p50 vs {sessions[0][0]} {statistics.median(ratios[label]):.2f}x"
                f" (rounds {min(ratios[label]):.2f}x to {max(ratios[label]):.2f}x), {diff:+.3f} ms"
            )
        print(line)


main()
