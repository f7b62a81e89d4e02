#!/usr/bin/env bash
# Runs `agentpi check FILE ARGS` as a cluster of N processes on this machine (loopback, free
# ports): writes the host file, starts process 0 to N-1, waits for all, prints process 0's
# report and messages, and exits with process 0's status, or with another's when it failed
# (its messages printed too). See docs/distributed.md.
#
#   scripts/cluster-local.sh 4 philosophers -D N=13
#   scripts/cluster-local.sh 2 models/ring.pi --workers 2 --format json
#
# AGENTPI names the binary (default: target/release/agentpi, else target/debug/agentpi, else
# agentpi on the PATH); CLUSTER_TIMEOUT (seconds, default 3600) bounds every process;
# CLUSTER_TIME=DIR runs each process under `/usr/bin/time -v`, its report in DIR/time.I
# (peak RSS, CPU) and its standard error in DIR/err.I.
set -euo pipefail

if [ $# -lt 2 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 N FILE [ARGS...]  (N processes on loopback)" >&2
    exit 2
fi
n=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${AGENTPI:-}" ]; then
    for candidate in "$root/target/release/agentpi" "$root/target/debug/agentpi"; do
        if [ -x "$candidate" ]; then AGENTPI=$candidate; break; fi
    done
    AGENTPI=${AGENTPI:-agentpi}
fi
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# N free ports: bound at once (so that they differ), then released for the processes.
python3 - "$n" > "$work/hosts" <<'PY'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
for s in socks:
    print("127.0.0.1:%d" % s.getsockname()[1])
PY

timed=()
if [ -n "${CLUSTER_TIME:-}" ]; then mkdir -p "$CLUSTER_TIME"; fi
for ((i = 0; i < n; i++)); do
    if [ -n "${CLUSTER_TIME:-}" ]; then timed=(/usr/bin/time -v -o "$CLUSTER_TIME/time.$i"); fi
    timeout "${CLUSTER_TIMEOUT:-3600}" "${timed[@]}" "$AGENTPI" check "$@" --cluster "$work/hosts" \
        --process "$i" > "$work/out.$i" 2> "$work/err.$i" &
    pids+=($!)
done
statuses=()
for ((i = 0; i < n; i++)); do
    status=0
    wait "${pids[$i]}" || status=$?
    statuses+=("$status")
done
pids=()
if [ -n "${CLUSTER_TIME:-}" ]; then
    for ((i = 0; i < n; i++)); do cp "$work/err.$i" "$CLUSTER_TIME/err.$i"; done
fi
cat "$work/out.0"
cat "$work/err.0" >&2
for ((i = 1; i < n; i++)); do
    if [ "${statuses[$i]}" -ne 0 ]; then
        echo "cluster-local: process $i of $n failed (exit ${statuses[$i]}):" >&2
        cat "$work/err.$i" >&2
        exit "${statuses[$i]}"
    fi
done
exit "${statuses[0]}"
