#!/usr/bin/env bash
# bench/lts/run.sh: the whole `agentpi minimize` command (read the file, reduce, no output file)
# against merc doing the same (merc_lts's reader, merc_reduction's reduction) on the same
# inputs in one run, printed as a table with ratios ours/merc (< 1: we win).
#
#   bench/lts/run.sh [--quick]
#
# Inputs: the VLTS graphs in ../shared/data/vlts (if present) and generated ones, written at
# run time to bench/work/lts/ (git-ignored): random LTSs (a third of the steps silent, so
# with tau-cycles), one long random cycle, K parallel cyclic processes (a parameterised
# model), and state spaces written by `agentpi lts` from models: bundled ones, the checker's
# benchmark bench/check/rpc.pi (restricted channels, so many tau-steps) and the dining
# philosophers of bench/lts/philosophers.pi (free channels: strong bisimulation merges
# nothing), also with every philosopher but philosopher 0 hidden (`philhide`: their steps
# renamed `tau`). --quick keeps inputs up to about 10^6 transitions; the full run adds 10^7
# and the philosophers for N = 12 (531,440 states, 4,251,516 transitions, 85 MB).
#
# Each cell is a whole process, as a user runs it: `agentpi minimize FILE --equiv E --no-time`
# against `agentpi-merc-bench reduce merc E FILE` (bench/lts/merc: merc's reader, then
# merc's reduction; no output written by either). /usr/bin/time gives wall time, CPU time
# (user + system) and peak RSS. The time ratio is of CPU time, which a loaded machine disturbs
# least (both tools run on one thread), or of wall time where merc's CPU time is under 0.2 s
# (/usr/bin/time counts it in 10 ms ticks); both are printed. Times are the median of REPS
# runs (default 3, 2 with --quick; at least 9 for inputs under 10^5 transitions), the best of
# them when REPS is under 3, memory the largest peak; runs of the two tools alternate, so that
# a change of load hits both. A best-of picks whichever tool was lucky on a shared host, where
# one binary's time moves by a fifth between runs: with 3 runs or more the columns "range us"
# and "range mrc" give the min-max of the time the ratio is read from (CPU, or wall as above). The
# load (`uptime`) is printed before and after. AGENTPI=PATH measures another build of agentpi
# (an older one, for a before/after table) instead of building this tree's; NO_BUILD=1 uses
# the merc driver as last built, MERC=PATH a merc driver built elsewhere. ONLY=REGEX keeps the
# inputs whose name (without .aut) matches the extended regular expression (inputs that are not
# kept are not generated either, but for the models that a kept one is written from). The list
# of functions the linker places together (crates/cli/minimize.order) is checked against the
# binary measured first (bench/lts/order.sh --check): a warning if it is stale.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK="$ROOT/bench/work/lts"
VLTS="${VLTS:-$ROOT/../shared/data/vlts}"
QUICK=0
[[ "${1:-}" == "--quick" ]] && QUICK=1
REPS=${REPS:-$((QUICK ? 2 : 3))}
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
mkdir -p "$WORK"

[[ -n "${NO_BUILD:-}${MERC:-}" ]] || cargo build --release --quiet --manifest-path "$ROOT/bench/lts/merc/Cargo.toml"
BIN="${MERC:-$CARGO_TARGET_DIR/release/agentpi-merc-bench}"
if [[ -z "${AGENTPI:-}" ]]; then
    cargo build --release --quiet -p agentpi --manifest-path "$ROOT/Cargo.toml"
    AGENTPI="$CARGO_TARGET_DIR/release/agentpi"
fi

# A stale crates/cli/minimize.order (names the binary no longer defines) puts code a short run
# executes among code it does not, which costs memory on the small inputs: say so, and go on.
AGENTPI="$AGENTPI" bash "$ROOT/bench/lts/order.sh" --check >/dev/null ||
    echo "(so the small inputs' memory below may be above what a fresh list gives)" >&2

# merc's answers recorded for the differential tests of agentpi-lts must still be merc's.
if ! "$BIN" oracle | diff -q - "$ROOT/crates/lts/tests/oracle/merc.txt" >/dev/null; then
    echo "crates/lts/tests/oracle/merc.txt differs from merc: regenerate it with '$BIN oracle'" >&2
    exit 1
fi

# kept NAME: whether ONLY (if set) keeps the input NAME.
kept() { [[ -z "${ONLY:-}" || "$1" =~ ^($ONLY)$ ]]; }

generate() { # name, generator arguments...
    local name=$1; shift
    kept "$name" || return 0
    [[ -f "$WORK/$name.aut" ]] || "$BIN" "$@" "$WORK/$name.aut"
    echo "$WORK/$name.aut"
}

# model NAME SPEC: the state space `agentpi lts SPEC` writes (SPEC is FILE.pi:System).
model() {
    kept "$1" || [[ "$1" == philosophers_* ]] || return 0
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

# philhide N: the philosophers with the steps of every philosopher but 0 renamed `tau`
# (labels are `up(FORK, PHILOSOPHER)` and `down(FORK, PHILOSOPHER)`).
philhide() {
    local all out="$WORK/philhide_$1.aut"
    kept "philhide_$1" || return 0
    all=$(philosophers "$1")
    [[ -f "$out" ]] || sed -E 's/"(up|down)\([0-9]+, [1-9][0-9]*\)"/"tau"/' "$all" >"$out"
    echo "$out"
}

INPUTS=()
for f in "$VLTS"/*.aut; do [[ -f "$f" ]] && kept "$(basename "$f" .aut)" && INPUTS+=("$f"); done
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
    INPUTS+=("$(philhide 10)")
else
    INPUTS+=("$(philosophers 12)")
    INPUTS+=("$(philhide 12)")
    INPUTS+=("$(generate parallel_7x8 parallel 7 8)")
    INPUTS+=("$(generate random_1e7 random 1000000 10000000 3)")
fi

# once TOOL EQUIV FILE -> "states/transitions wall_s cpu_s peak_kb"
once() {
    local out sizes
    if [[ $1 == ours ]]; then
        out=$( { /usr/bin/time -f "TIME %e %U %S %M" "$AGENTPI" minimize "$3" --equiv "$2" --no-time; } 2>&1 )
        sizes=$(awk '/^quotient:/ {print $2 "/" $4}' <<<"$out")
    else
        out=$( { /usr/bin/time -f "TIME %e %U %S %M" "$BIN" reduce merc "$2" "$3"; } 2>&1 )
        sizes=$(grep -v '^TIME' <<<"$out" | tail -1 | awk '{print $1 "/" $2}')
    fi
    echo "$sizes $(awk '/^TIME/ {print $2, $3 + $4, $5}' <<<"$out")"
}

# figure RUNS: the median of the runs (space-separated) when there are 3 or more (the mean of
# the two middle ones for an even count), else the least; then their min and max.
figure() {
    tr ' ' '\n' <<<"$1" | sort -g | awk 'NF { v[++n] = $1 } END {
        m = n < 3 ? v[1] : (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2)
        print m, v[1], v[n] }'
}

# measure EQUIV FILE REPS -> "ours_sizes ours_wall ours_cpu ours_kb merc_sizes merc_wall
# merc_cpu merc_kb" and each tool's wall min, wall max, CPU min, CPU max: the figures (medians,
# or bests under 3 runs) and the largest peak of each tool, runs alternating.
measure() {
    local r tool sizes wall cpu kb
    declare -A walls cpus peak size wfig cfig wlo whi clo chi
    for ((r = 0; r < $3; r++)); do
        for tool in ours merc; do
            read -r sizes wall cpu kb <<<"$(once "$tool" "$1" "$2")"
            size[$tool]=$sizes
            walls[$tool]+=" $wall"
            cpus[$tool]+=" $cpu"
            ((kb > ${peak[$tool]:-0})) && peak[$tool]=$kb
        done
    done
    for tool in ours merc; do
        read -r "wfig[$tool]" "wlo[$tool]" "whi[$tool]" <<<"$(figure "${walls[$tool]}")"
        read -r "cfig[$tool]" "clo[$tool]" "chi[$tool]" <<<"$(figure "${cpus[$tool]}")"
    done
    echo "${size[ours]} ${wfig[ours]} ${cfig[ours]} ${peak[ours]}" \
        "${size[merc]} ${wfig[merc]} ${cfig[merc]} ${peak[merc]}" \
        "${wlo[ours]} ${whi[ours]} ${clo[ours]} ${chi[ours]}" \
        "${wlo[merc]} ${whi[merc]} ${clo[merc]} ${chi[merc]}"
}

echo "load before: $(uptime)"
printf "%-14s %10s %-9s %-15s %8s %8s %8s %8s %6s %11s %11s %8s %8s %6s\n" input transitions \
    equiv "quotient s/t" "wall us" "wall mrc" "cpu us" "cpu mrc" ratio "range us" "range mrc" \
    "MB us" "MB mrc" ratio
for f in "${INPUTS[@]}"; do
    [[ -n "$f" ]] || continue
    name=$(basename "$f" .aut)
    kept "$name" || continue
    trans=$(head -1 "$f" | sed 's/des *( *[0-9]* *, *\([0-9]*\).*/\1/')
    reps=$REPS
    ((trans < 100000 && reps < 9)) && reps=9
    for eq in strong branching; do
        read -r qo wo co ko qm wm cm km wlo who clo cho wlm whm clm chm \
            <<<"$(measure "$eq" "$f" "$reps")"
        [[ "$qo" == "$qm" ]] || qo="$qo!=merc:$qm"
        awk -v n="$name" -v m="$trans" -v e="$eq" -v q="$qo" -v wo="$wo" -v wm="$wm" \
            -v co="$co" -v cm="$cm" -v ko="$ko" -v km="$km" -v reps="$reps" \
            -v wlo="$wlo" -v who="$who" -v clo="$clo" -v cho="$cho" \
            -v wlm="$wlm" -v whm="$whm" -v clm="$clm" -v chm="$chm" 'BEGIN {
            cpu = cm >= 0.2
            ro = reps < 3 ? "-" : sprintf("%.2f-%.2f", cpu ? clo : wlo, cpu ? cho : who)
            rm = reps < 3 ? "-" : sprintf("%.2f-%.2f", cpu ? clm : wlm, cpu ? chm : whm)
            printf "%-14s %10s %-9s %-15s %8.2f %8.2f %8.2f %8.2f %6.2f %11s %11s %8.1f %8.1f %6.2f\n",
                n, m, e, q, wo, wm, co, cm, (cpu ? co / cm : (wm > 0 ? wo / wm : 0)), ro, rm,
                ko / 1024, km / 1024, ko / km }'
    done
done
echo "load after: $(uptime)"
