#!/usr/bin/env bash
# Added latency of `agentpi bridge --to modern` per request, against the same legacy client
# (Python SDK 1.x) talking to the Python SDK 2.x server directly and through `agentpi monitor`
# alone. Build first: cargo build --release -p agentpi. Usage: bench/bridge/run.sh [CALLS]
set -euo pipefail
cd "$(dirname "$0")/../.."
calls=${1:-500}
client=tests/peers/.venv-mcp1/bin/python
server=(tests/peers/.venv/bin/python tests/tester/sdk_server.py)
agentpi=${AGENTPI:-target/release/agentpi}
echo "direct:  $($client bench/bridge/latency.py "$calls" "${server[@]}" 2>/dev/null)"
echo "monitor: $($client bench/bridge/latency.py "$calls" $agentpi monitor -- "${server[@]}" 2>/dev/null)"
echo "bridge:  $($client bench/bridge/latency.py "$calls" $agentpi bridge --to modern -- "${server[@]}" 2>/dev/null)"
