#!/usr/bin/env bash
# bench/lts/run.sh: minimisation time and peak memory of agentpi-lts against merc_reduction
# on the same inputs in one run, printed as a table with ratios ours/merc (< 1: we win).
#
#   bench/lts/run.sh [--quick]
#
# Inputs: the VLTS graphs in ../shared/data/vlts (if present) and generated ones, written at
# run time to bench/work/lts/ (git-ignored): random LTSs (a third of the steps silent, so
# with tau-cycles), one long random cycle, and K parallel cyclic processes (a parameterised
# model). --quick keeps
# inputs up to about 10^6 transitions; the full run adds 10^7. Each measurement is the best
# time of REPS runs (default 3, 2 with --quick); memory is the peak RSS from /usr/bin/time,
# which includes reading the file with each tool's own reader.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK="$ROOT/bench/work/lts"
VLTS="${VLTS:-$ROOT/../shared/data/vlts}"
QUICK=0
[[ "${1:-}" == "--quick" ]] && QUICK=1
REPS=${REPS:-$((QUICK ? 2 : 3))}
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
mkdir -p "$WORK"

cargo build --release --quiet -p agentpi-lts --example bench --manifest-path "$ROOT/Cargo.toml"
BIN="$CARGO_TARGET_DIR/release/examples/bench"

generate() { # name, generator arguments...
    local name=$1; shift
    [[ -f "$WORK/$name.aut" ]] || "$BIN" "$@" "$WORK/$name.aut"
    echo "$WORK/$name.aut"
}

INPUTS=()
for f in "$VLTS"/*.aut; do [[ -f "$f" ]] && INPUTS+=("$f"); done
INPUTS+=("$(generate random_1e5 random 10000 100000 1)")
INPUTS+=("$(generate random_1e6 random 100000 1000000 2)")
INPUTS+=("$(generate parallel_5x8 parallel 5 8)")
# A single random cycle: many refinement rounds, the hard case for signature refinement.
INPUTS+=("$(generate cycle_3e5 random 300000 300000 5)")
if ((QUICK)); then
    INPUTS+=("$(generate parallel_6x8 parallel 6 8)")
else
    INPUTS+=("$(generate parallel_7x8 parallel 7 8)")
    INPUTS+=("$(generate random_1e7 random 1000000 10000000 3)")
fi

# measure TOOL EQUIV FILE -> "states transitions best_seconds peak_kb"
measure() {
    local best="" kb=0 out line
    for ((r = 0; r < REPS; r++)); do
        out=$( { /usr/bin/time -f "RSS %M" "$BIN" reduce "$1" "$2" "$3"; } 2>&1 )
        line=$(grep -v '^RSS' <<<"$out" | tail -1)
        local rss; rss=$(grep '^RSS' <<<"$out" | awk '{print $2}')
        ((rss > kb)) && kb=$rss
        local s; s=$(awk '{print $3}' <<<"$line")
        if [[ -z "$best" ]] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$s; fi
        sizes=$(awk '{print $1 "/" $2}' <<<"$line")
    done
    echo "$sizes $best $kb"
}

printf "%-14s %10s %-9s %-15s %9s %9s %6s %8s %8s %6s\n" \
    input transitions equiv "quotient s/t" "ours s" "merc s" ratio "ours MB" "merc MB" ratio
for f in "${INPUTS[@]}"; do
    name=$(basename "$f" .aut)
    trans=$(head -1 "$f" | sed 's/des *( *[0-9]* *, *\([0-9]*\).*/\1/')
    for eq in strong branching; do
        read -r qo to ko <<<"$(measure ours "$eq" "$f")"
        read -r qm tm km <<<"$(measure merc "$eq" "$f")"
        [[ "$qo" == "$qm" ]] || qo="$qo!=merc:$qm"
        awk -v n="$name" -v m="$trans" -v e="$eq" -v q="$qo" -v to="$to" -v tm="$tm" -v ko="$ko" -v km="$km" 'BEGIN {
            printf "%-14s %10s %-9s %-15s %9.3f %9.3f %6.2f %8.1f %8.1f %6.2f\n",
                n, m, e, q, to, tm, (tm > 0 ? to / tm : 0), ko / 1024, km / 1024, ko / km }'
    done
done
