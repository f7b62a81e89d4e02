#!/usr/bin/env bash
# agentpi against SPIN 6.5.2's compiled verifier on the same model, in one run: dining
# philosophers on free channels (bench/check/philosophers.{pi,pml}, both exactly 3^N - 1
# states), whole state space, one safety property. Prints time and peak memory of each and
# the ratios agentpi / SPIN, for agentpi with 1 and 2 threads.
# Usage: bash bench/check/spin.sh [N...]   (default: 8 10 12; needs `spin` and `gcc`:
# `apt install spin`). SPIN runs as issue 14 measured it: pan -DSAFETY -DNOREDUCE -DBFS.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v spin >/dev/null || { echo "spin is not installed (apt install spin)" >&2; exit 2; }
cargo build --release -p agentpi --quiet
bin=$PWD/${CARGO_TARGET_DIR:-target}/release/agentpi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8 10 12)

# Runs a command under /usr/bin/time; prints "seconds KiB" and keeps its stdout in $work/out.
measure() {
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>&1 || true
  cat "$work/time"
}

spin_run() {
  local n=$1
  (cd "$work" && spin -DN="$n" -a "$OLDPWD/bench/check/philosophers.pml" >/dev/null &&
    gcc -O2 -DSAFETY -DNOREDUCE -DBFS -o pan pan.c 2>/dev/null)
  read -r secs kib < <(cd "$work" && measure ./pan -m10000000)
  states=$(grep -o '[0-9]* nominal states' "$work/out" | cut -d' ' -f1)
  echo "$secs $kib $states"
}

agentpi_run() {
  local n=$1 threads=$2
  read -r secs kib < <(measure "$bin" check bench/check/philosophers.pi -D N="$n" \
    --threads "$threads" --max-states 100000000)
  states=$(grep -o '[0-9,]* states' "$work/out" | head -1 | tr -d , | cut -d' ' -f1)
  echo "$secs $kib $states"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

printf '%-4s %-10s %10s %10s %10s %8s %8s\n' N tool states seconds "peak MiB" "t ratio" "m ratio"
for n in "${sizes[@]}"; do
  read -r s_secs s_kib s_states < <(spin_run "$n")
  printf '%-4s %-10s %10s %10s %10d %8s %8s\n' "$n" spin "$s_states" "$s_secs" $((s_kib / 1024)) 1.00 1.00
  for threads in 1 2; do
    read -r a_secs a_kib a_states < <(agentpi_run "$n" "$threads")
    printf '%-4s %-10s %10s %10s %10d %8s %8s\n' "$n" "agentpi/$threads" "$a_states" "$a_secs" \
      $((a_kib / 1024)) "$(ratio "$a_secs" "$s_secs")" "$(ratio "$a_kib" "$s_kib")"
  done
done
