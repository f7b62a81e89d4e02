#!/usr/bin/env bash
# The monitor's overhead, in one run: N ping requests to a fast echo server, direct, through
# `agentpi monitor --no-check` (relay only) and through `agentpi monitor` (all checks), in
# three modes (see client.py): sequential round trips, a flood (as fast as the client can
# write), and a fixed rate of RATE requests per second. Prints one table with each
# configuration's throughput and round trips and its ratio to direct.
# Usage: bench/monitor/run.sh [N] [RATE] (defaults 20000 and 10000). Needs a release build:
#   cargo build --release -p agentpi
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
agentpi="${AGENTPI:-$here/../../target/release/agentpi}"
n="${1:-20000}"
rate="${2:-10000}"
server=(python3 "$here/echo_server.py")
declare -A through=(
    [direct]=""
    [no-checks]="$agentpi monitor --no-check --"
    [all-checks]="$agentpi monitor --"
)
echo "| mode | path | messages/s | ratio | requests/s achieved | p50 ms | p99 ms | p99 goal (1.1x direct + 1 ms) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for mode in sequential flood "rate=$rate"; do
    base=""
    for path in direct no-checks all-checks; do
        # shellcheck disable=SC2086
        out=$(python3 "$here/client.py" "$mode" "$n" -- ${through[$path]} "${server[@]}" 2>/dev/null)
        [[ $path == direct ]] && base=$out
        python3 - "$mode" "$path" "$base" "$out" <<'PY'
import json, sys
mode, path, base, out = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
ratio = out["messages_per_s"] / base["messages_per_s"]
goal = 1.1 * base["p99_ms"] + 1
met = "met" if out["p99_ms"] <= goal else "missed"
print(f"| {mode} | {path} | {out['messages_per_s']} | {ratio:.2f} | {out['achieved_per_s']} "
      f"| {out['p50_ms']} | {out['p99_ms']} | {goal:.3f}: {met} |")
PY
    done
done
