// The smallest VS Code client of `squad lsp`: it starts the server over stdio for the files of
// expert-squad packages (and documents of the neighbouring formats) and lets the language
// client library do the rest. No build step: this file is the extension.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function serverOptions() {
  const command = vscode.workspace.getConfiguration("squad").get("path") || "squad";
  // TransportKind.stdio also passes `--stdio`, which `squad lsp` accepts.
  return { command, args: ["lsp"], transport: TransportKind.stdio };
}

function clientOptions() {
  return {
    // The server decides what each file is: a package's files, or a document of the
    // neighbouring formats; anything else gets nothing.
    documentSelector: ["jsonc", "json", "markdown", "typescript", "javascript"].map(
      (language) => ({ scheme: "file", language })
    ),
  };
}

function activate() {
  client = new LanguageClient("squad", "squad", serverOptions(), clientOptions());
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, serverOptions, clientOptions };
