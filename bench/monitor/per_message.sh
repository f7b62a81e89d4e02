#!/usr/bin/env bash
# Where a message's instructions go in the checker (issue 35), in steady state: callgrind of
# `agentpi trace check` on a sustained flood (bench/monitor/flood_trace.py N IN_FLIGHT:
# N pings, IN_FLIGHT of them in flight throughout, so that the tables have stopped growing),
# and the inclusive count of each piece of the check divided by the messages checked (a
# ping's or an answer's pieces divided by the messages too: each is half of them). Counts
# are instructions, not time: the same binary and trace give the same numbers on a loaded
# machine. Builds differ by a few percent in pieces whose source did not change (inlining),
# and a piece the compiler inlined into its caller shows only the calls it did not (or none):
# compare whole counts, and pieces only where both builds kept them functions of their own.
# Usage: bench/monitor/per_message.sh [AGENTPI] [N] [IN_FLIGHT] (defaults: the release build,
# 100,000 and 20,000; about 2 min of callgrind).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
agentpi="${1:-$here/../../target/release/agentpi}"
n="${2:-100000}"
flight="${3:-20000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$here/flood_trace.py" "$n" "$flight" > "$work/flood.jsonl"
messages=$(wc -l < "$work/flood.jsonl")
valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$agentpi" trace check \
    --format json "$work/flood.jsonl" > "$work/report.json" 2> "$work/valgrind.err"
echo "$(basename "$agentpi"), flood of $n pings, $flight in flight: $messages messages; report: $(cat "$work/report.json")"
callgrind_annotate --inclusive=yes --threshold=100 "$work/cg" 2> /dev/null |
    python3 -c '
import re, sys
messages = int(sys.argv[1])
pieces = [
    ("the checker (Sessions::feed)", "sessions::Sessions::feed"),
    ("  Session::check", "session::Session::check"),
    ("    a message stepped by its kind (Session::kind_fast)", "session::Session::kind_fast"),
    ("      its step found to apply (Stepper::kind_ready)", "stepper::Stepper::kind_ready"),
    ("        its window read (Quicks::lookup_groups)", "quick::Quicks::lookup_groups"),
    ("        its walks (Stepper::walked)", "stepper::Stepper::walked"),
    ("        hidden takers looked for (Stepper::any_missing)", "stepper::Stepper::any_missing"),
    ("      its step taken (Stepper::kind_apply)", "stepper::Stepper::kind_apply"),
    ("    the stepper (Session::step)", "session::Session::step"),
    ("      the observation bound names (stepper::keys)", "stepper::keys"),
    ("      static words", "statics::Statics<T>::get"),
    ("      the look-up (Quicks::lookup, when not inlined)", "quick::Quicks::lookup"),
    ("        the observation encoded (Quicks::encode)", "quick::Quicks::encode"),
    ("      a group filed (Rest::insert)", "split::Rest::insert"),
    ("      a group removed (Rest::remove)", "split::Rest::remove"),
    ("      a key bound (Bindings::bind)", "split::Bindings::bind"),
    ("      a key let go of (Bindings::unbind)", "split::Bindings::unbind"),
    ("    an answer (Session::response)", "session::Session::response"),
    ("      its request found (request_key::find)", "request_key::find"),
    ("    a request found by its answer (Requests::find)", "requests::Requests<V>::find"),
    ("    a request taken by its answer (Requests::take)", "requests::Requests<V>::take"),
    ("    a request filed (Requests::insert)", "requests::Requests<V>::insert"),
    ("      Ledger::answer", "ledger::Ledger::answer"),
    ("    a request key made (request_key::of)", "request_key::of"),
    ("    the message parsed (Skeletons::parse)", "skeleton::Skeletons::parse"),
    ("    observations made (Pool::ctor)", "observations::Pool::ctor"),
    ("    observations dropped (Pool::recycle)", "observations::Pool::recycle"),
    ("    Follow::is_bound", "follow::Follow::is_bound"),
    ("    Ledger::request", "ledger::Ledger::request"),
    ("    the schema pass (Skeletons::passed)", "skeleton::Skeletons::passed"),
]
found = {}
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S+?:agentpi_monitor::(\S+) \[", line)
    if m and m.group(2) not in found:
        found[m.group(2)] = int(m.group(1).replace(",", ""))
print("%-56s %15s %10s" % ("piece", "instructions", "a message"))
for label, name in pieces:
    counts = [c for k, c in found.items() if k == name or k.endswith("::" + name)]
    if counts:
        count = max(counts)
        print("%-56s %15s %10s" % (label, f"{count:,}", f"{count / messages:,.0f}"))
' "$messages"
