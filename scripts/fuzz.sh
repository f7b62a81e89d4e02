#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader of outside input with AFL++ (docs/fuzzing.md). The
# targets are the binaries of fuzz/ (a crate outside the main workspace); `cargo afl` comes
# from `cargo install cargo-afl --version 0.18.2 --locked`, which also builds AFL++ itself.
#
#   scripts/fuzz.sh build                      build the instrumented targets (as `long` runs them)
#   scripts/fuzz.sh smoke [SECONDS]            each target SECONDS (default 20), two at a time;
#                                              fails on any crash or hang (CI runs this)
#   scripts/fuzz.sh long [SECONDS] [TARGET..]  the longer run (default 600 s a target), two
#                                              at a time; findings kept for triage
#   scripts/fuzz.sh replay TARGET PATH...      a plain build of TARGET run on files (or every
#                                              file of folders), with a backtrace on a panic
#   scripts/fuzz.sh tmin TARGET CRASH OUT      minimise a crashing input (afl-tmin)
#   scripts/fuzz.sh stats [smoke|long]         the table of the last run
#
# Output goes to target/fuzz-out/{smoke,long}/TARGET (AFL's own layout: default/crashes,
# default/hangs, default/queue, default/fuzzer_stats).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(pi aut trace stdio sse http_head run_config lint_config sgd_schema)
MANIFEST=fuzz/Cargo.toml
AFL_TARGET_DIR=target/fuzz-afl
# The smoke run's build: optimised less, as it compiles every dependency instrumented with one
# codegen unit each, and a 20 s run gains less from speed than it pays in compile time
# (opt-level 1: 6.6 min of CPU against 10.8 at AFL's default 3).
SMOKE_TARGET_DIR=target/fuzz-afl-smoke
SMOKE_OPT_LEVEL=1
PLAIN_TARGET_DIR=target/fuzz-plain
OUT=target/fuzz-out
# An input that takes longer than this is a hang (ms): generous, as the machine is shared.
EXEC_TIMEOUT=5000
# The memory a target may map (MB): a small input that asks for more is a bug, and an
# unbounded allocation must not take the machine down.
MEM_LIMIT=2048

# AFL++'s checks of the machine that do not apply to a short run in a container: the CPU
# governor, where core dumps go, and binding to a free core (other jobs share the cores).
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1
export AFL_NO_UI=1 AFL_QUIET=1

need_cargo_afl() {
    if ! cargo afl --version >/dev/null 2>&1; then
        echo "fuzz.sh: cargo afl is missing: cargo install cargo-afl --version 0.18.2 --locked" >&2
        exit 2
    fi
    # The fuzz crate is a workspace of its own with its own lock file, which a change of a
    # workspace crate's dependencies leaves behind: say how to bring it up to date.
    if ! cargo metadata --locked --format-version 1 --manifest-path "$MANIFEST" >/dev/null 2>&1; then
        echo "fuzz.sh: fuzz/Cargo.lock is behind the workspace's crates: run" \
            "cargo update --workspace --manifest-path fuzz/Cargo.toml and commit it" >&2
        exit 2
    fi
}

build() {
    need_cargo_afl
    cargo afl build --release --locked --manifest-path "$MANIFEST" --target-dir "$AFL_TARGET_DIR"
}

build_smoke() {
    need_cargo_afl
    # What `fuzz` runs from here on.
    AFL_TARGET_DIR=$SMOKE_TARGET_DIR
    AFL_OPT_LEVEL=$SMOKE_OPT_LEVEL cargo afl build --release --locked --manifest-path "$MANIFEST" \
        --target-dir "$AFL_TARGET_DIR"
}

# fuzz TARGET SECONDS KIND: one AFL++ run from the seed corpus, with the tokens of the input's
# format (fuzz/dict), in a fresh output folder.
fuzz() {
    local target=$1 seconds=$2 kind=$3
    local out="$OUT/$kind/$target"
    rm -rf "$out"
    mkdir -p "$out"
    nice cargo afl fuzz -V "$seconds" -t "$EXEC_TIMEOUT" -m "$MEM_LIMIT" -x "fuzz/dict/$target.dict" \
        -i "fuzz/corpus/$target" -o "$out" -- "$AFL_TARGET_DIR/release/$target" \
        >"$out/afl.log" 2>&1 || {
        echo "fuzz.sh: afl-fuzz failed on $target (log: $out/afl.log):" >&2
        tail -n 20 "$out/afl.log" >&2
        return 1
    }
}

# stat FILE KEY: one value of AFL's fuzzer_stats.
stat() {
    sed -n "s/^$2 *: *//p" "$1"
}

# table KIND: executions, speed, corpus, coverage and findings of each target's last run.
# Returns non-zero when a target found a crash or a hang, or has no statistics.
table() {
    local kind=$1 bad=0
    printf '%-12s %10s %8s %7s %13s %9s %8s %6s\n' target execs exec/s corpus edges bitmap crashes hangs
    for target in "${TARGETS[@]}"; do
        local stats="$OUT/$kind/$target/default/fuzzer_stats"
        if [[ ! -f $stats ]]; then
            printf '%-12s %s\n' "$target" "no statistics (did it run?)"
            bad=1
            continue
        fi
        local crashes hangs
        crashes=$(stat "$stats" saved_crashes)
        hangs=$(stat "$stats" saved_hangs)
        printf '%-12s %10s %8s %7s %13s %9s %8s %6s\n' "$target" \
            "$(stat "$stats" execs_done)" "$(stat "$stats" execs_per_sec)" \
            "$(stat "$stats" corpus_count)" \
            "$(stat "$stats" edges_found)/$(stat "$stats" total_edges)" \
            "$(stat "$stats" bitmap_cvg)" "$crashes" "$hangs"
        if [[ $crashes != 0 || $hangs != 0 ]]; then
            bad=1
        fi
    done
    return $bad
}

# fuzz_all KIND SECONDS TARGET...: the targets two at a time (the machine has two cores).
fuzz_all() {
    local kind=$1 seconds=$2 pids=() failed=0
    shift 2
    for target in "$@"; do
        fuzz "$target" "$seconds" "$kind" &
        pids+=($!)
        if ((${#pids[@]} == 2)); then
            wait "${pids[0]}" || failed=1
            pids=("${pids[1]}")
        fi
    done
    for pid in "${pids[@]}"; do
        wait "$pid" || failed=1
    done
    return $failed
}

smoke() {
    local seconds=${1:-20} failed=0
    build_smoke
    fuzz_all smoke "$seconds" "${TARGETS[@]}" || failed=1
    table smoke || failed=1
    if ((failed)); then
        echo "fuzz.sh: a target crashed or hung (inputs under $OUT/smoke/*/default/{crashes,hangs};" \
            "replay with: scripts/fuzz.sh replay TARGET FILE)" >&2
        return 1
    fi
    echo "fuzz smoke: ${#TARGETS[@]} targets, ${seconds} s each, no crash, no hang"
}

long() {
    local seconds=${1:-600}
    shift || true
    local targets=("$@")
    ((${#targets[@]})) || targets=("${TARGETS[@]}")
    build
    fuzz_all long "$seconds" "${targets[@]}" || true
    table long || true
}

replay() {
    local target=$1
    shift
    cargo build --locked --manifest-path "$MANIFEST" --target-dir "$PLAIN_TARGET_DIR" --bin "$target"
    RUST_BACKTRACE=1 "$PLAIN_TARGET_DIR/debug/$target" "$@"
}

tmin() {
    need_cargo_afl
    cargo afl tmin -t "$EXEC_TIMEOUT" -m "$MEM_LIMIT" -i "$2" -o "$3" -- "$AFL_TARGET_DIR/release/$1"
}

case "${1:-}" in
    build) build ;;
    smoke) smoke "${2:-20}" ;;
    long) shift; long "$@" ;;
    replay) shift; replay "$@" ;;
    tmin) shift; tmin "$@" ;;
    stats) table "${2:-smoke}" ;;
    *)
        sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
        ;;
esac
