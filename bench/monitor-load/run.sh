#!/usr/bin/env bash
# The HTTP monitor under load: SESSIONS concurrent client sessions (default 1000), each
# `initialize` and REQUESTS requests (default 10) on one kept-alive connection, to a fast
# Streamable HTTP server on loopback, first direct, then through `agentpi monitor --listen`
# (recording and checking). Every answer must be, byte for byte, what the server sends for its
# request, and both runs must agree; prints throughput, p50/p99 latency each way and the
# monitor's resident memory (see README.md). Exit status 1 when a byte differed.
# Usage: bench/monitor-load/run.sh [SESSIONS] [REQUESTS]. Needs a release build:
# cargo build --release -p agentpi --bin agentpi (or AGENTPI=path).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
agentpi="${AGENTPI:-$here/../../target/release/agentpi}"
[[ -x $agentpi ]] || { echo "run.sh: $agentpi is missing: build it first (see above)" >&2; exit 2; }
# A thousand clients, each with its connection, and the monitor's connection per exchange.
ulimit -n 8192 2>/dev/null || true
exec python3 "$here/load.py" bench "$agentpi" "${1:-1000}" "${2:-10}"
