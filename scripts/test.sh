#!/usr/bin/env bash
# The test command of README.md: installs the pinned MCP servers the tests talk to (npm and
# PyPI, see scripts/install-peers.sh), then runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-peers.sh
cargo test --workspace --locked
