#!/usr/bin/env bash
# The tables of docs/check.md's "Partial-order reduction" and "Symmetry reduction" sections,
# in one run: states stored by `agentpi check` with and without --por (and SPIN 6.5.2's own
# partial-order reduction on the same Promela model: `gcc -O2 -DSAFETY`, depth first, with
# -DNOREDUCE for the full count), and with and without --symmetry on bench/check/clients.pi;
# wall seconds of each agentpi run. SPIN runs with -E (invalid end states, the deadlock of
# the bench philosophers, do not stop its search: it would count only what it saw before).
# Usage: bash bench/check/reductions.sh   (AGENTPI=path uses that binary instead of building
# one; SPIN's columns need `spin` and `gcc`: `apt install spin`, else they print `-`).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${AGENTPI:-}" ]; then
  cargo build --release -p agentpi --quiet
  AGENTPI=$PWD/${CARGO_TARGET_DIR:-target}/release/agentpi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# agentpi's states and seconds: "STATES SECONDS".
agentpi_run() {
  "$AGENTPI" check "$@" >"$work/out" 2>"$work/err" || true
  local states secs
  states=$(grep -o '[0-9]* states' "$work/err" | head -1 | cut -d' ' -f1)
  secs=$(grep -o 'in [0-9.]* s' "$work/err" | head -1 | cut -d' ' -f2)
  echo "$states $secs"
}

# SPIN's stored states with its reduction, or without it (`-DNOREDUCE`).
spin_states() {
  local model=$1 defs=$2 flags=$3
  command -v spin >/dev/null || { echo -; return; }
  # shellcheck disable=SC2086
  (cd "$work" && spin -o3 $defs -a "$OLDPWD/bench/check/$model.pml" >/dev/null &&
    gcc -O2 -DSAFETY $flags -o pan pan.c && ./pan -m10000000 -E >"$work/pan.out" 2>&1) || true
  grep -oE '[0-9.e+]+ states, stored' "$work/pan.out" | cut -d' ' -f1 | awk '{ printf "%.0f", $1 }'
}

echo "| model | full | agentpi --por | SPIN reduced | agentpi s full / --por |"
echo "| --- | ---: | ---: | ---: | --- |"
for row in "lcr|-D N=8|-DN=8" "filter|-D N=3 -D L=4|-DN=3 -DL=4" "abp|-D N=400|-DN=400" \
  "philosophers|-D N=10|-DN=10"; do
  IFS='|' read -r model adefs sdefs <<<"$row"
  # shellcheck disable=SC2206
  args=($adefs)
  read -r full tfull < <(agentpi_run "bench/check/$model.pi" "${args[@]}")
  read -r por tpor < <(agentpi_run "bench/check/$model.pi" "${args[@]}" --por)
  spin=$(spin_states "$model" "$sdefs" "")
  echo "| $model $adefs | $full | $por | ${spin:--} | $tfull / $tpor |"
done
echo
echo "| clients N | states | --symmetry | s | s with --symmetry |"
echo "| ---: | ---: | ---: | ---: | ---: |"
for n in 6 8 10; do
  read -r full tfull < <(agentpi_run bench/check/clients.pi -D "N=$n")
  read -r sym tsym < <(agentpi_run bench/check/clients.pi -D "N=$n" --symmetry)
  echo "| $n | $full | $sym | $tfull | $tsym |"
done
