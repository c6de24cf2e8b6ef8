// The toolgate extension: starts `toolgate lsp --stdio` for Markdown and JSON files (the
// server itself decides which files the lint reads: toolgate.toml's include, catalogs) and
// lets vscode-languageclient do the rest. Plain JavaScript, so there is nothing to compile.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("toolgate").get("path") || "toolgate";
  const server = { command, args: ["lsp", "--stdio"] };
  client = new LanguageClient(
    "toolgate",
    "toolgate",
    { run: server, debug: server },
    {
      documentSelector: [
        { scheme: "file", language: "markdown" },
        { scheme: "file", language: "json" },
        { scheme: "file", language: "jsonc" },
        { scheme: "file", pattern: "**/toolgate.toml" },
      ],
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
