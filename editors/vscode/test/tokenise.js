// Tokenises .pi files with the extension's grammar, as VS Code does (vscode-textmate on
// vscode-oniguruma), and fails when any text is left unscoped (only `source.agentpi`) or
// scoped `invalid`: every bundled model must be covered by the grammar and nothing in it may
// look like a mistake.
// Usage: node test/tokenise.js FILE... (or directories, searched for *.pi).
'use strict';

const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const grammarPath = path.join(__dirname, '..', 'syntaxes', 'agentpi.tmLanguage.json');

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) =>
      scope === 'source.agentpi'
        ? vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath)
        : null,
  });
  return registry.loadGrammar('source.agentpi');
}

function piFiles(target) {
  if (!fs.statSync(target).isDirectory()) return [target];
  return fs
    .readdirSync(target)
    .sort()
    .flatMap((name) => {
      const full = path.join(target, name);
      if (fs.statSync(full).isDirectory()) return piFiles(full);
      return name.endsWith('.pi') ? [full] : [];
    });
}

/** The problems of one file: `FILE:LINE:COL: why `text``, as the CLI cites positions. */
function problems(grammar, file) {
  const found = [];
  let stack = vsctm.INITIAL;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, i) => {
    const result = grammar.tokenizeLine(line, stack);
    for (const token of result.tokens) {
      const text = line.slice(token.startIndex, token.endIndex);
      const at = `${file}:${i + 1}:${token.startIndex + 1}`;
      const invalid = token.scopes.find((s) => s.startsWith('invalid'));
      if (invalid) found.push(`${at}: ${invalid} \`${text}\``);
      else if (token.scopes.length === 1 && text.trim() !== '') found.push(`${at}: unscoped \`${text}\``);
    }
    stack = result.ruleStack;
  });
  return found;
}

async function main() {
  const targets = process.argv.slice(2);
  if (targets.length === 0) {
    console.error('usage: node test/tokenise.js FILE_OR_DIR...');
    process.exit(2);
  }
  const grammar = await loadGrammar();
  const files = targets.flatMap(piFiles);
  const found = files.flatMap((file) => problems(grammar, file));
  found.forEach((p) => console.log(p));
  console.log(`tokenise: ${files.length} files, ${found.length} problems`);
  process.exit(found.length === 0 && files.length > 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
