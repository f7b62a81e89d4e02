#!/usr/bin/env bash
# Packages the VS Code extension as a .vsix with npm's @vscode/vsce (pinned in
# package-lock.json): `bash editors/vscode/package.sh [OUT.vsix]`, by default
# editors/vscode/agentpi-VERSION.vsix. Installs the pinned npm packages first when missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
version="$(node -p 'require("./package.json").version')"
out="$(realpath -m "${1:-$here/agentpi-$version.vsix}")"
[[ -x node_modules/.bin/vsce ]] || npm ci --no-audit --no-fund --loglevel=error
# No repository URL and no LICENSE file in this folder: the license is the workspace's
# (package.json says it), and the extension is installed from the file, not the Marketplace.
node_modules/.bin/vsce package --allow-missing-repository --skip-license --out "$out"
