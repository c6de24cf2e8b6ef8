#!/usr/bin/env python3
"""Seed calls for the dispatch_args and serve_request fuzz targets.

    seed_calls.py TARGET CORPUS_DIR

For every tool of every golden tools/list (generated/golden/CATALOG/tools-list/PROFILE.json
and the fail-closed list), a call with only the required fields and one with every field,
made from the served inputSchema; plus the benchmarks' calls (benches/src/lib.rs). Each seed
is written in the target's input format (see the targets' doc comments).
"""

import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def example(schema, full):
    """A value the schema accepts (close enough for a seed)."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "string":
        return "x" * max(1, schema.get("minLength", 1))
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return schema.get("minimum", 1.5)
    if kind == "boolean":
        return True
    if kind == "array":
        item = example(schema.get("items", {"type": "string"}), full)
        return [item] * max(1, schema.get("minItems", 1))
    if kind == "object" or "properties" in schema:
        required = set(schema.get("required", []))
        then = schema.get("then", {}).get("required", [])
        out = {}
        for name, prop in schema.get("properties", {}).items():
            if full or name in required or name in then:
                out[name] = example(prop, full)
        return out
    return {"free": ["json", 1]}


def calls():
    """(catalog, selector, tool, arguments as JSON text)."""
    for catalog in ("tatara", "maetra"):
        golden = ROOT / "generated" / "golden" / catalog
        lists = [(p.stem, p) for p in sorted((golden / "tools-list").glob("*.json"))]
        lists.append(("", golden / "fail-closed.tools-list.json"))
        for selector, path in lists:
            for tool in json.loads(path.read_text())["tools"]:
                for full in (False, True):
                    args = example(tool["inputSchema"], full)
                    yield catalog, selector, tool["name"], json.dumps(args)
    bench = (ROOT / "benches" / "src" / "lib.rs").read_text()
    pattern = r'catalog: "(\w+)",\s*tool: "(\w+)",\s*arguments: r#"(.*?)"#'
    for catalog, tool, args in re.findall(pattern, bench, re.S):
        selector = "implement" if catalog == "tatara" else "task_guard,secure,govern"
        yield catalog, selector, tool, args


def main():
    target, corpus = sys.argv[1], pathlib.Path(sys.argv[2])
    corpus.mkdir(parents=True, exist_ok=True)
    for i, (catalog, selector, tool, args) in enumerate(calls()):
        if target == "dispatch_args":
            seed = f"{catalog}\t{selector}\t{tool}\n{args}"
        else:
            request = {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": tool, "arguments": json.loads(args)},
            }
            seed = f"{catalog}\t{selector}\n{json.dumps(request)}"
        (corpus / f"seed-{i:04}").write_text(seed)
    if target == "serve_request":
        for catalog in ("tatara", "maetra"):
            request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
            (corpus / f"seed-list-{catalog}").write_text(f"{catalog}\t\n{json.dumps(request)}")


main()
