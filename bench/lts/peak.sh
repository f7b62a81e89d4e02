#!/usr/bin/env bash
# bench/lts/peak.sh: peak memory of the whole `agentpi minimize` on the small inputs, where the
# binary's start-up is most of it, for one or more agentpi binaries against merc's driver.
#
#   bench/lts/peak.sh AGENTPI...       # e.g. an older build and target/release/agentpi
#
# Each cell is the median of REPS runs (default 5) of `AGENTPI minimize FILE --equiv E
# --no-time`, or of `agentpi-merc-bench reduce merc E FILE` (bench/lts/merc, as
# bench/lts/run.sh runs it), peak RSS in KB from /usr/bin/time; the binaries and merc alternate
# run by run, so that what the machine does meanwhile hits all alike (memory is hardly disturbed
# by load; time is not measured here: bench/lts/run.sh). The last column is the last binary's
# peak over merc's. Inputs: the state spaces of two bundled models (written by the first binary's
# `lts` command into bench/work/lts/) and the six smallest VLTS graphs (VLTS=DIR, default
# ../shared/data/vlts). MERC=PATH: the merc driver (default target/release/agentpi-merc-bench).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK="$ROOT/bench/work/lts"
VLTS="${VLTS:-$ROOT/../shared/data/vlts}"
MERC="${MERC:-${CARGO_TARGET_DIR:-$ROOT/target}/release/agentpi-merc-bench}"
REPS=${REPS:-5}
(($# > 0)) || { echo "usage: bench/lts/peak.sh AGENTPI..." >&2; exit 2; }
BINS=("$@")
mkdir -p "$WORK"

INPUTS=()
for model in banking_two:banking:TwoAgents orchestration:orchestration:Pipeline; do
    name=${model%%:*}
    [[ -f "$WORK/$name.aut" ]] || "${BINS[0]}" lts "${model#*:}" -o "$WORK/$name.aut" >/dev/null
    INPUTS+=("$WORK/$name.aut")
done
for g in vasy_0_1 cwi_1_2 vasy_1_4 vasy_5_9 cwi_3_14 vasy_8_24; do
    [[ -f "$VLTS/$g.aut" ]] && INPUTS+=("$VLTS/$g.aut")
done

TMP=$(mktemp)
trap 'rm -f "$TMP"' EXIT
peak() { # COMMAND... -> peak RSS in KB
    /usr/bin/time -o "$TMP" -f %M "$@" >/dev/null 2>&1
    cat "$TMP"
}
median() { tr ' ' '\n' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# How a binary's pages sit in the page cache (as the linker wrote them, or `cp`) moves its peak
# by a few hundred KB: each binary is dropped from the page cache and run once first, as after
# a reboot (docs/minimize.md, *Start-up memory*).
for bin in "${BINS[@]}" "$MERC"; do dd if="$bin" iflag=nocache count=0 status=none; done
for bin in "${BINS[@]}"; do peak "$bin" minimize "${INPUTS[0]}" --no-time >/dev/null; done
peak "$MERC" reduce merc strong "${INPUTS[0]}" >/dev/null

echo "load: $(uptime)"
header="input transitions equiv"
for ((b = 0; b < ${#BINS[@]}; b++)); do header+=" bin$((b + 1))_KB"; done
{
echo "$header merc_KB ratio"
for f in "${INPUTS[@]}"; do
    name=$(basename "$f" .aut)
    trans=$(head -1 "$f" | sed 's/des *( *[0-9]* *, *\([0-9]*\).*/\1/')
    for eq in branching strong; do
        declare -A runs=()
        for ((r = 0; r < REPS; r++)); do
            for ((b = 0; b < ${#BINS[@]}; b++)); do
                runs[$b]+=" $(peak "${BINS[$b]}" minimize "$f" --equiv "$eq" --no-time)"
            done
            runs[merc]+=" $(peak "$MERC" reduce merc "$eq" "$f")"
        done
        line="$name $trans $eq"
        for ((b = 0; b < ${#BINS[@]}; b++)); do line+=" $(median <<<"${runs[$b]# }")"; done
        m=$(median <<<"${runs[merc]# }")
        last=$(median <<<"${runs[$((${#BINS[@]} - 1))]# }")
        echo "$line $m $(awk -v a="$last" -v b="$m" 'BEGIN {printf "%.2f", a / b}')"
        unset runs
    done
done
} | column -t
echo "load: $(uptime)"
