#!/usr/bin/env bash
# Writes a release archive of a toolgate binary as cargo-dist lays it out, and its checksum:
#   DIR/toolgate-TARGET.tar.xz         toolgate-TARGET/toolgate and toolgate-TARGET/README.md
#   DIR/toolgate-TARGET.tar.xz.sha256  "HASH *toolgate-TARGET.tar.xz" (sha256sum -b, as cargo-dist)
# (a Windows target gets toolgate-TARGET.zip with toolgate.exe and README.md at its top, flat
# as cargo-dist writes its zips). What scripts/install.sh
# fetches; the release itself is built by cargo-dist (scripts/dist-build.sh), and this script
# is how CI and the tests get the same layout from the binary they built.
#
#   scripts/package-archive.sh --binary PATH --out DIR [--target TRIPLE]
#
# TARGET defaults to the one scripts/install.sh detects for this machine. xz compresses at its
# default level (6); XZ_OPT=-0 makes a quicker, larger archive (the tests use it). Prints the
# archive's path.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
binary="" out="" target=""
usage() { echo "usage: $0 --binary PATH --out DIR [--target TRIPLE]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="${2:-}"; shift 2 ;;
    --out) out="${2:-}"; shift 2 ;;
    --target) target="${2:-}"; shift 2 ;;
    *) usage ;;
  esac
done
[ -n "$binary" ] && [ -n "$out" ] || usage
[ -f "$binary" ] || { echo "error: no binary at $binary" >&2; exit 2; }
[ -n "$target" ] || target="$("$root/scripts/install.sh" --print-target)"

mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
name="toolgate-$target"
mkdir "$work/$name"
cp "$root/README.md" "$work/$name/"
case "$target" in
  *windows*)
    cp "$binary" "$work/$name/toolgate.exe"
    archive="$name.zip"
    (cd "$work/$name" && zip -qr "$out/$archive" .)
    ;;
  *)
    cp "$binary" "$work/$name/toolgate"
    chmod 755 "$work/$name/toolgate"
    archive="$name.tar.xz"
    tar -C "$work" -cf - "$name" | xz -T0 >"$out/$archive"
    ;;
esac
(cd "$out" && { sha256sum -b "$archive" 2>/dev/null || shasum -a 256 -b "$archive"; } >"$archive.sha256")
echo "$out/$archive"
