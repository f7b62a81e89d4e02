"""Time inside the bridge per hop: from a line read to the next write, by the bridge's own
threads, read from a system call trace. Each write of the bridge (the command named
`agentpi*` or `bridge_stdio*`) is paired with its latest read before it; the pairs are
grouped by the file descriptor written (the server's standard input, or the client's
standard output or its copy), with p50, p90 and p99 in microseconds. The client's line to
the server and the server's answer to the client are one hop each: the sum of the two p50s is
what the bridge adds to a call on top of the pipes (`agentpi monitor` relays a line in 5 to
7 us). Usage, 500 calls of `--to legacy`:

  tests/peers/.venv/bin/python bench/bridge/legacy_latency.py 500 auto \\
      perf record -q -e syscalls:sys_exit_read -e syscalls:sys_enter_write -o hops.data -- \\
      target/release/agentpi bridge --to legacy -- tests/peers/node_modules/.bin/mcp-server-everything
  perf script -i hops.data -F comm,pid,tid,time,event,trace | python3 bench/bridge/hops.py
"""
import re
import sys

last_read = None
hops = {}
for line in sys.stdin:
    m = re.match(r'\s*(\S+)\s+(\d+)/(\d+)\s+([\d.]+):\s+syscalls:(\S+):\s*(.*)', line)
    if not m:
        continue
    comm, _pid, _tid, t, event, rest = m.groups()
    if not (comm.startswith('bridge_stdio') or comm.startswith('agentpi')):
        continue
    if event == 'sys_exit_read':
        if int(rest.strip(), 16) > 0:
            last_read = float(t)
    elif event == 'sys_enter_write' and last_read is not None:
        fd = int(re.search(r'fd: (0x[0-9a-f]+)', rest).group(1), 16)
        if fd == 2:  # what the bridge says on standard error is no hop
            continue
        hops.setdefault(fd, []).append((float(t) - last_read) * 1e6)
        last_read = None
for fd, times in sorted(hops.items()):
    if len(times) < 20:  # the start's few writes
        continue
    times.sort()
    q = lambda p: times[int(len(times) * p)]
    print(f"fd {fd}: n={len(times)} p50 {q(0.5):.1f} us  p90 {q(0.9):.1f} us  p99 {q(0.99):.1f} us")
