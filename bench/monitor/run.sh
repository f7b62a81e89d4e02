#!/usr/bin/env bash
# The monitor's overhead: N sequential ping round trips to a fast echo server, direct, through
# `agentpi monitor --no-check` (relay only) and through `agentpi monitor` (all checks).
# Usage: bench/monitor/run.sh [N] (default 20000). Needs a release build:
#   cargo build --release -p agentpi
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
agentpi="${AGENTPI:-$here/../../target/release/agentpi}"
n="${1:-20000}"
server=(python3 "$here/echo_server.py")
echo "direct:     $(python3 "$here/client.py" "$n" -- "${server[@]}")"
echo "no checks:  $(python3 "$here/client.py" "$n" -- "$agentpi" monitor --no-check -- "${server[@]}" 2>/dev/null)"
echo "all checks: $(python3 "$here/client.py" "$n" -- "$agentpi" monitor -- "${server[@]}" 2>/dev/null)"
