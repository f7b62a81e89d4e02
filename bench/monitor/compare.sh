#!/usr/bin/env bash
# Whether two builds' checkers find the same (issue 35: a faster checker must report exactly
# what the old one did): every trace of the repository (each `.jsonl` under crates/, tests/
# and fuzz/, the ones that are no trace included: both must fail alike) and generated ones
# (floods, floods with odd events, the flat scan's edges in both eras) through the old and the
# new `agentpi trace check`, in JSON and text: stdout, stderr and exit status compared byte for
# byte. Usage: BEFORE=DIR bash bench/monitor/compare.sh (DIR holds the old build's agentpi;
# the new one is target/release/agentpi, or AFTER=DIR's agentpi: a copy that a build going on
# meanwhile does not replace).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
before="${BEFORE:?set BEFORE to a directory holding the old agentpi}/agentpi"
after="${AFTER:-$root/target/release}/agentpi"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$here/flood_trace.py" 20000 20000 > "$work/flood_20000_20000.jsonl"
python3 "$here/flood_trace.py" 3000 1200 > "$work/flood_3000_1200.jsonl"
python3 "$here/flood_trace.py" 3000 1 > "$work/flood_3000_1.jsonl"
python3 "$here/mutate_trace.py" "$work/flood_3000_1200.jsonl" 1 > "$work/odd_3000_1200.jsonl"
python3 "$here/mutate_trace.py" "$work/flood_3000_1.jsonl" 2 > "$work/odd_3000_1.jsonl"
python3 "$here/edges_trace.py" legacy > "$work/edges_legacy.jsonl"
python3 "$here/edges_trace.py" modern > "$work/edges_modern.jsonl"
cd "$root"
traces() {
    find crates tests fuzz -name '*.jsonl' -not -path '*/node_modules/*' -not -path '*/.venv*' | sort
    ls "$work"/*.jsonl
}
mapfile -t files < <(traces)
same=0
differ=0
for f in "${files[@]}"; do
    for format in json text; do
        b=$("$before" trace check --format "$format" "$f" 2>"$work/before.err"); bs=$?
        a=$("$after" trace check --format "$format" "$f" 2>"$work/after.err"); as=$?
        if [[ $a == "$b" && $as == "$bs" ]] && cmp -s "$work/after.err" "$work/before.err"; then
            same=$((same + 1))
        else
            differ=$((differ + 1))
            echo "differ: $format $f (exit $bs before, $as after)"
        fi
    done
done
echo "${#files[@]} traces, $same checks the same, $differ different"
[[ $differ == 0 ]]
