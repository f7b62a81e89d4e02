#!/usr/bin/env bash
# Added latency of `agentpi bridge --to legacy` per request: the Python SDK 2.x client calling
# server-everything's `get-sum` directly (2025-11-25), through `agentpi monitor` alone, and
# through the bridge (2026-07-28 on the client's side). Build first: cargo build --release -p
# agentpi. Usage: bench/bridge/run_legacy.sh [CALLS]
set -euo pipefail
cd "$(dirname "$0")/../.."
calls=${1:-500}
client=tests/peers/.venv/bin/python
server=tests/peers/node_modules/.bin/mcp-server-everything
agentpi=${AGENTPI:-target/release/agentpi}
echo "direct:  $($client bench/bridge/legacy_latency.py "$calls" legacy $server 2>/dev/null)"
echo "monitor: $($client bench/bridge/legacy_latency.py "$calls" legacy $agentpi monitor -- $server 2>/dev/null)"
echo "bridge:  $($client bench/bridge/legacy_latency.py "$calls" auto $agentpi bridge --to legacy -- $server 2>/dev/null)"
