#!/usr/bin/env bash
# Whether the checker keeps up with the relay (issue 35), in one run: a sustained flood of N
# pings (default 100,000: 200,000 events) direct and through `agentpi monitor` with all checks,
# how many events the checker left unchecked, and the checker's own rate offline: `trace
# check` of the flood trace of bench/monitor/flood_trace.py with every request in flight at
# once (default 20,000). Each run is timed with /usr/bin/time (wall, user + sys CPU, peak
# RSS); the load average is printed first, as the machine is shared.
# Whether the checker kept pace *during* the flood, not in the 2 s drain the monitor gives it
# after the session: a second monitored flood with `--drain 0`, whose unchecked events are
# those still queued when the server exited (the flood's end); and the trace check's rate,
# messages per second of its CPU (with the trace's parse), beside the relay's.
# Usage: bench/monitor/flood.sh [N] [IN_FLIGHT] [REPS]. Needs the release builds of run.sh
# (cargo build --release -p agentpi --bin agentpi --example monitor_bench). Set BEFORE to a
# directory holding another build's agentpi and monitor_bench to run both side by side, and
# AFTER to one holding this build's (a copy that a build going on meanwhile does not replace).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
release="$here/../../target/release"
n="${1:-100000}"
flight="${2:-20000}"
reps="${3:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$here/flood_trace.py" "$flight" "$flight" > "$work/flood.jsonl"
after_bench="$release/examples/monitor_bench"
[[ -n ${AFTER:-} && -x $AFTER/monitor_bench ]] && after_bench="$AFTER/monitor_bench"
builds=("after:${AFTER:-$release}/agentpi:$after_bench")
[[ -n ${BEFORE:-} ]] && builds+=("before:$BEFORE/agentpi:$BEFORE/monitor_bench")
timed() { /usr/bin/time -f '%e s wall, %U+%S s CPU, %M KiB' "$@"; }
echo "load: $(uptime | sed 's/.*load average: //')"
echo "| build | run | unchecked (of $((2 * n))) | messages/s | wall, CPU, peak RSS |"
echo "| --- | --- | --- | --- | --- |"
for _ in $(seq "$reps"); do
    for build in "${builds[@]}"; do
        IFS=: read -r name agentpi bench <<< "$build"
        out=$(timed "$bench" client flood "$n" -- "$bench" echo 2>"$work/time")
        rate=$(python3 -c 'import json,sys; print(round(json.loads(sys.argv[1])["messages_per_s"]))' "$out")
        echo "| $name | flood, direct | | $rate | $(tail -1 "$work/time") |"
        out=$(timed "$bench" client flood "$n" -- "$agentpi" monitor --report "$work/r.json" -- \
            "$bench" echo 2>"$work/time")
        rate=$(python3 -c 'import json,sys; print(round(json.loads(sys.argv[1])["messages_per_s"]))' "$out")
        unchecked=$(grep -o '[0-9]* events were relayed unchecked' "$work/r.json" | grep -o '^[0-9]*' || echo 0)
        echo "| $name | flood, all checks | $unchecked | $rate | $(tail -1 "$work/time") |"
        out=$(timed "$bench" client flood "$n" -- "$agentpi" monitor --drain 0 --report "$work/r.json" -- \
            "$bench" echo 2>"$work/time")
        rate=$(python3 -c 'import json,sys; print(round(json.loads(sys.argv[1])["messages_per_s"]))' "$out")
        unchecked=$(grep -o '[0-9]* events were relayed unchecked' "$work/r.json" | grep -o '^[0-9]*' || echo 0)
        echo "| $name | flood, all checks, --drain 0: unchecked when the flood ended | $unchecked | $rate | $(tail -1 "$work/time") |"
        timed "$agentpi" trace check --format json "$work/flood.jsonl" > "$work/report.json" 2>"$work/time" || true
        found=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["messages"], "messages,", len(r["violations"]), "violations")' "$work/report.json")
        # The checker's own rate: messages per second of the trace check's CPU.
        rate=$(python3 -c 'import json,re,sys; r=json.load(open(sys.argv[1])); u,s=re.search(r"([0-9.]+)\+([0-9.]+) s CPU",open(sys.argv[2]).read()).groups(); print(round(r["messages"]/max(float(u)+float(s),0.01)), "(checker, per CPU second)")' "$work/report.json" "$work/time")
        echo "| $name | trace check, $flight in flight ($found) | | $rate | $(tail -1 "$work/time") |"
    done
done
