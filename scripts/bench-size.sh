#!/usr/bin/env bash
# The shipped binary's size against its budget, and how long it takes to build:
#   scripts/bench-size.sh [--profile dist] [--budget-mib 30] [--clean]
# builds `toolgate` with the profile (--clean: from scratch, removing target/PROFILE first,
# so the time is a full build's), prints its size and the build's wall time, and exits 1
# when the binary is over the budget. The shipped profile is `dist` (fat LTO, what cargo-dist,
# maturin and the npm packages build); `release` is the fast optimised build without LTO
# (larger). CI's test holds the `ci-release` build (no LTO, larger) to a looser bound
# (tests/distribution.rs).
# Numbers: docs/benchmarks.md, "Binary size".
set -euo pipefail
cd "$(dirname "$0")/.."

profile=dist budget_mib=30 clean=""
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile="$2"; shift 2 ;;
    --budget-mib) budget_mib="$2"; shift 2 ;;
    --clean) clean=1; shift ;;
    *) echo "usage: $0 [--profile P] [--budget-mib N] [--clean]" >&2; exit 2 ;;
  esac
done
dir="$profile"
[ "$profile" = dev ] && dir=debug
[ -z "$clean" ] || rm -rf "target/$dir"
start=$SECONDS
cargo build --quiet --locked --profile "$profile" -p toolgate
seconds=$((SECONDS - start))
binary="target/$dir/toolgate"
bytes=$(wc -c <"$binary" | tr -d ' ')
budget=$((budget_mib * 1024 * 1024))
awk -v b="$bytes" -v s="$seconds" -v p="$profile" -v m="$budget_mib" 'BEGIN {
  printf "%s: %d bytes (%.2f MB, %.2f MiB; budget %d MiB), built in %dm%02ds\n",
    p, b, b / 1e6, b / 1048576, m, s / 60, s % 60 }'
if [ "$bytes" -gt "$budget" ]; then
  echo "error: $binary is over the budget of $budget_mib MiB" >&2
  exit 1
fi
