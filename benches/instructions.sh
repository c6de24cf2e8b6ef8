#!/usr/bin/env bash
# Instructions per round of the dispatch benchmark's 14 calls (and, in the wild-* modes, of the
# 6 calls of the wild shapes), from callgrind: a measure that does not drift with the
# neighbours on a shared machine (criterion's times do).
#
#   benches/instructions.sh                      # every mode
#   benches/instructions.sh typed baseline       # some modes
#   ONLY=request_approval benches/instructions.sh typed skip
#
# Each mode runs twice, with N=0 and N=2000 rounds; the difference divided by 2,000 is the
# cost of one round, setup (validator compilation, schema parsing) excluded. Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")"
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind" >&2; exit 2; }
cargo build --release --example profile --quiet
bin="${CARGO_TARGET_DIR:-target}/release/examples/profile"
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(typed baseline skip map map-baseline free-json free-json-skip wild wild-baseline wild-map wild-map-baseline)
count() { # mode, rounds
  N=$2 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for m in "${modes[@]}"; do
  a=$(count "$m" 0)
  b=$(count "$m" 2000)
  if [ -z "$a" ] || [ -z "$b" ]; then
    echo "instructions.sh: no count from callgrind for mode $m" >&2
    exit 1
  fi
  printf '%-16s %9d\n' "$m" $(( (b - a) / 2000 ))
done
