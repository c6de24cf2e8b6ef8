// The MCP TypeScript SDK's client (`@modelcontextprotocol/sdk`, the copy tests/lock/ pins)
// listing the tools of `toolgate serve ARGS...` over stdio: `Client.listTools()` parses the
// result with the SDK's own schema (and compiles each output schema), so a served list it
// does not accept is an error here. Prints `{"tools": [...]}` as the SDK returned it.
//
// usage: node list_tools.mjs SDK_DIR TOOLGATE ARGS...
import path from "node:path";
import { pathToFileURL } from "node:url";

const [sdkDir, toolgate, ...args] = process.argv.slice(2);
const esm = (p) => pathToFileURL(path.join(sdkDir, "dist/esm", p)).href;
const { Client } = await import(esm("client/index.js"));
const { StdioClientTransport } = await import(esm("client/stdio.js"));

const transport = new StdioClientTransport({ command: toolgate, args, stderr: "ignore" });
const client = new Client({ name: "toolgate-host-judges", version: "0" });
try {
  await client.connect(transport);
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  process.stdout.write(JSON.stringify({ tools }));
  await client.close();
} catch (e) {
  process.stderr.write(`listTools failed: ${e?.stack ?? e}\n`);
  process.exit(1);
}
