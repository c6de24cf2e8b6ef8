// The HTTP benchmark's TypeScript baseline (scripts/bench-http.sh): the official MCP
// TypeScript SDK's low-level `Server` behind its Streamable HTTP transport, stateless with
// JSON responses (a new Server and transport per POST, as the SDK's stateless example does),
// serving the tools of a `tools/list` file. Each `tools/call` is validated with ajv against
// the tool's input schema (compiled once) and answered with the arguments it received, as
// `toolgate serve`'s echo backend answers.
//
// Usage: node ts_server.mjs TOOLS_LIST_JSON PORT
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

import Ajv from "ajv";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ErrorCode,
} from "@modelcontextprotocol/sdk/types.js";

const [listFile, port] = process.argv.slice(2);
const { tools } = JSON.parse(readFileSync(listFile, "utf8"));
const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new Map(tools.map((t) => [t.name, ajv.compile(t.inputSchema)]));

function mcpServer() {
  const server = new Server(
    { name: "ts-bench", version: "0.0.0" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args = {} } = request.params;
    const validate = validators.get(name);
    if (!validate) {
      throw new McpError(ErrorCode.InvalidParams, `unknown tool \`${name}\``);
    }
    if (!validate(args)) {
      const why = ajv.errorsText(validate.errors);
      return { isError: true, content: [{ type: "text", text: why }] };
    }
    const value = { tool: name, arguments: args };
    return {
      content: [{ type: "text", text: JSON.stringify(value) }],
      structuredContent: value,
    };
  });
  return server;
}

const http = createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/mcp") {
    res.writeHead(405).end();
    return;
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      transport.close();
      server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
});
http.keepAliveTimeout = 120_000;
http.listen(Number(port), "127.0.0.1", () => {
  console.error(`ts-bench: listening on http://127.0.0.1:${http.address().port}/mcp`);
});
process.on("SIGTERM", () => http.close(() => process.exit(0)));
