#!/usr/bin/env bash
# Runs one cargo-fuzz target for a given time, on the stable toolchain.
#
#   fuzz/run.sh TARGET SECONDS      e.g. fuzz/run.sh catalog_loader 600
#   fuzz/run.sh --list
#
# Seed corpora are built from the bundled catalogs and skills-fixtures/ (fuzz/corpus/ is not
# committed). Without a sanitizer (`-s none`), cargo-fuzz needs no nightly features: libFuzzer
# still catches every panic, and Rust's own checks catch out-of-bounds access. Crashes land in
# fuzz/artifacts/TARGET/; keep each as a regression test before fixing it.
set -euo pipefail
# The whole script is one function, read before it runs: editing this file while a run is
# under way does not break that run.
main() {
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

if [ "${1:-}" = "--list" ]; then
  cargo fuzz list
  return 0
fi
target="${1:?usage: fuzz/run.sh TARGET SECONDS}"
seconds="${2:?usage: fuzz/run.sh TARGET SECONDS}"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

corpus="corpus/$target"
mkdir -p "$corpus"
seed() { # name, content on stdin
  cat > "$corpus/seed-$1"
}
case "$target" in
  catalog_loader)
    for cat in ../schema/tatara ../schema/maetra; do
      name=$(basename "$cat")
      { cat "$cat/profiles.json"; for f in "$cat"/tools/*.json; do printf '\0'; cat "$f"; done; } | seed "$name"
    done
    ;;
  manifest_reader)
    # The golden manifests are what `toolgate manifest` prints (a test keeps them equal).
    for cat in tatara maetra; do
      seed "$cat-toolgate.json" < "../generated/golden/$cat/manifest.json"
      seed "$cat-tatara.json" < "../generated/golden/$cat/manifest.tatara.json"
    done
    ;;
  skill_scanner)
    find ../skills-fixtures -name '*.md' | while read -r f; do seed "$(echo "$f" | tr '/' '_')" < "$f"; done
    ;;
  dispatch_args | serve_request)
    # Calls made from the golden tools/list files and the benchmarks' calls.
    python3 seed_calls.py "$target" "$corpus"
    ;;
  *)
    ;;
esac

status=0
cargo fuzz run -s none "$target" "$corpus" -- -max_total_time="$seconds" -print_final_stats=1 \
  > "run-$target.log" 2>&1 || status=$?
# The last coverage line and the final statistics.
grep -E "^#[0-9]+" "run-$target.log" | tail -n 1
grep -E "^stat::" "run-$target.log"
if [ "$status" -ne 0 ]; then
  echo "fuzz/run.sh: $target FAILED (exit $status); see fuzz/run-$target.log and fuzz/artifacts/$target/" >&2
  grep -E "panicked|ERROR|SUMMARY" "run-$target.log" | head -n 5 >&2 || true
fi
return "$status"
}
main "$@"
