#!/usr/bin/env bash
# The language server's latency on a large model: the time from a `didChange` (the whole text
# of a 5,000-line model) to its `publishDiagnostics`, over pipes as an editor talks to it.
# Build first: cargo build --release -p agentpi. Usage: bench/lsp/run.sh [LINES] [CHANGES]
set -euo pipefail
cd "$(dirname "$0")/../.."
lines=${1:-5000}
changes=${2:-40}
agentpi=${AGENTPI:-target/release/agentpi}
uptime
/usr/bin/time -v python3 bench/lsp/latency.py "$lines" "$changes" "$agentpi" 2>/tmp/agentpi-lsp-bench-time.txt
grep -E "User time|System time|Elapsed|Maximum resident" /tmp/agentpi-lsp-bench-time.txt
