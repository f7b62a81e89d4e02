#!/usr/bin/env bash
# The distributed search against the single process, on this machine: philosophers at each
# size of SIZES (default 13) with `Fixed: deadlock free` (it holds: the whole state space),
# once on one process (`--threads 1`) and once on a cluster of P processes on loopback for
# each P of PROCS (default "1 2 4"), one worker each. For each run: wall time, user CPU and
# peak RSS of every process (`/usr/bin/time -v`), the bytes sent between processes per
# state, and whether the cluster printed exactly what the single process printed. Then a
# state space that does not fit one process under `--max-memory` but fits four: philosophers
# at MAXMEM_N (default 11) under `--max-memory MAXMEM` (MiB, default 12), on one process (the
# single-process engine and a cluster of one: `unknown`) and on four (decided, and the
# same output as the single process without the bound). See docs/distributed.md.
#
#   bench/check/cluster.sh
#   SIZES="13 14" PROCS="2 4" bench/check/cluster.sh
#   SIZES= MAXMEM_N=12 MAXMEM=40 bench/check/cluster.sh    # the --max-memory part alone
#
# AGENTPI names the binary (default target/debug/agentpi: the dev profile is optimized).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
export AGENTPI=${AGENTPI:-$root/target/debug/agentpi}
property="Fixed: deadlock free"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "wall user rss" of a `/usr/bin/time -v` report: seconds, seconds, MiB.
measured() {
    awk -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = t[n] + 60 * t[n-1] + (n > 2 ? 3600 * t[1] : 0) }
        /User time/ { user = $2 }
        /Maximum resident set size/ { rss = $2 / 1024 }
        END { printf "%.1f s, %.1f s, %.0f MiB", wall, user, rss }' "$1"
}

for n in ${SIZES-13}; do
    args=(philosophers -D "N=$n" --property "$property")
    /usr/bin/time -v -o "$work/single.time" "$AGENTPI" check "${args[@]}" --threads 1 2> /dev/null \
        > "$work/single.out" || true
    states=$(grep -o '[0-9][0-9,]* states' "$work/single.out" | head -1 | tr -d ', states')
    echo "philosophers N=$n, $property: $states states"
    echo "  single process (--threads 1): wall, user CPU, peak RSS: $(measured "$work/single.time")"
    for p in ${PROCS:-1 2 4}; do
        dir="$work/cluster.$p"
        CLUSTER_TIME=$dir AGENTPI_CLUSTER_STATS=1 "$root/scripts/cluster-local.sh" "$p" \
            "${args[@]}" > "$work/cluster.out" 2> /dev/null || true
        same=differs
        if cmp -s "$work/single.out" "$work/cluster.out"; then same=same; fi
        sent=$(cat "$dir"/err.* | awk '/cluster stats:/ { s += $5 } END { printf "%.0f", s }')
        echo "  $p processes: output $same as the single process; $((sent / states)) bytes sent between processes per state"
        for ((i = 0; i < p; i++)); do
            echo "    process $i: wall, user CPU, peak RSS: $(measured "$dir/time.$i")"
        done
    done
done

# The one line of a report that says the verdict and the counts.
verdict() { grep -m1 ' \.\.\. ' "$1" || echo "(no verdict: $(head -c 200 "$1"))"; }

n=${MAXMEM_N:-11}
mib=${MAXMEM:-12}
args=(philosophers -D "N=$n" --property "$property")
echo "philosophers N=$n, $property, under --max-memory $mib (MiB a process):"
"$AGENTPI" check "${args[@]}" --threads 1 > "$work/unbounded.out" 2> /dev/null || true
echo "  single process, no bound:  $(verdict "$work/unbounded.out")"
"$AGENTPI" check "${args[@]}" --threads 1 --max-memory "$mib" > "$work/bounded.out" 2> /dev/null || true
echo "  single process:            $(verdict "$work/bounded.out")"
for p in 1 4; do
    dir="$work/bounded.$p"
    CLUSTER_TIME=$dir "$root/scripts/cluster-local.sh" "$p" "${args[@]}" --max-memory "$mib" \
        > "$work/cluster.out" 2> /dev/null || true
    same="differs from"
    if cmp -s "$work/unbounded.out" "$work/cluster.out"; then same="same as"; fi
    echo "  $p processes:               $(verdict "$work/cluster.out") (output $same the unbounded single process's)"
    for ((i = 0; i < p; i++)); do
        echo "    process $i: wall, user CPU, peak RSS: $(measured "$dir/time.$i")"
    done
done
