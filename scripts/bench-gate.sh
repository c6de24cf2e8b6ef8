#!/usr/bin/env bash
# The gate's overhead per call (issue 19): the ignored test `gate_overhead` in
# tests/serve_gate.rs on a release build. One stdio session each, one request in flight:
# `get_current_time(UTC)` direct to the upstream and through `toolgate serve --upstream`, in
# ten alternating rounds; p50/p90/p99 of each and the difference of the p50s. Two upstreams:
# `toolgate serve`'s echo (so the gate's own cost shows) and PyPI mcp-server-time.
# Needs TOOLGATE_PYTHON (a python with mcp-server-time; .ci/run's target/e2e/venv).
#
#   scripts/bench-gate.sh                      # 5,000 calls a side (1,000 for Python)
#   TOOLGATE_GATE_CALLS=20000 scripts/bench-gate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export TOOLGATE_PYTHON="${TOOLGATE_PYTHON:-$PWD/target/e2e/venv/bin/python}"
PROFILE=${PROFILE:-release}
echo "machine: $(nproc) cores, $(rustc --version); profile: $PROFILE"
timeout 1200 cargo test --profile "$PROFILE" --test serve_gate gate_overhead -- --ignored --nocapture --test-threads=1
