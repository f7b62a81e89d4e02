#!/usr/bin/env bash
# bench/lts/order.sh: writes crates/cli/minimize.order, the functions of the agentpi binary
# that a short `agentpi minimize` runs, which the linker then places side by side
# (crates/cli/build.rs; docs/minimize.md, *Start-up memory*).
#
#   bench/lts/order.sh            # after `cargo build --release -p agentpi`
#   bench/lts/order.sh --check    # whether every name in the file is defined in the binary
#
# A run maps the binary's code in blocks of 64 KB or more around each page it executes (the
# kernel's fault-around, and whole large folios of the page cache): scattered over the 20 MB
# of code, the 200 KB a short run executes cost 2 MB of memory. Each input below is reduced
# under valgrind's callgrind modulo strong and branching bisimulation (`--equiv`), and every
# function it names that the binary defines goes in the file. Names carry a hash of their
# crate's version and compiler: rerun this after a new compiler or dependency (names that are
# no longer defined are skipped by the linker, so a stale list costs memory, never a wrong
# build). AGENTPI=PATH profiles another build.
#
# --check profiles nothing: it lists the names of the file that the binary does not define and
# fails if there is one (bench/lts/run.sh runs it on the binary it measures). Functions of a
# crate compiled in several codegen units may carry a `.llvm.<hash>` suffix that changes with
# any edit of that crate, so a list goes stale without a new compiler too.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN="${AGENTPI:-$ROOT/target/release/agentpi}"
VLTS="${VLTS:-$ROOT/../shared/data/vlts}"
OUT="$ROOT/crates/cli/minimize.order"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The binary's functions, by the names the linker matches the file's against.
nm --defined-only "$BIN" | awk '$2 ~ /^[tTwW]$/ {print $3}' | sort -u >"$TMP/defined"

if [[ "${1:-}" == "--check" ]]; then
    grep -v '^#' "$OUT" | sort -u | comm -23 - "$TMP/defined" >"$TMP/missing"
    missing=$(wc -l <"$TMP/missing")
    if ((missing > 0)); then
        echo "$OUT: $missing of $(grep -vc '^#' "$OUT") names are not defined in $BIN" \
            "(a stale list: rerun bench/lts/order.sh after a release build):" >&2
        sed 's/^/  /' "$TMP/missing" >&2
        exit 1
    fi
    echo "$OUT: all $(grep -vc '^#' "$OUT") names defined in $BIN"
    exit 0
fi

# Small inputs: state spaces of bundled models, the VLTS graphs under 3·10^4 transitions
# (those above 10^4 reach functions the smallest do not: contracting `tau`-cycles, more
# splitting).
"$BIN" lts banking:TwoAgents -o "$TMP/banking.aut" >/dev/null
"$BIN" lts orchestration:Pipeline -o "$TMP/orchestration.aut" >/dev/null
INPUTS=("$TMP/banking.aut" "$TMP/orchestration.aut")
for f in "$VLTS"/{vasy_0_1,vasy_1_4,cwi_1_2,vasy_5_9,cwi_3_14,vasy_8_24}.aut; do
    [[ -f "$f" ]] && INPUTS+=("$f")
done

for f in "${INPUTS[@]}"; do
    for eq in strong branching; do
        valgrind --tool=callgrind --demangle=no --callgrind-out-file="$TMP/cg.$eq.$(basename "$f")" \
            "$BIN" minimize "$f" --equiv "$eq" --no-time >/dev/null 2>&1
    done
done

# Functions by the order callgrind first names them, kept if the binary defines them.
sed -n 's/^c\{0,1\}fn=([0-9]*) //p' "$TMP"/cg.* | awk '!seen[$0]++' >"$TMP/named"
{
    echo "# The functions a short \`agentpi minimize\` runs, placed side by side by the linker"
    echo "# (crates/cli/build.rs). Written by bench/lts/order.sh: rerun it after a new compiler."
    awk 'NR == FNR {defined[$0] = 1; next} defined[$0]' "$TMP/defined" "$TMP/named"
} >"$OUT"
echo "$(grep -vc '^#' "$OUT") functions written to $OUT"
