#!/usr/bin/env bash
# agentpi against SPIN 6.5.2's compiled verifier on the same models, in one run (issue 14):
# every model of bench/check/ written twice (NAME.pi and NAME.pml, the same state count on both
# sides, see each file's header), plus bench/check/rpc.pi (name passing; agentpi only). For each
# model and size the runs alternate (SPIN, agentpi --threads 1, agentpi --threads 2), REPS times
# (philosophers N = 14 once); each figure is the best of those runs. Prints one markdown table:
#   states    agentpi's states / SPIN's (its "nominal states" under -DBFS: SPIN also stores one
#             intermediate state per rendezvous; under DFS it stores exactly the nominal ones)
#   agentpi s wall time with --threads 2;  SPIN s: `spin -a` + gcc, then the run of pan
#   ratio     agentpi (2 threads) / SPIN run, for time and for peak memory (/usr/bin/time %M)
#   B/state   agentpi's peak memory (2 threads) per state, and the bytes a state it kept (what
#             `check` reports on standard error: the store, parent links, interned components)
#   1 thr s   agentpi with --threads 1, and the speed-up from 1 to 2 threads
#   verdicts  agentpi's exit status (0: every check holds) / SPIN's errors in a separate DFS run
#             (-DSAFETY -DNOREDUCE: assertions and invalid end states, which BFS with
#             rendezvous does not preserve); philosophers deadlock, so neither side checks it.
# SPIN is run as issue 14 measured it: spin -o3 -a (no statement merging, so that one Promela
# statement is one step, as one agentpi prefix is), gcc -O2 -DSAFETY -DNOREDUCE -DBFS, pan -m10000000.
# Usage: REPS=3 bash bench/check/run_all.sh [MODEL...]   (MODEL: philosophers filter lcr abp rpc,
# or one row as MODEL:LABEL with commas for spaces, `philosophers:N=14`, `filter:N=3,L=4`;
# default all). AGENTPI=path uses that binary instead of building one. Needs spin and gcc
# (`apt install spin`).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v spin >/dev/null || { echo "spin is not installed (apt install spin)" >&2; exit 2; }
if [ -z "${AGENTPI:-}" ]; then
  cargo build --release -p agentpi --quiet
  AGENTPI=$PWD/${CARGO_TARGET_DIR:-target}/release/agentpi
fi
reps=${REPS:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The rows: model, label, agentpi's -D arguments, SPIN's -D arguments ("-" for agentpi only),
# at most how many repetitions, and agentpi's thread counts (philosophers N = 14: SPIN takes
# minutes and over 12 GB, so it runs once).
rows=(
  "philosophers|N=10|-D N=10|-DN=10|"
  "philosophers|N=12|-D N=12|-DN=12|"
  "philosophers|N=14|-D N=14|-DN=14|1|1 2"
  "filter|N=3|-D N=3|-DN=3|"
  "filter|N=3 L=4|-D N=3 -D L=4|-DN=3 -DL=4|"
  "lcr|N=6|-D N=6|-DN=6|"
  "lcr|N=7|-D N=7|-DN=7|"
  "abp|N=100|-D N=100|-DN=100|"
  "abp|N=400|-D N=400|-DN=400|"
  "rpc|4 clients||-|"
)
wanted=("$@")

# Runs a command under /usr/bin/time; prints "seconds KiB status"; its output is in $work/out.
measure() {
  local status=0
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>&1 || status=$?
  echo "$(tail -1 "$work/time") $status"
}

min() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b + 0 < a + 0) print b; else print a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }

echo "| model | N | states agentpi / SPIN | agentpi s | SPIN s (compile + run) | time ratio | agentpi MiB | SPIN MiB | memory ratio | B/state peak | B/state kept | 1 thr s | speed-up 1→2 | verdicts agentpi / SPIN |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for row in "${rows[@]}"; do
  IFS='|' read -r model label adefs sdefs cap tlist <<<"$row"
  if [ ${#wanted[@]} -gt 0 ] && [[ " ${wanted[*]} " != *" $model "* ]] &&
    [[ " ${wanted[*]} " != *" $model:${label// /,} "* ]]; then continue; fi
  # shellcheck disable=SC2206
  aargs=($adefs)
  a1=; a2=; m2=; sc=; sr=; sm=; s_states=-; a_states=; a_status=; kept=-
  n=$reps
  [ -n "$cap" ] && [ "$cap" -lt "$n" ] && n=$cap
  for _ in $(seq "$n"); do
    if [ "$sdefs" != - ]; then
      # shellcheck disable=SC2086
      read -r secs _ _ < <(measure bash -c "cd '$work' && spin -o3 $sdefs -a '$PWD/bench/check/$model.pml' >/dev/null &&
        gcc -O2 -DSAFETY -DNOREDUCE -DBFS -o pan pan.c")
      sc=$(min "$sc" "$secs")
      read -r secs kib _ < <(cd "$work" && measure ./pan -m10000000)
      sr=$(min "$sr" "$secs"); sm=$(min "$sm" "$kib")
      # pan prints large counts as 4.78297e+06: read them back as integers.
      s_states=$(grep -oE '[0-9.e+]+ nominal states' "$work/out" | cut -d' ' -f1 |
        awk '{ printf "%.0f", $1 }' || true)
      [ -n "$s_states" ] || s_states=$(grep -o '[0-9]* states, stored' "$work/out" | cut -d' ' -f1)
    fi
    for threads in ${tlist:-1 2}; do
      read -r secs kib status < <(measure "$AGENTPI" check "bench/check/$model.pi" "${aargs[@]}" \
        --threads "$threads" --max-states 100000000)
      a_states=$(grep -o '[0-9,]* states' "$work/out" | head -1 | tr -d , | cut -d' ' -f1)
      kept=$(grep -o '([0-9]* bytes a state)' "$work/out" | head -1 | tr -d '(' | cut -d' ' -f1)
      a_status=$status
      if [ "$threads" = 1 ]; then a1=$(min "$a1" "$secs"); else a2=$(min "$a2" "$secs"); m2=$(min "$m2" "$kib"); fi
    done
  done
  s_verdict=-
  if [ "$sdefs" != - ] && [ "$model" != philosophers ]; then
    # shellcheck disable=SC2086
    (cd "$work" && spin -o3 $sdefs -a "$OLDPWD/bench/check/$model.pml" >/dev/null &&
      gcc -O2 -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -m10000000 >"$work/dfs" 2>&1) || true
    s_verdict="errors $(grep -o 'errors: [0-9]*' "$work/dfs" | cut -d' ' -f2)"
    dfs_states=$(grep -o '[0-9]* states, stored' "$work/dfs" | cut -d' ' -f1)
    [ "$dfs_states" = "$s_states" ] || s_verdict="$s_verdict (DFS: $dfs_states states)"
  fi
  if [ "$sdefs" = - ]; then
    s_time=-
    spin_cols="| - | $(mib "$m2") | - | - |"
  else
    s_time="$sc + $sr"
    spin_cols="| $(ratio "$a2" "$sr") | $(mib "$m2") | $(mib "$sm") | $(ratio "$m2" "$sm") |"
  fi
  bps=$(awk -v k="$m2" -v s="$a_states" 'BEGIN { printf "%.0f", k * 1024 / s }')
  speedup=-
  [ -n "$a1" ] && speedup=$(ratio "$a1" "$a2")
  echo "| $model | $label | $a_states / $s_states | $a2 | $s_time $spin_cols $bps | $kept | ${a1:--} | $speedup | exit $a_status / $s_verdict |"
done
