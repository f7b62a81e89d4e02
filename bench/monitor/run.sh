#!/usr/bin/env bash
# The monitor's overhead, in one run: N ping requests to a fast echo server, direct, through
# `agentpi monitor --no-check` (relay only) and through `agentpi monitor` (all checks), in
# three modes (see crates/cli/examples/monitor_bench.rs): sequential round trips, a flood (as fast as the client can
# write), and a fixed rate of RATE requests per second. Each configuration runs REPS times,
# the three paths taking turns (so that a burst of load on the machine hits all three), and
# the table gives medians: single runs on a 2-core machine vary by 30 % and more. The last
# column is how many events the checker fell too far behind to check (from the --report of
# the all-checks path; 0 on the others, which check nothing).
# Usage: bench/monitor/run.sh [N] [RATE] [REPS] (defaults 20000, 10000 and 5). Needs a
# release build: cargo build --release -p agentpi --bin agentpi --example monitor_bench (the client and the
# echo server are crates/cli/examples/monitor_bench.rs: a Python client's GIL put 150 ms of its
# own into round trips at a fixed rate; client.py and echo_server.py remain for comparison).
# Whether the checker keeps up with a sustained flood (unchecked events, trace check of a flood
# with every request in flight, two builds side by side): bench/monitor/flood.sh.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
agentpi="${AGENTPI:-$here/../../target/release/agentpi}"
n="${1:-20000}"
rate="${2:-10000}"
reps="${3:-5}"
bench="${BENCH:-$here/../../target/release/examples/monitor_bench}"
for binary in "$agentpi" "$bench"; do
    [[ -x $binary ]] || { echo "run.sh: $binary is missing: build it first (see above)" >&2; exit 2; }
done
server=("$bench" echo)
results="$(mktemp)"
report="$(mktemp)"
trap 'rm -f "$results" "$report"' EXIT
declare -A through=(
    [direct]=""
    [no-checks]="$agentpi monitor --no-check --"
    [all-checks]="$agentpi monitor --report $report --"
)
for mode in sequential flood "rate=$rate"; do
    for _ in $(seq "$reps"); do
        for path in direct no-checks all-checks; do
            : > "$report"
            # shellcheck disable=SC2086
            out=$("$bench" client "$mode" "$n" -- ${through[$path]} "${server[@]}" 2>/dev/null)
            # The events the checker fell too far behind to check (the report's note).
            unchecked=$(grep -o '[0-9]* events were relayed unchecked' "$report" | grep -o '^[0-9]*' || true)
            echo "$mode $path ${unchecked:-0} $out" >> "$results"
        done
    done
done
python3 - "$results" "$reps" <<'PY'
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    mode, path, unchecked, out = line.split(" ", 3)
    run = json.loads(out)
    run["unchecked"] = int(unchecked)
    runs.setdefault((mode, path), []).append(run)
median = lambda rs, key: statistics.median(r[key] for r in rs)
print(f"Medians of {sys.argv[2]} runs each; ratio: median messages/s over direct's.")
print()
print("| mode | path | messages/s | ratio | requests/s achieved | p50 ms | p99 ms | p99 goal (1.1x direct + 1 ms) | events unchecked |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for (mode, path), rs in runs.items():
    base = runs[(mode, "direct")]
    ratio = median(rs, "messages_per_s") / median(base, "messages_per_s")
    goal = 1.1 * median(base, "p99_ms") + 1
    p99 = median(rs, "p99_ms")
    met = "met" if p99 <= goal else "missed"
    print(f"| {mode} | {path} | {median(rs, 'messages_per_s'):.0f} | {ratio:.2f} "
          f"| {median(rs, 'achieved_per_s'):.0f} | {median(rs, 'p50_ms'):.3f} | {p99:.3f} "
          f"| {goal:.3f}: {met} | {median(rs, 'unchecked'):.0f} |")
PY
