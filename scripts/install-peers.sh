#!/usr/bin/env bash
# Installs the real MCP servers the tests run against, pinned: the npm reference servers
# (tests/peers/package-lock.json) and the Python `mcp` SDK (tests/peers/requirements.txt) in a
# virtual environment at tests/peers/.venv. Idempotent: a stamp file holding the hash of the
# pin files makes a second run a no-op.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
peers="$root/tests/peers"
cd "$peers"

stamp_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

npm_stamp="$(stamp_of package.json package-lock.json)"
if [[ -f node_modules/.agentpi-stamp && "$(cat node_modules/.agentpi-stamp)" == "$npm_stamp" ]]; then
    echo "install-peers: npm servers up to date"
else
    echo "install-peers: npm ci in $peers"
    npm ci --no-audit --no-fund --loglevel=error
    echo "$npm_stamp" > node_modules/.agentpi-stamp
fi

py_stamp="$(stamp_of requirements.txt)"
if [[ -f .venv/.agentpi-stamp && "$(cat .venv/.agentpi-stamp)" == "$py_stamp" ]]; then
    echo "install-peers: python venv up to date"
else
    echo "install-peers: python venv in $peers/.venv"
    python3 -m venv .venv
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
    echo "$py_stamp" > .venv/.agentpi-stamp
fi
