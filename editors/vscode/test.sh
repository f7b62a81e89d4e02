#!/usr/bin/env bash
# The VS Code extension's tests (run by crates/cli/tests/editors.rs, so by the README's test
# command): the grammar's assertion files (test/syntax/*.pi, vscode-tmgrammar-test), every
# bundled model tokenised with nothing unscoped or invalid (test/tokenise.js), and the .vsix
# built and holding the grammar, the configuration and the language client.
# Needs the pinned npm packages (scripts/install-peers.sh installs them).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
echo "== grammar assertions"
node_modules/.bin/vscode-tmgrammar-test -g syntaxes/agentpi.tmLanguage.json 'test/syntax/*.pi'
echo "== bundled models"
node test/tokenise.js ../../models
echo "== extension.js"
node --check extension.js
echo "== .vsix"
work="$(mktemp -d -t agentpi-vsix.XXXXXX)"
trap 'rm -rf "$work"' EXIT
bash package.sh "$work/agentpi.vsix" >"$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
python3 - "$work/agentpi.vsix" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = [
    "extension.vsixmanifest",
    "extension/package.json",
    "extension/extension.js",
    "extension/language-configuration.json",
    "extension/syntaxes/agentpi.tmLanguage.json",
    "extension/node_modules/vscode-languageclient/node.js",
]
missing = [n for n in need if n not in names]
stray = sorted(n for n in names if n.startswith("extension/test/") or "/@vscode/vsce/" in n)
if missing or stray:
    sys.exit(f"vsix: missing {missing}, should not hold {stray[:5]}")
print(f"vsix: {len(names)} files, the extension's {len(need)} present")
PY
