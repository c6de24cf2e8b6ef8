#!/usr/bin/env bash
# Load check of `toolgate serve` (issue 5): one client, one stdio session, 10,000 valid and
# invalid tools/call requests in a row against a release build; prints calls per second and
# the server's peak resident memory (VmHWM). The numbers go in docs/benchmarks.md.
#
#   scripts/serve-load.sh                  # 10,000 calls
#   TOOLGATE_LOAD_CALLS=50000 scripts/serve-load.sh
#
# The check itself is the ignored test `ten_thousand_calls_in_a_row` in tests/serve_load.rs: it
# fails on any answer other than the expected one, never on a slow one.
set -euo pipefail
cd "$(dirname "$0")/.."
export TOOLGATE_LOAD_CALLS="${TOOLGATE_LOAD_CALLS:-10000}"
nproc_line="$(nproc) cores, $(rustc --version)"
echo "machine: ${nproc_line}"
cargo test --release --test serve_load -- --ignored --nocapture --test-threads=1
