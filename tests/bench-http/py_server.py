"""The HTTP benchmark's Python baseline (scripts/bench-http.sh): the official MCP Python
SDK's low-level `Server` behind its Streamable HTTP app, stateless with JSON responses, run
by uvicorn, serving the tools of a `tools/list` file. Each `tools/call` is validated with
`jsonschema` against the tool's input schema (a validator built once) and answered with the
arguments it received, as `toolgate serve`'s echo backend answers.

Usage: python py_server.py TOOLS_LIST_JSON PORT
"""

import json
import sys

import jsonschema
import mcp_types as types
import uvicorn
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

list_file, port = sys.argv[1], int(sys.argv[2])
with open(list_file, encoding="utf-8") as f:
    tools = json.load(f)["tools"]
validators = {
    t["name"]: jsonschema.validators.validator_for(t["inputSchema"])(t["inputSchema"]) for t in tools
}
listed = [types.Tool.model_validate(t) for t in tools]


async def list_tools(_ctx, _params):
    return types.ListToolsResult(tools=listed)


async def call_tool(_ctx, params):
    validator = validators.get(params.name)
    if validator is None:
        raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool `{params.name}`")
    arguments = params.arguments or {}
    error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    if error is not None:
        return types.CallToolResult(is_error=True, content=[types.TextContent(type="text", text=error.message)])
    value = {"tool": params.name, "arguments": arguments}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(value))],
        structured_content=value,
    )


server = Server("py-bench", on_list_tools=list_tools, on_call_tool=call_tool)
app = server.streamable_http_app(json_response=True, stateless_http=True)
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
