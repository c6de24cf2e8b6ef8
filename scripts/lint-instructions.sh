#!/usr/bin/env bash
# The lint's instruction count on a fixed corpus, held to the committed figure: fails when it
# grows by more than 10% (an instruction count, unlike a time, does not move with the
# machine's load, so CI can hold it). Counted with valgrind's callgrind, every thread of the
# process summed.
#
#   scripts/lint-instructions.sh BINARY            # check against benches/lint-instructions.txt
#   scripts/lint-instructions.sh BINARY --update   # write the figure (commit it with the change)
#
# BINARY is the build the figure was taken with: .ci/run's `ci-release` one
# (target/ci-release/toolgate); another profile or toolchain gives another count. The corpus
# is the real tatara skills of ../shared (tatara-agent-skills@8b51c62, 49 files) copied four
# times, 196 files, linted as `toolgate lint --catalog tatara --format json`.
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${1:?usage: $0 BINARY [--update]}"
update="${2:-}"
figure_file=benches/lint-instructions.txt
source_dir=../shared/anchors/tatara/tatara-agent-skills@8b51c62
corpus=target/lint-instructions-corpus
tolerance_pct=10

if [ ! -d "$source_dir" ]; then
  echo "lint-instructions: $source_dir is not here, so the instruction count was not checked" >&2
  [ "${TOOLGATE_REQUIRE_E2E:-}" = 1 ] && exit 1
  exit 0
fi
command -v valgrind >/dev/null || { echo "error: valgrind is not installed (Debian: valgrind)" >&2; exit 2; }
[ -x "$bin" ] || { echo "error: no binary at $bin" >&2; exit 2; }

rm -rf "$corpus"
for copy in 1 2 3 4; do
  mkdir -p "$corpus/copy-$copy"
  cp -R "$source_dir/." "$corpus/copy-$copy/"
done
files=$(find "$corpus" -type f -name '*.md' | wc -l | tr -d ' ')

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The lint exits 1 on findings: the count, not the verdict, is what is held here.
valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$log" \
  "$bin" lint --catalog tatara --format json "$corpus" >/dev/null || [ $? -eq 1 ]
# Callgrind ends its log with "Collected : N" (instructions, all threads together).
count=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log" | tail -1)
[ -n "$count" ] || { echo "error: callgrind printed no count:" >&2; cat "$log" >&2; exit 2; }

if [ "$update" = --update ]; then
  printf '%s\n' "$count" >"$figure_file"
  echo "lint-instructions: $count instructions on $files files, written to $figure_file"
  exit 0
fi
committed=$(tr -d ' \n' <"$figure_file")
awk -v c="$count" -v k="$committed" -v t="$tolerance_pct" -v f="$files" 'BEGIN {
  ratio = c / k
  printf "lint-instructions: %d instructions on %d files, committed %d (x%.3f, limit x%.2f)\n", c, f, k, ratio, 1 + t / 100
  if (ratio > 1 + t / 100) {
    print "error: the lint runs more than " t "% more instructions than the committed figure; find the cost (docs/benchmarks.md) or, if it is worth it, say so and run this script with --update" > "/dev/stderr"
    exit 1
  }
  if (ratio < 0.8) print "note: more than 20% fewer instructions than committed: run with --update to hold the gain"
}'
