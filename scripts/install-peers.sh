#!/usr/bin/env bash
# Installs the real MCP servers the tests run against, pinned: the npm reference servers
# (tests/peers/package-lock.json); the Python `mcp` SDK and the PyPI reference servers
# (tests/peers/requirements.txt) in a virtual environment at tests/peers/.venv; FastMCP 2, which
# needs mcp 1.x, in its own at tests/peers/.venv-fastmcp (requirements-fastmcp.txt); the PyPI
# servers on mcp 1.x (mcp-server-calculator, mcp-server-sqlite) at tests/peers/.venv-mcp1
# (requirements-mcp1.txt) and those on mcp 2.x (excel-mcp-server, mcp-server-motherduck on
# FastMCP 4) at tests/peers/.venv-servers (requirements-servers.txt); and the VS Code
# extension's npm packages in editors/vscode/node_modules (editors/vscode/package-lock.json).
# Idempotent: a stamp file holding the hash of the pin files makes a second run a no-op.
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

# venv DIR REQUIREMENTS: a virtual environment at DIR with exactly the pinned packages.
venv() {
    local dir="$1" requirements="$2" stamp
    stamp="$(stamp_of "$requirements")"
    if [[ -f "$dir/.agentpi-stamp" && "$(cat "$dir/.agentpi-stamp")" == "$stamp" ]]; then
        echo "install-peers: python $dir up to date"
        return
    fi
    echo "install-peers: python venv in $peers/$dir"
    python3 -m venv "$dir"
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    echo "$stamp" > "$dir/.agentpi-stamp"
}

# The VS Code extension's npm packages (editors/vscode/package-lock.json: the language client
# it ships, vsce that packages it, the grammar's test tools).
vscode="$root/editors/vscode"
vscode_stamp="$(cd "$vscode" && stamp_of package.json package-lock.json)"
if [[ -f "$vscode/node_modules/.agentpi-stamp" && "$(cat "$vscode/node_modules/.agentpi-stamp")" == "$vscode_stamp" ]]; then
    echo "install-peers: editors/vscode up to date"
else
    echo "install-peers: npm ci in $vscode"
    (cd "$vscode" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$vscode_stamp" > "$vscode/node_modules/.agentpi-stamp"
fi

venv .venv requirements.txt
venv .venv-fastmcp requirements-fastmcp.txt
venv .venv-mcp1 requirements-mcp1.txt
venv .venv-servers requirements-servers.txt
