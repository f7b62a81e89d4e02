#!/usr/bin/env bash
# The bridge's added latency against `agentpi monitor` alone, side by side: ROUNDS rounds,
# each running the same legacy client (Python SDK 1.x, `tools/call add`, one call at a time,
# CALLS calls) against the Python SDK 2.x server directly, through `agentpi monitor`, and
# through `agentpi bridge --to modern`, one after the other, so that the machine's load falls
# on the three alike. What the client starts runs under /usr/bin/time -v: its user+sys CPU
# time (with the server it starts, which agentpi waits for), peak RSS (the larger of agentpi
# and the server) and wall time for the whole session are printed beside the client's
# p50/p99; the direct line gives the server's alone.
# Usage: bench/bridge/side_by_side.sh [CALLS] [ROUNDS]   (AGENTPI: the binary; release build)
set -euo pipefail
cd "$(dirname "$0")/../.."
calls=${1:-300}
rounds=${2:-3}
client=tests/peers/.venv-mcp1/bin/python
server=(tests/peers/.venv/bin/python tests/tester/sdk_server.py)
agentpi=${AGENTPI:-target/release/agentpi}
times=$(mktemp)
trap 'rm -f "$times"' EXIT
# One line of /usr/bin/time -v's output, by its label.
field() { grep -F "$1" "$times" | sed 's/.*: //'; }
echo "load: $(uptime)"
for round in $(seq "$rounds"); do
    for path in "direct" "monitor --" "bridge --to modern --"; do
        # shellcheck disable=SC2206 # the path's words are separate arguments
        command=("$agentpi" $path)
        [ "$path" = direct ] && command=()
        got=$($client bench/bridge/latency.py "$calls" /usr/bin/time -v -o "$times" \
            "${command[@]}" "${server[@]}" 2>/dev/null)
        cpu=$(echo "$(field 'User time') + $(field 'System time')" | bc)
        printf '%-7s %s: %s  cpu %s s, peak RSS %s kB, wall %s\n' "${path%% *}" \
            "$round" "$got" "$cpu" "$(field 'Maximum resident')" "$(field 'Elapsed (wall')"
    done
done
echo "load: $(uptime)"
