"""Drive `toolgate serve` with the official MCP Python SDK (PyPI `mcp`), as a plan says.

A thin, generic runner: the Rust test (tests/serve_mcp.rs) works out every expectation from
toolgate's own model of the catalog and writes a plan; this script only plays the client.
For each session of the plan it starts the server over stdio with the SDK's `stdio_client`,
connects a `mcp.Client` (protocol negotiation as the session asks: "auto" probes the
2026-07-28 `server/discover`, "legacy" does the `initialize` handshake), runs the steps in
order and records what the SDK returned. It asserts nothing itself.

Usage: run_client.py PLAN.json RESULTS.json

PLAN:    {"sessions": [{"name", "command", "args": [...], "env": {...}, "mode",
                        "steps": [{"op": "list"} | {"op": "call", "tool", "arguments"}]}]}
RESULTS: {"sdk_version", "sessions": [{"name", "protocol_version", "server_name",
                        "stderr", "steps": [{"tools": [...]} | {"result": {...}} |
                        {"error": {"code", "message"}} | {"exception": "..."}]}]}
"""

import json
import sys
import tempfile
import traceback
from importlib.metadata import version

import anyio
from mcp import Client, MCPError
from mcp.client.stdio import StdioServerParameters, stdio_client


def dump(model):
    # exclude_unset: what the server sent, not the SDK's defaults for fields it did not send.
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


async def run_session(session):
    out = {"name": session["name"], "steps": []}
    params = StdioServerParameters(
        command=session["command"],
        args=session.get("args", []),
        env=session.get("env") or None,
    )
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
        try:
            async with Client(
                stdio_client(params, errlog=errlog),
                mode=session.get("mode", "auto"),
                cache=None,
                read_timeout_seconds=30,
            ) as client:
                out["protocol_version"] = client.protocol_version
                info = client.server_info
                out["server_name"] = info.name if info is not None else None
                for step in session["steps"]:
                    try:
                        if step["op"] == "list":
                            listed = await client.list_tools()
                            out["steps"].append({"tools": [dump(t) for t in listed.tools]})
                        elif step["op"] == "call":
                            result = await client.call_tool(step["tool"], step.get("arguments"))
                            out["steps"].append({"result": dump(result)})
                        else:
                            out["steps"].append({"exception": f"unknown op {step['op']!r}"})
                    except MCPError as e:
                        out["steps"].append({"error": {"code": e.code, "message": e.message}})
                    except Exception as e:  # noqa: BLE001 - recorded for the Rust test to report
                        out["steps"].append({"exception": f"{type(e).__name__}: {e}"})
        except BaseException as e:  # noqa: BLE001
            out["session_exception"] = "".join(traceback.format_exception(e))
        errlog.seek(0)
        out["stderr"] = errlog.read()
    return out


async def main(plan_path, results_path):
    with open(plan_path, encoding="utf-8") as f:
        plan = json.load(f)
    results = {"sdk_version": version("mcp"), "sessions": []}
    for session in plan["sessions"]:
        results["sessions"].append(await run_session(session))
    with open(results_path, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: run_client.py PLAN.json RESULTS.json")
    anyio.run(main, sys.argv[1], sys.argv[2])
