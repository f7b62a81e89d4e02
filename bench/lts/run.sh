#!/usr/bin/env bash
# bench/lts/run.sh: minimisation time and peak memory of agentpi-lts against merc_reduction
# on the same inputs in one run, printed as a table with ratios ours/merc (< 1: we win).
#
#   bench/lts/run.sh [--quick]
#
# Inputs: the VLTS graphs in ../shared/data/vlts (if present) and generated ones, written at
# run time to bench/work/lts/ (git-ignored): random LTSs (a third of the steps silent, so
# with tau-cycles), one long random cycle, K parallel cyclic processes (a parameterised
# model), and state spaces written by `agentpi lts` from models: bundled ones, the checker's
# benchmark bench/check/rpc.pi (restricted channels, so many tau-steps) and the dining
# philosophers of bench/lts/philosophers.pi (free channels: strong bisimulation merges
# nothing). --quick keeps inputs up to about 10^6 transitions; the full run adds 10^7 and the
# philosophers for N = 12 (531,440 states, 4,251,516 transitions). Time is the CPU time of
# the reduction alone (both tools reduce on one thread; CPU time is what a loaded machine
# disturbs least; wall time under 0.2 s, where its 10 ms ticks are too coarse), the best of REPS runs (default 3, 2 with --quick; at least 9 for inputs
# under 10^5 transitions, which take milliseconds); memory is the peak RSS from
# /usr/bin/time, which includes reading the file with each tool's own reader. Runs of the two
# tools alternate, so that a change of load hits both.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK="$ROOT/bench/work/lts"
VLTS="${VLTS:-$ROOT/../shared/data/vlts}"
QUICK=0
[[ "${1:-}" == "--quick" ]] && QUICK=1
REPS=${REPS:-$((QUICK ? 2 : 3))}
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
mkdir -p "$WORK"

cargo build --release --quiet --manifest-path "$ROOT/bench/lts/merc/Cargo.toml"
cargo build --release --quiet -p agentpi --manifest-path "$ROOT/Cargo.toml"
BIN="$CARGO_TARGET_DIR/release/agentpi-merc-bench"
AGENTPI="$CARGO_TARGET_DIR/release/agentpi"

# merc's answers recorded for the differential tests of agentpi-lts must still be merc's.
if ! "$BIN" oracle | diff -q - "$ROOT/crates/lts/tests/oracle/merc.txt" >/dev/null; then
    echo "crates/lts/tests/oracle/merc.txt differs from merc: regenerate it with '$BIN oracle'" >&2
    exit 1
fi

generate() { # name, generator arguments...
    local name=$1; shift
    [[ -f "$WORK/$name.aut" ]] || "$BIN" "$@" "$WORK/$name.aut"
    echo "$WORK/$name.aut"
}

# model NAME SPEC: the state space `agentpi lts SPEC` writes (SPEC is FILE.pi:System).
model() {
    [[ -f "$WORK/$1.aut" ]] || "$AGENTPI" lts "$2" -o "$WORK/$1.aut"
    echo "$WORK/$1.aut"
}

# philosophers N: bench/lts/philosophers.pi rewritten for N philosophers.
philosophers() {
    local n=$1 file="$WORK/philosophers_$1.pi" system="Phil(0)" forks="Fork(0)"
    for ((i = 1; i < n; i++)); do system+=" | Phil($i)"; forks+=" | Fork($i)"; done
    sed -e "s/^const N = .*/const N = $n/" -e "s/^type Id = .*/type Id = 0..$((n - 1))/" \
        -e '/^system/,$d' "$ROOT/bench/lts/philosophers.pi" >"$file"
    echo "system Table = $system | $forks" >>"$file"
    model "philosophers_$n" "$file:Table"
}

INPUTS=()
for f in "$VLTS"/*.aut; do [[ -f "$f" ]] && INPUTS+=("$f"); done
INPUTS+=("$(generate random_1e5 random 10000 100000 1)")
INPUTS+=("$(generate random_1e6 random 100000 1000000 2)")
INPUTS+=("$(generate parallel_5x8 parallel 5 8)")
# A single random cycle: many refinement rounds, the hard case for signature refinement.
INPUTS+=("$(generate cycle_3e5 random 300000 300000 5)")
INPUTS+=("$(model banking_two "banking:TwoAgents")")
INPUTS+=("$(model orchestration "orchestration:Pipeline")")
INPUTS+=("$(model rpc "$ROOT/bench/check/rpc.pi:Rpc")")
INPUTS+=("$(philosophers 8)")
if ((QUICK)); then
    INPUTS+=("$(generate parallel_6x8 parallel 6 8)")
    INPUTS+=("$(philosophers 10)")
else
    INPUTS+=("$(generate parallel_7x8 parallel 7 8)")
    INPUTS+=("$(generate random_1e7 random 1000000 10000000 3)")
    INPUTS+=("$(philosophers 12)")
fi

# once TOOL EQUIV FILE -> "states/transitions seconds peak_kb"
once() {
    local out line
    out=$( { /usr/bin/time -f "RSS %M" "$BIN" reduce "$1" "$2" "$3"; } 2>&1 )
    line=$(grep -v '^RSS' <<<"$out" | tail -1)
    echo "$(awk '{print $1 "/" $2, $3}' <<<"$line") $(grep '^RSS' <<<"$out" | awk '{print $2}')"
}

# measure EQUIV FILE REPS -> "ours_sizes ours_s ours_kb merc_sizes merc_s merc_kb": the best
# time and the largest peak of each tool, runs alternating.
measure() {
    local r tool sizes s kb
    declare -A best peak size
    for ((r = 0; r < $3; r++)); do
        for tool in ours merc; do
            read -r sizes s kb <<<"$(once "$tool" "$1" "$2")"
            size[$tool]=$sizes
            if [[ -z "${best[$tool]:-}" ]] || awk -v a="$s" -v b="${best[$tool]}" 'BEGIN{exit !(a < b)}'; then
                best[$tool]=$s
            fi
            ((kb > ${peak[$tool]:-0})) && peak[$tool]=$kb
        done
    done
    echo "${size[ours]} ${best[ours]} ${peak[ours]} ${size[merc]} ${best[merc]} ${peak[merc]}"
}

printf "%-14s %10s %-9s %-15s %9s %9s %6s %8s %8s %6s\n" \
    input transitions equiv "quotient s/t" "ours s" "merc s" ratio "ours MB" "merc MB" ratio
for f in "${INPUTS[@]}"; do
    name=$(basename "$f" .aut)
    trans=$(head -1 "$f" | sed 's/des *( *[0-9]* *, *\([0-9]*\).*/\1/')
    reps=$REPS
    ((trans < 100000 && reps < 9)) && reps=9
    for eq in strong branching; do
        read -r qo to ko qm tm km <<<"$(measure "$eq" "$f" "$reps")"
        [[ "$qo" == "$qm" ]] || qo="$qo!=merc:$qm"
        awk -v n="$name" -v m="$trans" -v e="$eq" -v q="$qo" -v to="$to" -v tm="$tm" -v ko="$ko" -v km="$km" 'BEGIN {
            printf "%-14s %10s %-9s %-15s %9.3f %9.3f %6.2f %8.1f %8.1f %6.2f\n",
                n, m, e, q, to, tm, (tm > 0 ? to / tm : 0), ko / 1024, km / 1024, ko / km }'
    done
done
