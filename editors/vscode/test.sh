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
echo "== extension.js and the manifest"
node --check extension.js
node - <<'JS'
// The manifest, the grammar, the configuration and the client name one language.
const assert = require('assert');
const manifest = require('./package.json');
const grammar = require('./syntaxes/agentpi.tmLanguage.json');
require('./language-configuration.json');
const [language] = manifest.contributes.languages;
const [entry] = manifest.contributes.grammars;
assert.deepStrictEqual(language.extensions, ['.pi']);
assert.strictEqual(entry.language, language.id);
assert.strictEqual(entry.scopeName, grammar.scopeName);
const client = require('fs').readFileSync('extension.js', 'utf8');
assert(client.includes(`language: '${language.id}'`), 'the client serves the language');
assert(client.includes(`'lsp'`), 'the client starts `agentpi lsp`');
for (const key of ['agentpi.server.path', 'agentpi.server.extraArgs', 'agentpi.trace.server'])
  assert(key in manifest.contributes.configuration.properties, key);
console.log(`manifest: language ${language.id}, grammar ${entry.scopeName}`);
JS
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
