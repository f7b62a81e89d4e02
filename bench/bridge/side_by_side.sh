#!/usr/bin/env bash
# (For the issue's bound use bench/bridge/abab.sh: sessions run one after the other, as here,
# spread 0.77x to 1.40x from one session to the next with the same binaries; interleaved calls
# in one client do not.)
# The bridge's added latency against `agentpi monitor` alone, side by side: ROUNDS rounds,
# each running the same client (CALLS calls, one at a time) against the same server directly,
# through `agentpi monitor`, and through `agentpi bridge` (of each binary in AGENTPI, so that
# two builds alternate), one after the other, so that the machine's load falls on all alike.
#   modern (`--to modern`): the Python SDK 1.x client (legacy), `tools/call add`, against the
#     Python SDK 2.x server;
#   legacy (`--to legacy`): the Python SDK 2.x client, `tools/call get-sum`, against
#     server-everything (a legacy server): in legacy mode directly and through the monitor, in
#     modern mode (2026-07-28 on its side) through the bridge.
# What the client starts runs under /usr/bin/time -v: its user+sys CPU time (with the server
# it starts, which agentpi waits for), peak RSS (the larger of agentpi and the server) and
# wall time for the whole session are printed beside the client's p50/p99; the direct line
# gives the server's alone.
# Each bridge line ends with its p50 against the monitor's of the same round (ratio and
# difference): the issue's bound is within 1.2x and 1 ms.
# Usage: bench/bridge/side_by_side.sh [CALLS] [ROUNDS] [modern|legacy]
#   AGENTPI: the binary, or several separated by spaces (default target/release/agentpi);
#   the monitor runs with the first. A bridge-only build can follow it: the stdio example
#   (`cargo build --release -p agentpi-bridge --example bridge_stdio`, minutes where the
#   agentpi binary takes most of an hour on a busy machine), e.g.
#   AGENTPI="target/release/agentpi target/release/examples/bridge_stdio".
set -euo pipefail
cd "$(dirname "$0")/../.."
calls=${1:-300}
rounds=${2:-3}
to=${3:-modern}
read -r -a binaries <<<"${AGENTPI:-target/release/agentpi}"
case $to in
modern)
    client=tests/peers/.venv-mcp1/bin/python
    server=(tests/peers/.venv/bin/python tests/tester/sdk_server.py)
    # The client's arguments before the command, directly / through the bridge.
    plain=(bench/bridge/latency.py "$calls")
    bridged=("${plain[@]}")
    ;;
legacy)
    client=tests/peers/.venv/bin/python
    server=(tests/peers/node_modules/.bin/mcp-server-everything)
    plain=(bench/bridge/legacy_latency.py "$calls" legacy)
    bridged=(bench/bridge/legacy_latency.py "$calls" auto)
    ;;
*)
    echo "usage: $0 [CALLS] [ROUNDS] [modern|legacy]" >&2
    exit 2
    ;;
esac
times=$(mktemp)
trap 'rm -f "$times"' EXIT
# One line of /usr/bin/time -v's output, by its label.
field() { grep -F "$1" "$times" | sed 's/.*: //'; }
# run LABEL CLIENT-ARGS... -- COMMAND...: one session, its line printed.
run() {
    local label=$1 args=()
    shift
    while [ "$1" != -- ]; do
        args+=("$1")
        shift
    done
    shift
    local got
    got=$($client "${args[@]}" /usr/bin/time -v -o "$times" "$@" "${server[@]}" 2>/dev/null)
    local cpu
    cpu=$(echo "$(field 'User time') + $(field 'System time')" | bc)
    local p50 against=""
    p50=$(echo "$got" | sed -n 's/^p50 \([0-9.]*\) ms.*/\1/p')
    case $label in
    monitor) monitor_p50=$p50 ;;
    bridge*) against=$(echo "$p50 $monitor_p50" |
        awk '$2 > 0 {printf "  vs monitor %.2fx, %+.2f ms", $1 / $2, $1 - $2}') ;;
    esac
    printf '%-10s %s: %s  cpu %s s, peak RSS %s kB, wall %s%s\n' "$label" "$round" "$got" \
        "$cpu" "$(field 'Maximum resident')" "$(field 'Elapsed (wall')" "$against"
}
monitor_p50=0
echo "load: $(uptime)"
for round in $(seq "$rounds"); do
    run direct "${plain[@]}" --
    run monitor "${plain[@]}" -- "${binaries[0]}" monitor --
    for k in "${!binaries[@]}"; do
        label=bridge
        [ "${#binaries[@]}" -gt 1 ] && label=bridge$k
        run "$label" "${bridged[@]}" -- "${binaries[$k]}" bridge --to "$to" --
    done
done
for k in "${!binaries[@]}"; do
    echo "bridge$k: ${binaries[$k]}"
done
echo "load: $(uptime)"
