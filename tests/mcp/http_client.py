"""Drive `toolgate serve --http` with the official MCP Python SDK's Streamable HTTP client.

A thin, generic runner, like run_client.py: the Rust test (tests/serve_http.rs) writes a plan
and checks the results; this script only plays the clients. Each client of the plan opens
`concurrent` sessions at once (default 1) with `streamable_http_client`, a bearer token in
its HTTP client's headers when the plan gives one, and runs the steps in each.

Usage: http_client.py PLAN.json RESULTS.json

PLAN:    {"url", "clients": [{"name", "token"?, "concurrent"?, "mode"?,
                              "steps": [{"op": "list"} | {"op": "call", "tool", "arguments"}]}]}
RESULTS: {"sdk_version", "clients": [{"name", "elapsed_ms", "sessions": [{"protocol_version",
                              "steps": [...], "http_statuses": [...], "exception"?}]}]}
"""

import json
import sys
import time
import traceback
from importlib.metadata import version

import anyio
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def describe(e):
    # An HTTP refusal surfaces as an exception group; its text must show the status.
    text = "".join(traceback.format_exception(e))
    return f"{type(e).__name__}: {e}\n{text}"


async def run_session(url, client_plan):
    out = {"steps": [], "http_statuses": []}
    headers = {}
    if client_plan.get("token"):
        headers["Authorization"] = f"Bearer {client_plan['token']}"
    try:
        async with create_mcp_http_client(headers=headers) as http:

            async def record(response):
                out["http_statuses"].append(response.status_code)

            http.event_hooks["response"].append(record)
            async with Client(
                streamable_http_client(url, http_client=http),
                mode=client_plan.get("mode", "legacy"),
                cache=None,
                read_timeout_seconds=30,
            ) as client:
                out["protocol_version"] = client.protocol_version
                for step in client_plan["steps"]:
                    try:
                        if step["op"] == "list":
                            listed = await client.list_tools()
                            out["steps"].append({"tools": [dump(t) for t in listed.tools]})
                        elif step["op"] == "call":
                            result = await client.call_tool(step["tool"], step.get("arguments"))
                            out["steps"].append({"result": dump(result)})
                    except MCPError as e:
                        out["steps"].append({"error": {"code": e.code, "message": e.message}})
    except BaseException as e:  # noqa: BLE001 - recorded for the Rust test to report
        out["exception"] = describe(e)
    return out


async def run_client(url, client_plan):
    n = client_plan.get("concurrent", 1)
    sessions = [None] * n
    started = time.monotonic()

    async def one(i):
        sessions[i] = await run_session(url, client_plan)

    with anyio.fail_after(120):
        async with anyio.create_task_group() as tg:
            for i in range(n):
                tg.start_soon(one, i)
    return {
        "name": client_plan["name"],
        "elapsed_ms": round((time.monotonic() - started) * 1000),
        "sessions": sessions,
    }


async def main(plan_path, results_path):
    with open(plan_path, encoding="utf-8") as f:
        plan = json.load(f)
    results = {"sdk_version": version("mcp"), "clients": []}
    for client_plan in plan["clients"]:
        results["clients"].append(await run_client(plan["url"], client_plan))
    with open(results_path, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: http_client.py PLAN.json RESULTS.json")
    anyio.run(main, sys.argv[1], sys.argv[2])
