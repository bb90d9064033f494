// Loads extension.js with stand-ins for `vscode` and the language client, and checks that
// activating it starts `squad lsp` over stdio for the package's kinds of files.
"use strict";

const assert = require("node:assert");
const Module = require("node:module");

const started = [];
const stubs = {
  vscode: {
    workspace: { getConfiguration: () => ({ get: () => undefined }) },
  },
  "vscode-languageclient/node": {
    TransportKind: { stdio: 0 },
    LanguageClient: class {
      constructor(id, name, server, client) {
        Object.assign(this, { id, name, server, client });
      }
      start() {
        started.push(this);
        return Promise.resolve();
      }
      stop() {
        return Promise.resolve();
      }
    },
  },
};
const load = Module._load;
Module._load = function (request, ...rest) {
  return request in stubs ? stubs[request] : load.call(this, request, ...rest);
};

const extension = require("../extension.js");
extension.activate().then(() => {
  assert.strictEqual(started.length, 1);
  const [client] = started;
  assert.strictEqual(client.id, "squad");
  assert.deepStrictEqual(client.server, { command: "squad", args: ["lsp"], transport: 0 });
  const languages = client.client.documentSelector.map((selector) => selector.language);
  for (const language of ["jsonc", "markdown", "typescript"]) {
    assert.ok(languages.includes(language), language);
  }
  console.log("1 passed, 0 failed");
});
