"""An upstream for tests/serve_gate.rs's `--host` test: one tool whose schema strict hosts
rewrite, built on the MCP Python SDK's `MCPServer` (pinned in requirements.txt), over stdio.

`record(text, count=1, note=None, options={})` answers with the arguments as it received
them (defaults filled in), as JSON: `count` is an optional integer that does not accept
`null` (openai-strict serves it as `integer | null`, the gate reads a `null` there as left
out), `note` an optional string that does accept `null` (served as authored: a `null` there
is the caller's), `options` a free-form object of integers (openai-strict serves it as a
string of JSON, the gate parses it back), `text` a plain string (never parsed).
"""

import json

from mcp.server.mcpserver import MCPServer

server = MCPServer("host-fixture")


@server.tool(name="record", description="Answers with the arguments it received, as JSON.")
def record(text: str, count: int = 1, note: str | None = None, options: dict[str, int] = {}) -> str:
    return json.dumps(
        {"text": text, "count": count, "note": note, "options": options}, sort_keys=True
    )


if __name__ == "__main__":
    server.run()
