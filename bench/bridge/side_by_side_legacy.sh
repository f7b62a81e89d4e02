#!/usr/bin/env bash
# `agentpi bridge --to legacy`'s added latency against `agentpi monitor` alone, side by side:
# ROUNDS rounds, each running the Python SDK 2.x client (`tools/call get-sum`, one call at a
# time, CALLS calls) against server-everything (a legacy stdio server) directly and through
# `agentpi monitor` (the client in legacy mode), and through `agentpi bridge --to legacy` (the
# client in modern mode: 2026-07-28 on its side), one after the other, so that the machine's
# load falls on the three alike. What the client starts runs under /usr/bin/time -v: its
# user+sys CPU time (with the server it starts, which agentpi waits for), peak RSS (the
# larger of agentpi and the server) and wall time for the whole session are printed beside
# the client's p50/p99; the direct line gives the server's alone.
# Usage: bench/bridge/side_by_side_legacy.sh [CALLS] [ROUNDS]   (AGENTPI: the binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
calls=${1:-300}
rounds=${2:-3}
client=tests/peers/.venv/bin/python
server=tests/peers/node_modules/.bin/mcp-server-everything
agentpi=${AGENTPI:-target/release/agentpi}
times=$(mktemp)
trap 'rm -f "$times"' EXIT
# One line of /usr/bin/time -v's output, by its label.
field() { grep -F "$1" "$times" | sed 's/.*: //'; }
echo "load: $(uptime)"
for round in $(seq "$rounds"); do
    for path in "direct" "monitor --" "bridge --to legacy --"; do
        # shellcheck disable=SC2206 # the path's words are separate arguments
        command=("$agentpi" $path)
        mode=legacy
        [ "$path" = direct ] && command=()
        [ "${path%% *}" = bridge ] && mode=auto
        got=$($client bench/bridge/legacy_latency.py "$calls" "$mode" /usr/bin/time -v \
            -o "$times" "${command[@]}" "$server" 2>/dev/null)
        cpu=$(echo "$(field 'User time') + $(field 'System time')" | bc)
        printf '%-7s %s: %s  cpu %s s, peak RSS %s kB, wall %s\n' "${path%% *}" \
            "$round" "$got" "$cpu" "$(field 'Maximum resident')" "$(field 'Elapsed (wall')"
    done
done
echo "load: $(uptime)"
