#!/usr/bin/env bash
# The bridge's added latency per request against `agentpi monitor` alone on the same peers,
# interleaved (bench/bridge/abab.py: one client alternates its calls between a session
# through the monitor and one through each bridge, ROUNDS rounds of fresh processes, the
# median over rounds):
#   legacy (`--to legacy`): the Python SDK 2.x client, `tools/call get-sum`, server-everything
#     (a legacy server); through the monitor in legacy mode, through the bridge in modern
#     mode (2026-07-28 on its side);
#   modern (`--to modern`): the Python SDK 1.x client, `tools/call add`, the Python SDK 2.x
#     server (tests/tester/sdk_server.py), both sessions legacy on the client's side.
# Usage: bench/bridge/abab.sh [legacy|modern] [ROUNDS] [CALLS] [WARMUP]   (default legacy 10 300 50)
#   AGENTPI: the binary, or several separated by spaces (default target/release/agentpi): the
#   monitor runs with the first, a bridge session with each (old and new side by side), e.g.
#   AGENTPI="target/release/agentpi target/release/examples/bridge_stdio" (the example is a
#   release build of the bridge alone: `cargo build --release -p agentpi-bridge --example
#   bridge_stdio`). DIRECT=1 adds a session to the server directly (legacy mode).
set -euo pipefail
cd "$(dirname "$0")/../.."
to=${1:-legacy}
rounds=${2:-10}
calls=${3:-300}
warmup=${4:-50}
read -r -a binaries <<<"${AGENTPI:-target/release/agentpi}"
case $to in
legacy)
    client=tests/peers/.venv/bin/python
    server=(tests/peers/node_modules/.bin/mcp-server-everything)
    tool=get-sum plain=legacy bridged=auto
    ;;
modern)
    client=tests/peers/.venv-mcp1/bin/python
    server=(tests/peers/.venv/bin/python tests/tester/sdk_server.py)
    tool=add plain=session bridged=session
    ;;
*)
    echo "usage: $0 [legacy|modern] [ROUNDS] [CALLS] [WARMUP]" >&2
    exit 2
    ;;
esac
sessions=(:: monitor "$plain" "${binaries[0]}" monitor -- "${server[@]}")
for k in "${!binaries[@]}"; do
    label=bridge
    [ "${#binaries[@]}" -gt 1 ] && label=bridge$k
    sessions+=(:: "$label" "$bridged" "${binaries[$k]}" bridge --to "$to" -- "${server[@]}")
done
if [ "${DIRECT:-0}" = 1 ]; then
    sessions+=(:: direct "$plain" "${server[@]}")
fi
echo "uptime: $(uptime)"
for k in "${!binaries[@]}"; do
    echo "binary $k: ${binaries[$k]}"
done
$client bench/bridge/abab.py "$rounds" "$calls" "$warmup" "$tool" "${sessions[@]}" 2>/dev/null
echo "uptime: $(uptime)"
