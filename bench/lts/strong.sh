#!/usr/bin/env bash
# bench/lts/strong.sh: the strong-bisimulation algorithms of agentpi-lts side by side on the
# inputs of bench/lts/run.sh (run that first: it generates them into bench/work/lts/).
#
#   bench/lts/strong.sh [--full]
#
# Variants: signature refinement alone, the O(m log n) refinement after one signature round,
# and the hybrid `agentpi minimize` runs. Each cell is the best time in seconds of REPS runs
# (default 3, 1 for the 10^7 inputs that --full adds), the partition only (no quotient).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK="$ROOT/bench/work/lts"
VLTS="${VLTS:-$ROOT/../shared/data/vlts}"
REPS=${REPS:-3}
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
cargo build --release --quiet --manifest-path "$ROOT/bench/lts/merc/Cargo.toml"
BIN="$CARGO_TARGET_DIR/release/agentpi-merc-bench"

INPUTS=("$WORK/cycle_3e5.aut" "$VLTS/vasy_25_25.aut" "$VLTS/vasy_8_24.aut"
    "$WORK/random_1e6.aut" "$WORK/parallel_6x8.aut")
[[ "${1:-}" == "--full" ]] && INPUTS+=("$WORK/parallel_7x8.aut")

best() { # variant file reps -> "blocks best_seconds"
    local b="" s out
    for ((r = 0; r < $3; r++)); do
        out=$("$BIN" strong "$1" "$2")
        s=${out#* }
        if [[ -z "$b" ]] || awk -v a="$s" -v b="$b" 'BEGIN{exit !(a < b)}'; then b=$s; fi
    done
    echo "${out% *} $b"
}

printf "%-14s %9s %11s %9s %9s\n" input blocks signature nlogn hybrid
for f in "${INPUTS[@]}"; do
    [[ -f "$f" ]] || { echo "missing $f: run bench/lts/run.sh first" >&2; exit 2; }
    reps=$REPS
    [[ $(basename "$f") == parallel_7x8.aut ]] && reps=1
    read -r blocks sig <<<"$(best signature "$f" "$reps")"
    read -r _ nlogn <<<"$(best nlogn "$f" "$reps")"
    read -r _ hybrid <<<"$(best hybrid "$f" "$reps")"
    printf "%-14s %9s %11.4f %9.4f %9.4f\n" "$(basename "$f" .aut)" "$blocks" "$sig" "$nlogn" "$hybrid"
done
