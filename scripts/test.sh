#!/usr/bin/env bash
# The test command of README.md: installs the pinned MCP servers the tests talk to (npm and
# PyPI, see scripts/install-peers.sh), then runs every test of the workspace.
# The install (mostly waiting on the registries) runs while the tests compile: on 2 cores the
# compiler leaves a core idle often enough that this saves most of the install's half minute.
set -euo pipefail
cd "$(dirname "$0")/.."
log="$(mktemp -t agentpi-install-peers.XXXXXX)"
trap 'rm -f "$log"' EXIT
bash scripts/install-peers.sh >"$log" 2>&1 &
peers=$!
built=0
cargo test --workspace --locked --no-run || built=$?
if ! wait "$peers"; then
    cat "$log" >&2
    echo "test.sh: installing the MCP peers failed (log above)" >&2
    exit 1
fi
cat "$log"
[[ $built -eq 0 ]] || exit "$built"
cargo test --workspace --locked
