"""The client stacks' own schema conversions, run as judges of toolgate's host models.

Reads `{"tools": [{"name", "inputSchema"}, ...]}` on standard input and writes, per host id
and tool, what that stack's own code makes of the tool's input schema:

    {"HOST": {"TOOL": {"accepted": bool, "reason": str, "dropped": [keyword, ...]}}}

- `openai-strict`: openai-agents 0.24.0, `agents.mcp.util.MCPUtil.to_function_tool(tool,
  server, convert_schemas_to_strict=True)`. That function catches the error of
  `ensure_strict_json_schema` and falls back to a non-strict tool: the tool's
  `strict_json_schema` says which happened. Rejected = not strict.
- `gemini-schema`: google-genai 3.6.1, `types.JSONSchema(**schema)` then
  `types.Schema.from_json_schema(json_schema=..., raise_error_on_unsupported_field=True)`, then
  `_transformers.t_schema` (what a `FunctionDeclaration`'s `parameters` goes through). The
  structural keywords `$schema`, `$id` and `$comment`, which the pydantic model forbids, are
  taken out first (every Gemini converter does without them).
- `anthropic-strict`: anthropic 2.16.0, `anthropic.lib._parse._transform.transform_schema`.

A keyword is dropped when the stack's output holds fewer of it than the authored schema with
its local `$ref`s inlined, both read the same way: structural keywords aside (`title`,
`$schema`, `$ref`, `$defs`, `definitions`, `nullable`, `$id`, `$comment`, `format`,
`description`), a `const` read as a one-value `enum`, a `type` beside an `enum` every value
of which has that type not counted (the enum says it), `oneOf` counted as `anyOf` plus the
exclusivity `oneOf` (a stack that writes it as `anyOf` drops the exclusivity) unless its
branches are each of a different type, `anyOf: [X, {"type": "null"}]` read as X (nullable),
a one-entry `allOf` read as its entry merged into the node (where they share no keyword),
and a `null` default not counted (it says no more than that the property is optional). A constraint
moved into the description text is dropped: it is no longer a keyword.
"""

import asyncio
import copy
import json
import logging
import sys

logging.disable(logging.CRITICAL)

STRUCTURAL = {
    "title",
    "$schema",
    "$ref",
    "$defs",
    "definitions",
    "nullable",
    "$id",
    "$comment",
    "format",
    "description",
}
# Keywords whose value is one schema, a list of schemas, or a map of schemas.
ONE = {
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
}
MANY = {"anyOf", "oneOf", "allOf", "prefixItems"}
MAP = {"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
# google-genai's Schema spells keywords in snake_case; its dump by alias is camelCase.
TYPE_OF = {
    "string": str,
    "boolean": bool,
    "object": dict,
    "array": list,
}


def resolve(root, ref):
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    node = root
    for part in [p for p in ref[1:].split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node if isinstance(node, dict) else None


def inline(node, root, seen=()):
    """The schema with its local `$ref`s replaced by their targets (a cycle left as it is)."""
    if not isinstance(node, dict):
        return node
    out = {}
    ref = node.get("$ref")
    if isinstance(ref, str) and ref not in seen:
        target = resolve(root, ref)
        if target is not None:
            merged = {k: v for k, v in node.items() if k != "$ref"}
            base = inline(target, root, seen + (ref,))
            out.update(base)
            node = merged
    for k, v in node.items():
        if k in ("$defs", "definitions"):
            continue
        if k in ONE and isinstance(v, dict):
            out[k] = inline(v, root, seen)
        elif k in MANY and isinstance(v, list):
            out[k] = [inline(x, root, seen) for x in v]
        elif k in MAP and isinstance(v, dict):
            out[k] = {n: inline(x, root, seen) for n, x in v.items()}
        else:
            out[k] = v
    return out


def value_has_type(value, t):
    if t == "null":
        return value is None
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool) or (
            isinstance(value, float) and value.is_integer()
        )
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    py = TYPE_OF.get(t)
    return py is not None and isinstance(value, py)


def branch_type(node):
    """The one JSON type every value of `node` has, if it says so plainly."""
    if not isinstance(node, dict):
        return None
    t = node.get("type")
    if isinstance(t, str):
        return "number" if t == "integer" else t
    return None


def disjoint(branches):
    """Whether no value can match two of `branches`: each of its own, different type."""
    types = [branch_type(b) for b in branches]
    return None not in types and len(set(types)) == len(types)


def is_null(node):
    return isinstance(node, dict) and node.get("type") == "null" and len(node) == 1


def count(node, into):
    """Adds the keywords of `node` and of its subschemas to `into`."""
    if not isinstance(node, dict):
        return
    keys = dict(node)
    # `anyOf: [X, {"type": "null"}]` is X, nullable: Gemini's own unwrapping, lossless.
    any_of = keys.get("anyOf")
    if isinstance(any_of, list) and len(any_of) == 2 and any(is_null(b) for b in any_of):
        rest = [b for b in any_of if not is_null(b)]
        if len(rest) == 1 and isinstance(rest[0], dict):
            keys.pop("anyOf")
            for k, v in rest[0].items():
                keys.setdefault(k, v)
    # A one-entry `allOf` whose keywords the node does not hold too is the node merged.
    all_of = keys.get("allOf")
    while isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        if set(all_of[0]) & (set(keys) - {"allOf"}):
            break
        keys.pop("allOf")
        keys.update(all_of[0])
        all_of = keys.get("allOf")
    # A null default says no more than the property's being optional.
    if "default" in keys and keys["default"] is None:
        keys.pop("default")
    if "oneOf" in keys and isinstance(keys["oneOf"], list) and disjoint(keys["oneOf"]):
        keys["anyOf"] = keys.pop("oneOf")
    if "const" in keys:
        keys.setdefault("enum", [keys.pop("const")])
    t = keys.get("type")
    if isinstance(t, str) and isinstance(keys.get("enum"), list) and keys["enum"]:
        if all(value_has_type(v, t.lower()) for v in keys["enum"]):
            keys.pop("type")
    ap = keys.pop("additionalProperties", None)
    if ap is False:
        into["additionalProperties=false"] = into.get("additionalProperties=false", 0) + 1
    elif ap is not None:
        keys["additionalProperties"] = ap
    for k, v in keys.items():
        if k == "oneOf":
            into["anyOf"] = into.get("anyOf", 0) + 1
        if k not in STRUCTURAL:
            into[k] = into.get(k, 0) + 1
        if k in ONE and isinstance(v, dict):
            count(v, into)
        elif k in MANY and isinstance(v, list):
            for x in v:
                count(x, into)
        elif k in MAP and isinstance(v, dict):
            for x in v.values():
                count(x, into)


def dropped(authored, output):
    before, after = {}, {}
    count(inline(authored, authored), before)
    count(inline(output, output), after)
    lost = {k.split("=")[0] for k, n in before.items() if after.get(k, 0) < n}
    return sorted(lost)


CAMEL = {
    "any_of": "anyOf",
    "min_items": "minItems",
    "max_items": "maxItems",
    "min_length": "minLength",
    "max_length": "maxLength",
    "min_properties": "minProperties",
    "max_properties": "maxProperties",
    "property_ordering": "propertyOrdering",
    "additional_properties": "additionalProperties",
}


def camel(node):
    if isinstance(node, list):
        return [camel(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k == "property_ordering":
            continue
        k = CAMEL.get(k, k)
        if k == "nullable" and v is True and "type" not in node and "any_of" not in node:
            out["type"] = "null"
        if k == "type" and isinstance(v, str):
            v = v.lower()
        out[k] = {n: camel(x) for n, x in v.items()} if k == "properties" else camel(v)
    return out


def strip_structural(node):
    if isinstance(node, list):
        return [strip_structural(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k in ("$schema", "$id", "$comment"):
            continue
        if k in MAP and isinstance(v, dict):
            out[k] = {n: strip_structural(x) for n, x in v.items()}
        elif k in ONE or k in MANY:
            out[k] = strip_structural(v)
        else:
            out[k] = v
    return out


def server():
    """An `MCPServerStdio`, never connected: what `to_function_tool` reads of a server."""
    from agents.mcp import MCPServerStdio

    return MCPServerStdio(params={"command": "true"}, name="judge")


def judge_openai(tool):
    from agents.mcp.util import MCPUtil
    from mcp.types import Tool

    mcp_tool = Tool(name=tool["name"], description="", inputSchema=copy.deepcopy(tool["inputSchema"]))
    ft = MCPUtil.to_function_tool(mcp_tool, server(), True)
    if not ft.strict_json_schema:
        from agents.strict_schema import ensure_strict_json_schema

        schema = copy.deepcopy(tool["inputSchema"])
        if "properties" not in schema:
            schema["properties"] = {}
        try:
            ensure_strict_json_schema(schema, _reject_open_objects=tool["inputSchema"] != {})
            reason = "not strict"
        except Exception as e:  # the reason to_function_tool logged
            reason = str(e)
        return False, reason, []
    return True, "", dropped(tool["inputSchema"], ft.params_json_schema)


def judge_gemini(tool):
    from google.genai import _transformers, types

    authored = strip_structural(copy.deepcopy(tool["inputSchema"]))
    try:
        js = types.JSONSchema(**authored)
        schema = types.Schema.from_json_schema(json_schema=js, raise_error_on_unsupported_field=True)
        schema = _transformers.t_schema(None, schema)
    except Exception as e:
        return False, str(e).split("\n")[0:3], []
    out = camel(schema.model_dump(exclude_none=True))
    return True, "", dropped(tool["inputSchema"], out)


def judge_anthropic(tool):
    from anthropic.lib._parse._transform import transform_schema

    try:
        out = transform_schema(copy.deepcopy(tool["inputSchema"]))
    except BaseException as e:  # assert_never raises AssertionError
        return False, f"{type(e).__name__}: {e}", []
    return True, "", dropped(tool["inputSchema"], out)


JUDGES = {
    "openai-strict": judge_openai,
    "gemini-schema": judge_gemini,
    "anthropic-strict": judge_anthropic,
}


def main():
    data = json.load(sys.stdin)
    hosts = data.get("hosts") or list(JUDGES)
    out = {}
    for host in hosts:
        verdicts = {}
        for tool in data["tools"]:
            try:
                ok, reason, lost = JUDGES[host](tool)
            except BaseException as e:  # a judge's own failure is a rejection, said so
                ok, reason, lost = False, f"judge failed: {type(e).__name__}: {e}", []
            if isinstance(reason, list):
                reason = " ".join(str(r) for r in reason)
            verdicts[tool["name"]] = {"accepted": ok, "reason": reason, "dropped": lost}
        out[host] = verdicts
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
