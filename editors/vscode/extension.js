// The agentpi extension: the `.pi` language (grammar and configuration are declared in
// package.json) and a language client that starts `agentpi lsp` over stdio.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

/** The server as the settings say: `agentpi.server.path lsp ...agentpi.server.extraArgs`. */
function serverOptions() {
  const config = vscode.workspace.getConfiguration('agentpi');
  const command = config.get('server.path') || 'agentpi';
  const args = ['lsp', ...config.get('server.extraArgs', [])];
  const run = { command, args, transport: TransportKind.stdio };
  return { run, debug: run };
}

async function start() {
  client = new LanguageClient('agentpi', 'agentpi', serverOptions(), {
    documentSelector: [{ language: 'agentpi' }],
    synchronize: {
      // A model's imports are files too: a change to any `.pi` file may change diagnostics.
      fileEvents: vscode.workspace.createFileSystemWatcher('**/*.pi'),
    },
  });
  try {
    await client.start();
  } catch (e) {
    const path = vscode.workspace.getConfiguration('agentpi').get('server.path');
    vscode.window.showErrorMessage(
      `agentpi: cannot start \`${path} lsp\` (${e.message || e}); set agentpi.server.path to the agentpi binary.`,
    );
  }
}

async function stop() {
  if (client) {
    const old = client;
    client = undefined;
    if (old.isRunning()) await old.stop();
  }
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentpi.restartServer', async () => {
      await stop();
      await start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('agentpi.server')) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };
