#!/usr/bin/env bash
# Measures the checker on bench/check/rpc.pi (154,648 states, 678,000 transitions): wall time
# and peak memory for 1 and 2 threads, and instruction counts of a smaller instance under
# callgrind (repeatable on a loaded machine). Usage: bash bench/check/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -p agentpi --quiet
bin=${CARGO_TARGET_DIR:-target}/release/agentpi
for threads in 1 2; do
  /usr/bin/time -f "threads $threads: %e s wall, %M KiB peak" \
    "$bin" check bench/check/rpc.pi --property 1 --threads "$threads" >/dev/null
done
if command -v valgrind >/dev/null; then
  small=$(mktemp --suffix .pi)
  sed 's/Client(0, 3) | Client(1, 3) | Client(2, 3) | Client(3, 3)/Client(0, 3) | Client(1, 3) | Client(2, 2)/' \
    bench/check/rpc.pi >"$small"
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" check "$small" --property 1 --threads 1 2>&1 \
    | grep -E "refs" | sed 's/^==[0-9]*==/callgrind, 5,074 states:/'
  rm -f "$small"
fi
