#!/usr/bin/env bash
# agentpi against SPIN 6.5.2's compiled verifier on the same models, in one run (issues 14, 35).
# Every model of bench/check/ is NAME.pi and, for SPIN, NAME.pml written the same way (one
# process per process, one Promela statement per prefix: forks, locks and registers are
# processes meeting on rendezvous; SPIN with -o3) and, where a SPIN user would write it
# otherwise, NAME.shared.pml: shared variables and `atomic` (plain `spin -a`). peterson (shared
# arrays) and seqbuffer (a buffered channel, NAME.user.pml) are written as a SPIN user writes
# them, plain `spin -a`, and their NAME.pi follows pan's automaton (seqbuffer has no NAME.pml).
# Every encoding has exactly agentpi's state count, breadth-first and depth-first: the script
# checks it and exits 1 if not. bench/check/rpc.pi (name passing) is agentpi's alone.
# For each model and size the runs go in REPS rounds, SPIN's and agentpi's interleaved in each
# round so that a ratio compares two runs made seconds apart: SPIN BFS on each encoding (the
# one the goals are judged on last), agentpi --threads 1, agentpi --threads 2, SPIN DFS on each
# encoding (the goals' first), and every other round the same runs in reverse order. So the
# goals' ratios (1 thread / BFS, 2 threads / BFS) are read from neighbours, and each pair keeps
# its neighbours while which side runs first alternates. On this shared host a ratio near 1.0
# moves by a fifth within minutes: a ratio of two medians taken minutes apart says nothing of
# that, a ratio per round and their range does.
# Seconds and memory: with 3 runs or more each figure is the median of the runs, and each time
# the ratios are read from (SPIN BFS and DFS CPU, agentpi 1 thread CPU, agentpi 2 threads wall)
# is followed by the range of its runs, `[min-max]`. With 1 or 2 runs (REPS < 3, or a row
# capped below 3) each figure is the best (the least), no range shown.
# Ratios: one per round, each figure the median of the rounds' ratios followed by their range,
# `1.05 [0.97-1.12]`; a row run once has its one ratio alone. After the table, the goals on
# the encoding a SPIN user writes (the row's last: shared or user, else as.pi), each met only
# when the max of its rounds' ratios, as printed, is at or under the goal.
# One markdown table, after a line saying which:
#   encoding   as.pi (NAME.pml, spin -o3), shared (NAME.shared.pml, spin) or user
#              (NAME.user.pml, spin)
#   states     agentpi's = SPIN's (its "nominal states" under -DBFS, "stored" under DFS)
#   SPIN BFS / DFS   pan -DSAFETY -DNOREDUCE [-DBFS]: user+sys CPU seconds of the run (the
#              compile is not counted), and peak memory in MiB (/usr/bin/time %M)
#   agentpi 1 thr    user+sys CPU seconds and MiB;  2 thr: wall seconds [range] (CPU
#              seconds) and MiB; each run the whole `agentpi check` command
#   ratios     agentpi 1 thread CPU / SPIN BFS CPU, agentpi 2 threads wall / SPIN BFS CPU
#              (goals <= 1 and <= 0.5), agentpi 1 thread / SPIN DFS, and memory (2 threads)
#              / SPIN BFS (goal <= 0.5), each per round ("-" when a time of a round is
#              under /usr/bin/time's 0.01 s)
#   verdicts   agentpi's exit status / SPIN's errors in the DFS run (assertions and invalid end
#              states; philosophers deadlock and neither side checks it: pan -E)
# pan's hash table is its default (-w18 grown as pan does not; SPIN's memory is then mostly
# that table on the small models), its depth limit the states a
# breadth-first search stored (so that it never cuts a search).
# Usage: REPS=3 bash bench/check/run_all.sh [MODEL...]   (MODEL: philosophers filter peterson
# lcr abp buffer seqbuffer rpc, or one row as MODEL:LABEL with commas for spaces,
# `philosophers:N=12`, `filter:N=3,L=4`; a LABEL not in the rows is a size of its own, each
# NAME=VALUE passed to both sides, `philosophers:N=8`; default all). AGENTPI=path uses that
# binary instead of building one; RUNS=1 prints each run, in the order run, on standard error
# (round, run, /usr/bin/time's "wall user sys KiB"). Needs spin and gcc (`apt install
# spin`). Say the machine's load (`uptime`) with the table.
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
# at most how many repetitions, and SPIN's encodings (default: every NAME*.pml there is;
# philosophers N = 14 on rendezvous takes SPIN minutes and over 12 GB under BFS, peterson N = 4
# 97 s and 9 GB).
rows=(
  "philosophers|N=10|-D N=10|-DN=10||"
  "philosophers|N=12|-D N=12|-DN=12||"
  "philosophers|N=14|-D N=14|-DN=14|1|shared"
  "filter|N=3|-D N=3|-DN=3||"
  "filter|N=3 L=4|-D N=3 -D L=4|-DN=3 -DL=4||"
  "filter|N=4|-D N=4|-DN=4|1|"
  "peterson|N=3|-D N=3|-DN=3||"
  "peterson|N=4|-D N=4|-DN=4||shared"
  "lcr|N=6|-D N=6|-DN=6||"
  "lcr|N=7|-D N=7|-DN=7||"
  "abp|N=100|-D N=100|-DN=100||"
  "abp|N=400|-D N=400|-DN=400||"
  "buffer|N=8 K=3|-D N=8 -D K=3|-DN=8 -DK=3||"
  "buffer|N=8 K=5|-D N=8 -D K=5|-DN=8 -DK=5|1|"
  "seqbuffer|K=6 D=4|-D K=6 -D D=4|-DK=6 -DD=4||"
  "seqbuffer|K=5 D=6|-D K=5 -D D=6|-DK=5 -DD=6||"
  "rpc|4 clients||-||"
)
wanted=("$@")
mismatch=0
goals=()

# A MODEL:LABEL argument that is no row is a row of its own: LABEL's NAME=VALUE pairs (commas
# for spaces) passed to agentpi as -D NAME=VALUE and to SPIN as -DNAME=VALUE.
for arg in "${wanted[@]}"; do
  [[ "$arg" == *:* ]] || continue
  model=${arg%%:*} label=${arg#*:}
  label=${label//,/ }
  printf '%s\n' "${rows[@]}" | grep -qF "$model|$label|" && continue
  [ -f "bench/check/$model.pi" ] || { echo "no model bench/check/$model.pi" >&2; exit 2; }
  adefs='' sdefs=''
  for def in $label; do adefs+=" -D $def"; sdefs+=" -D$def"; done
  [ -f "bench/check/$model.pml" ] || [ -f "bench/check/$model.shared.pml" ] ||
    [ -f "bench/check/$model.user.pml" ] || sdefs=-
  rows+=("$model|$label|${adefs# }|${sdefs# }||")
done

# Runs a command under /usr/bin/time; prints "wall cpu KiB status" (cpu: user + sys seconds);
# its output is in $work/out.
measure() {
  local status=0
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$work/out" 2>&1 || status=$?
  tail -1 "$work/time" | awk -v s="$status" '{ printf "%s %.2f %s %s\n", $1, $2 + $3, $4, s }'
}

# fig RUNS...: the figure of the runs, their median when there are 3 or more (the mean of the
# two middle ones for an even count), else the least.
fig() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    if (NR < 3) { print v[1]; exit }
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    print m }'
}
# spread RUNS...: " [min-max]" of 3 runs or more, else nothing (times, 2 decimals).
spread() {
  [ $# -ge 3 ] || return 0
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf " [%.2f-%.2f]", v[1], v[NR] }'
}
# sec RUNS...: the figure of CPU or wall seconds, 2 decimals.
sec() { awk -v v="$(fig "$@")" 'BEGIN { printf "%.2f", v }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }

# per_round "A..." "B...": the ratio A / B of each round, the runs listed in round order; "-"
# for a round where A or B is 0 (under the timer's resolution: a ratio of 0 would meet any
# goal).
per_round() {
  paste -d' ' <(tr -s ' ' '\n' <<<"${1# }") <(tr -s ' ' '\n' <<<"${2# }") |
    awk '{ if ($1 > 0 && $2 > 0) printf "%s ", $1 / $2; else printf "- " }'
}
# rfig RATIOS...: the median of the rounds' ratios and " [min-max]" when there are 2 or more,
# 2 decimals; "-" when a round has none.
rfig() {
  [[ " $* " == *" - "* ]] && { echo -; return; }
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.2f", m; if (NR > 1) printf " [%.2f-%.2f]", v[1], v[NR] }'
}
# goal NAME LIMIT RATIOS...: "NAME <= LIMIT met (max M)" when the largest of the rounds'
# ratios, as printed (2 decimals), is at or under LIMIT, else "not met".
goal() {
  local name=$1 limit=$2
  shift 2
  [[ " $* " == *" - "* ]] && { echo "$name <= $limit not judged (a run under 0.01 s)"; return; }
  printf '%s\n' "$@" | sort -g | tail -1 | awk -v n="$name" -v l="$limit" '{
    m = sprintf("%.2f", $1); printf "%s <= %s %s (max %s)", n, l, (m + 0 <= l + 0) ? "met" : "not met", m }'
}

# The encodings of MODEL for SPIN: "as.pi" (MODEL.pml), "shared" (MODEL.shared.pml) and
# "user" (MODEL.user.pml), the one a SPIN user writes last.
encodings() {
  [ -f "bench/check/$1.pml" ] && echo as.pi
  [ -f "bench/check/$1.shared.pml" ] && echo shared
  [ -f "bench/check/$1.user.pml" ] && echo user
  true
}

# Compiles pan for one encoding into $work/bfs.ENCODING and $work/dfs.ENCODING: SPIN's -D arguments, then the file.
compile() {
  local opt=-o3 file=bench/check/$2.pml
  [ "$3" = as.pi ] || { opt=; file=bench/check/$2.$3.pml; }
  # pan prints its nominal states as %8g (4782970 for 4782968): print them whole instead.
  # shellcheck disable=SC2086
  (cd "$work" && spin $opt $1 -a "$OLDPWD/$file" >/dev/null &&
    sed -i 's/%8g nominal states/%8.0f nominal states/' pan.c &&
    gcc -O2 -DSAFETY -DNOREDUCE -DBFS -o "bfs.$3" pan.c && gcc -O2 -DSAFETY -DNOREDUCE -o "dfs.$3" pan.c)
}

# pan prints large counts as 4.78297e+06: read them back as integers.
count() { grep -oE "[0-9.e+]+ $1" "$work/out" | head -1 | cut -d' ' -f1 | awk '{ printf "%.0f", $1 }'; }

# One run of a round. bfs:ENC and dfs:ENC run pan (the depth-first run's depth limit is the
# states its breadth-first run stored: a depth-first path visits each of them, rendezvous
# included, at most once), a1 and a2 agentpi on 1 and 2 threads; each appends its figures to
# the row's lists, so that the Nth entry of every list is round N's.
step() {
  local cpu kib wall status
  case $1 in
  bfs:*)
    read -r _ cpu kib _ < <(cd "$work" && measure "./bfs.${1#*:}" $pan_e -m100000000)
    bt[${1#*:}]+=" $cpu"; bm[${1#*:}]+=" $kib"
    bs[${1#*:}]=$(count 'nominal states')
    stored[${1#*:}]=$(count 'states, stored')
    [ -n "${bs[${1#*:}]}" ] || bs[${1#*:}]=${stored[${1#*:}]} ;;
  dfs:*)
    read -r _ cpu kib _ < <(cd "$work" && measure "./dfs.${1#*:}" $pan_e -m"$((stored[${1#*:}] + 10))")
    dt[${1#*:}]+=" $cpu"; dm[${1#*:}]+=" $kib"
    ds[${1#*:}]=$(count 'states, stored')
    errs[${1#*:}]=$(grep -o 'errors: [0-9]*' "$work/out" | cut -d' ' -f2) ;;
  a1 | a2)
    read -r wall cpu kib status < <(measure "$AGENTPI" check "bench/check/$model.pi" "${aargs[@]}" \
      --threads "${1#a}" --max-states 100000000)
    a_states=$(grep -o '[0-9,]* states' "$work/out" | head -1 | tr -d , | cut -d' ' -f1)
    a_status=$status
    if [ "$1" = a1 ]; then
      a1+=" $cpu"; m1+=" $kib"
    else
      w2+=" $wall"; c2+=" $cpu"; m2+=" $kib"
    fi ;;
  esac
  [ -z "${RUNS:-}" ] || echo "$model $label round $round $1: $(tail -1 "$work/time")" >&2
}

if [ "$reps" -ge 3 ]; then
  echo "Seconds and MiB: the median of $reps runs, seconds followed by [min-max] of the runs (rows run fewer times: the best). Ratios: the median of the $reps rounds' ratios [min-max] (SPIN and agentpi interleaved in each round; a row run once: its one ratio)."
elif [ "$reps" = 2 ]; then
  echo "Seconds and MiB: the best of 2 runs. Ratios: the mean of the 2 rounds' ratios [min-max] (SPIN and agentpi interleaved in each round; a row run once: its one ratio)."
else
  echo "Seconds, MiB and ratios: one run of each side."
fi
echo
echo "| model | N | encoding | states | SPIN BFS s | SPIN BFS MiB | SPIN DFS s | SPIN DFS MiB | agentpi 1 thr s | agentpi 2 thr s wall (CPU) | agentpi MiB 1 / 2 thr | 1 thr / BFS | 2 thr / BFS | 1 thr / DFS | memory / BFS | verdicts agentpi / SPIN |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for row in "${rows[@]}"; do
  IFS='|' read -r model label adefs sdefs cap encs <<<"$row"
  if [ ${#wanted[@]} -gt 0 ] && [[ " ${wanted[*]} " != *" $model "* ]] &&
    [[ " ${wanted[*]} " != *" $model:${label// /,} "* ]]; then continue; fi
  # shellcheck disable=SC2206
  aargs=($adefs)
  [ "$sdefs" = - ] && encs=
  [ "$sdefs" = - ] || [ -n "$encs" ] || encs=$(encodings "$model" | tr '\n' ' ')
  n=$reps
  [ -n "$cap" ] && [ "$cap" -lt "$n" ] && n=$cap
  pan_e=
  [ "$model" = philosophers ] && pan_e=-E
  declare -A bt=() bm=() dt=() dm=() bs=() ds=() errs=() stored=()
  a1=; m1=; w2=; c2=; m2=; a_states=; a_status=
  for enc in $encs; do compile "$sdefs" "$model" "$enc"; done
  # A round: SPIN BFS on each encoding (the goals' last), agentpi on 1 and 2 threads, SPIN DFS
  # on each encoding (the goals' first); reversed every other round, a BFS run first.
  order=()
  for enc in $encs; do order+=("bfs:$enc"); done
  order+=(a1 a2)
  for enc in $(tr -s ' ' '\n' <<<"$encs" | tac); do order+=("dfs:$enc"); done
  for round in $(seq "$n"); do
    if ((round % 2)); then
      for s in "${order[@]}"; do step "$s"; done
    else
      for ((i = ${#order[@]} - 1; i >= 0; i--)); do step "${order[i]}"; done
    fi
  done
  # The runs' lists are unquoted on purpose: one argument a run.
  # shellcheck disable=SC2086
  {
    a1s=$(sec $a1)$(spread $a1)
    twos="$(sec $w2)$(spread $w2) ($(sec $c2))"; mems="$(mib "$(fig $m1)") / $(mib "$(fig $m2)")"
  }
  if [ -z "$encs" ]; then
    echo "| $model | $label | - | $a_states | - | - | - | - | $a1s | $twos | $mems | - | - | - | - | exit $a_status / - |"
    continue
  fi
  for enc in $encs; do
    states=$a_states
    if [ "${bs[$enc]}" != "$a_states" ] || [ "${ds[$enc]}" != "$a_states" ]; then
      states="MISMATCH agentpi $a_states, SPIN BFS ${bs[$enc]}, DFS ${ds[$enc]}"
      mismatch=1
    fi
    differs=$([ "$states" = "$a_states" ] || echo 1)
    r1=$(per_round "$a1" "${bt[$enc]}"); r2=$(per_round "$w2" "${bt[$enc]}")
    r3=$(per_round "$a1" "${dt[$enc]}"); rmem=$(per_round "$m2" "${bm[$enc]}")
    # shellcheck disable=SC2086
    {
      bts=$(sec ${bt[$enc]})$(spread ${bt[$enc]}); bmf=$(fig ${bm[$enc]})
      dts=$(sec ${dt[$enc]})$(spread ${dt[$enc]}); dmf=$(fig ${dm[$enc]})
      ratios="$(rfig $r1) | $(rfig $r2) | $(rfig $r3) | $(rfig $rmem)"
      judged="$(goal "1 thr / BFS" 1 $r1); $(goal "2 thr / BFS" 0.5 $r2); $(goal "memory / BFS" 0.5 $rmem)"
    }
    # Times of different state spaces are not compared: no goal is judged on such a row.
    [ -z "$differs" ] || judged="not judged: the state counts differ"
    # The DFS pan stops at the first error; the states of a run with errors are not compared.
    echo "| $model | $label | $enc | $states | $bts | $(mib "$bmf") | $dts | $(mib "$dmf") | $a1s | $twos | $mems | $ratios | exit $a_status / errors ${errs[$enc]} |"
  done
  # The goals are judged on the last encoding, the one a SPIN user writes.
  rounds="$n rounds"
  [ "$n" -gt 1 ] || rounds="one round"
  goals+=("- $model $label ($enc, $rounds): $judged")
  unset bt bm dt dm bs ds errs stored
done
if [ ${#goals[@]} -gt 0 ]; then
  echo
  echo "Goals on the encoding a SPIN user writes, each met only when every round's ratio is at or under it:"
  printf '%s\n' "${goals[@]}"
fi
if [ "$mismatch" = 1 ]; then
  echo "state counts differ between agentpi and SPIN (MISMATCH rows above)" >&2
  exit 1
fi
