#!/usr/bin/env bash
# SPIN's verdicts and state counts on the pairs of crates/check/tests/spin/ (NAME.pi and
# NAME.pml, the same model written for agentpi and for SPIN), recorded in
# crates/check/tests/oracle/spin.txt, which crates/check/tests/spin_oracle.rs holds agentpi to
# (docs/oracles.md says what each pair means and how the runs are read).
#
# Usage: bash scripts/spin-oracle.sh           rewrite the recorded file
#        bash scripts/spin-oracle.sh --check   re-derive it and fail if it differs (CI)
# Needs spin (`apt install spin`) and gcc; without spin, --check says it skipped and exits 0.
#
# Each `//~ spin KIND ...` annotation of a NAME.pi is one SPIN run of NAME.pml:
#   //~ spin space                  the state space: pan -E -A, `last` never written
#   check S: deadlock free     //~ spin deadlock        invalid end states: pan -A
#   //~ spin assertions             the implicit check `assertions`: pan -E
#   check S: never P           //~ spin claim NAME      the claim `ltl NAME { [] !... }`, run
#   check S: reachable P       //~ spin claim NAME      for safety (reachable: its violation)
#   check S: PROPERTY          //~ spin ltl NAME [fair] pan -a -N NAME, with -f when fair
# (`; FIXME agentpi says VERDICT` after one marks a known disagreement, for the test alone.)
# The first three use a verifier built with -DNOLAST -DSAFETY -DNOCLAIM (no `last`: the state
# space as agentpi counts it), the others one built with -DSTUTTER (actions.h, stutter.h). Both
# are compiled with -DNOREDUCE (no partial-order reduction: the whole state space, whose size
# is recorded) from `spin -o2 -o3` (keep write-only variables such as `last`; one Promela
# statement a step, no merging).
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=crates/check/tests/spin
recorded=crates/check/tests/oracle/spin.txt
mode=${1:-write}
case $mode in write | --check) ;; *) echo "usage: $0 [--check]" >&2; exit 2 ;; esac
if ! command -v spin >/dev/null; then
  if [ "$mode" = --check ]; then
    echo "spin-oracle: spin is not installed: re-derivation skipped ($recorded is what the tests check)"
    exit 0
  fi
  echo "spin-oracle: spin is not installed (apt install spin)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$PWD

die() { echo "spin-oracle: $*" >&2; exit 1; }

# Builds NAME.pml's verifier of one flavour (safety or ltl) in its own folder, once.
build() {
  local name=$1 flavour=$2 dir="$work/$1.$2"
  [ -x "$dir/pan" ] && return
  mkdir -p "$dir"
  local defs=(-DNOLAST) cflags=(-DSAFETY -DNOCLAIM)
  if [ "$flavour" = ltl ]; then defs=(-DSTUTTER); cflags=(-DNFAIR=4); fi
  (cd "$dir" && spin -o2 -o3 "${defs[@]}" -a "$root/$pairs/$name.pml" >spin.out 2>&1 &&
    gcc -O0 -DNOREDUCE "${cflags[@]}" -o pan pan.c >gcc.out 2>&1) ||
    die "$name.pml: the $flavour verifier does not build: $(cat "$dir"/*.out)"
}

# Runs a verifier; prints "ERRORS STATES" and leaves pan's output in $dir/run.out. A search
# that is not exhaustive (depth bound hit, memory) is an error, never a verdict.
run() {
  local dir=$1; shift
  (cd "$dir" && ./pan -m100000 -w18 "$@" >run.out 2>&1) || true
  grep -q 'Full statespace search' "$dir/run.out" || die "$dir: pan $*: $(cat "$dir/run.out")"
  ! grep -qE 'max search depth too small|out of memory|hash-compact|bitstate' "$dir/run.out" ||
    die "$dir: pan $*: search not exhaustive"
  local errors states
  errors=$(grep -oE 'errors: [0-9]+' "$dir/run.out" | cut -d' ' -f2)
  states=$(grep -oE '[0-9.e+]+ states, stored' "$dir/run.out" | cut -d' ' -f1 |
    awk '{ printf "%.0f", $1 }')
  echo "$errors $states"
}

# The first error pan reported ("invalid end state", "assertion violated ...", ...).
first_error() { grep -m1 -oE '^pan:1: .*' "$1/run.out" | sed -E 's/^pan:1: //; s/ \(at depth [0-9]+\)$//'; }

# One annotation: prints its line of the recorded file.
record() {
  local name=$1 system=$2 property=$3 kind=$4 claim=$5 fair=$6 dir result errors states flags verdict
  case $kind in
    space | deadlock | assertions) build "$name" safety; dir="$work/$name.safety" ;;
    claim | ltl) build "$name" ltl; dir="$work/$name.ltl" ;;
    *) die "$name.pi: unknown annotation kind '$kind'" ;;
  esac
  case $kind in
    space) flags=(-E -A) ;;
    deadlock) flags=(-A) ;;
    assertions) flags=(-E) ;;
    claim) flags=(-N "$claim") ;;
    ltl) flags=(-a -N "$claim"); [ "$fair" = fair ] && flags+=(-f) ;;
  esac
  result=$(run "$dir" "${flags[@]}")
  read -r errors states <<<"$result"
  if [ "$kind" = space ]; then
    [ "$errors" = 0 ] || die "$name: pan ${flags[*]} reported an error"
    echo "$name.pi $system: state space => $states states (pan ${flags[*]})"
    return
  fi
  local error=
  [ "$errors" = 0 ] || error=$(first_error "$dir")
  case $kind in
    deadlock) expect='^invalid end state' ;;
    assertions) expect='^assertion violated' ;;
    claim) expect='^assertion violated .*last' ;;
    ltl) expect='^(acceptance cycle|assertion violated .*last)' ;;
  esac
  [ -z "$error" ] || [[ $error =~ $expect ]] ||
    die "$name.pi: $property: pan ${flags[*]} found another error: $error"
  verdict=holds
  [ "$errors" = 0 ] || verdict=violated
  # `reachable P` holds exactly when the claim `[] !P` is violated.
  if [ "$kind" = claim ] && [[ $property == reachable* ]]; then
    [ "$verdict" = holds ] && verdict=violated || verdict=holds
  fi
  echo "$name.pi $system: $property => $verdict, $states states (pan ${flags[*]})"
}

# Every annotation of NAME.pi, in file order: "KIND|CLAIM|FAIR|PROPERTY" lines.
annotations() {
  sed -nE 's/^[[:space:]]*(check[[:space:]]+[A-Za-z0-9_]+:(.*))?\/\/~[[:space:]]*spin[[:space:]]+(.*)$/\3|\2/p' "$1" |
    while IFS='|' read -r spec property; do
      # What follows `;` is for the test (a FIXME: agentpi's verdict while it is wrong).
      read -r kind claim fair <<<"${spec%%;*}"
      property=$(echo "$property" | tr -s ' \t' '  ' | sed -E 's/^ //; s/ $//')
      [ "$kind" = assertions ] && property=assertions
      echo "$kind|${claim:-}|${fair:-}|$property"
    done
}

# All of one pair's lines, into $work/NAME.txt.
pair() {
  local name=$1 system
  system=$(grep -oE '^system[[:space:]]+[A-Z][A-Za-z0-9_]*' "$pairs/$name.pi" | awk '{ print $2 }')
  [ "$(echo "$system" | wc -l)" = 1 ] && [ -n "$system" ] || die "$name.pi: one system per pair"
  [ -f "$pairs/$name.pml" ] || die "$name.pi has no twin $name.pml"
  annotations "$pairs/$name.pi" | while IFS='|' read -r kind claim fair property; do
    record "$name" "$system" "$property" "$kind" "$claim" "$fair"
  done >"$work/$name.txt"
}

names=()
for pi in "$pairs"/*.pi; do names+=("$(basename "$pi" .pi)"); done
start=$(date +%s%N)
# Two pairs at a time (gcc is most of the time); the file is put together in name order.
pids=()
for name in "${names[@]}"; do
  pair "$name" &
  pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
for name in "${names[@]}"; do [ -s "$work/$name.txt" ] || die "$name: no line recorded"; done
{
  echo "# $(spin -V | sed -E 's/ -- .*//') on the pairs of $pairs/ (NAME.pi for agentpi, NAME.pml for SPIN)."
  echo "# Written by \`bash scripts/spin-oracle.sh\`; do not edit. FILE SYSTEM: PROPERTY => SPIN's verdict,"
  echo "# the states pan stored (pan's flags); docs/oracles.md says how each run is read."
  for name in "${names[@]}"; do cat "$work/$name.txt"; done
} >"$work/spin.txt"
seconds=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
lines=$(grep -vc '^#' "$work/spin.txt")
if [ "$mode" = --check ]; then
  diff -u "$recorded" "$work/spin.txt" ||
    die "$recorded differs from what SPIN says now (above); rerun bash scripts/spin-oracle.sh"
  echo "spin-oracle: $recorded re-derived from SPIN, $lines lines, the same ($seconds s)"
else
  mkdir -p "$(dirname "$recorded")"
  cp "$work/spin.txt" "$recorded"
  echo "spin-oracle: wrote $recorded, $lines lines ($seconds s)"
fi
