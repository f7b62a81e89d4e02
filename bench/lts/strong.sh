#!/usr/bin/env bash
# bench/lts/strong.sh: the strong-bisimulation algorithms of agentpi-lts side by side on the
# inputs of bench/lts/run.sh (run that first: it generates them into bench/work/lts/).
#
#   bench/lts/strong.sh [--full] [FILE.aut ...]
#
# Variants: signature refinement alone, the O(m log n) refinement after one signature round,
# and the hybrid `agentpi minimize` runs; each time is the partition only (no quotient), as the
# driver `agentpi-merc-bench strong VARIANT FILE` measures it. The three variants take turns,
# REPS times (default 3, 1 for the 10^7 input that --full adds), so that a change of load hits
# each. With 3 runs or more each cell is the median of its runs followed by their range,
# `0.147 [0.141-0.160]`: on a shared host one binary's time moves by a fifth between runs, and a
# best-of picks whichever variant was lucky. With 1 or 2 runs each cell is the best, alone; a
# line above the table says which. The blocks are the signature variant's; a variant that
# finds another count is flagged (`!=`). FILE.aut arguments replace the default inputs; MERC=PATH
# uses a driver built elsewhere (NO_BUILD=1: the one last built); ONLY=REGEX keeps the inputs
# whose name (without .aut) matches. The load (`uptime`) is printed before and after.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK="$ROOT/bench/work/lts"
VLTS="${VLTS:-$ROOT/../shared/data/vlts}"
REPS=${REPS:-3}
FULL=0
[[ "${1:-}" == "--full" ]] && { FULL=1; shift; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
[[ -n "${NO_BUILD:-}${MERC:-}" ]] || cargo build --release --quiet --manifest-path "$ROOT/bench/lts/merc/Cargo.toml"
BIN="${MERC:-$CARGO_TARGET_DIR/release/agentpi-merc-bench}"
VARIANTS=(signature nlogn hybrid)

if (($#)); then
    INPUTS=("$@")
else
    INPUTS=("$WORK/cycle_3e5.aut" "$VLTS/vasy_25_25.aut" "$VLTS/vasy_8_24.aut"
        "$WORK/random_1e6.aut" "$WORK/parallel_6x8.aut")
    ((FULL)) && INPUTS+=("$WORK/parallel_7x8.aut")
fi

# kept NAME: whether ONLY (if set) keeps the input NAME.
kept() { [[ -z "${ONLY:-}" || "$1" =~ ^($ONLY)$ ]]; }

# figure RUNS: the median of the runs (space-separated) when there are 3 or more (the mean of
# the two middle ones for an even count), else the least; then their min and max.
figure() {
    tr ' ' '\n' <<<"$1" | sort -g | awk 'NF { v[++n] = $1 } END {
        m = n < 3 ? v[1] : (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2)
        print m, v[1], v[n] }'
}

# cell RUNS: "median [min-max]" with 3 runs or more, else the best.
cell() {
    local m lo hi
    read -r m lo hi <<<"$(figure "$1")"
    if (($(wc -w <<<"$1") < 3)); then
        printf "%.4f" "$m"
    else
        printf "%.4f [%.4f-%.4f]" "$m" "$lo" "$hi"
    fi
}

# measure FILE REPS -> one table row: the variants taking turns, REPS rounds.
measure() {
    local r v out blocks
    declare -A times found
    for ((r = 0; r < $2; r++)); do
        for v in "${VARIANTS[@]}"; do
            out=$("$BIN" strong "$v" "$1")
            found[$v]=${out% *}
            times[$v]+=" ${out#* }"
        done
    done
    blocks=${found[signature]}
    for v in nlogn hybrid; do
        [[ "${found[$v]}" == "$blocks" ]] || blocks+="!=$v:${found[$v]}"
    done
    printf "| %s | %s | %s | %s | %s |\n" "$(basename "$1" .aut)" "$blocks" \
        "$(cell "${times[signature]}")" "$(cell "${times[nlogn]}")" "$(cell "${times[hybrid]}")"
}

echo "load before: $(uptime)"
if ((REPS >= 3)); then
    echo "each cell: the median of $REPS runs, the variants taking turns, [min-max] of the runs" \
        "(a row capped below 3 runs: the best)"
else
    echo "each cell: the best of $REPS run(s), the variants taking turns"
fi
echo "| input | blocks | signature s | nlogn s | hybrid s |"
echo "| --- | --- | --- | --- | --- |"
for f in "${INPUTS[@]}"; do
    kept "$(basename "$f" .aut)" || continue
    [[ -f "$f" ]] || { echo "missing $f: run bench/lts/run.sh first" >&2; exit 2; }
    reps=$REPS
    [[ $(basename "$f") == parallel_7x8.aut ]] && reps=1
    measure "$f" "$reps"
done
echo "load after: $(uptime)"
