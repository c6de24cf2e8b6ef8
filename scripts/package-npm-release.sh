#!/usr/bin/env bash
# Writes every npm package of a release from its archives: for each platform of
# npm/toolgate/platforms.json, checks ARCHIVES/toolgate-TARGET.tar.xz (.zip on Windows)
# against its .sha256, takes the binary out and packs it with scripts/package-npm.sh; then
# the launcher `toolgate`, whose optionalDependencies name them all. This is what the
# release workflow's npm job publishes (.github/workflows/publish-npm.yml), from the archives
# cargo-dist built, so npm ships the same bytes as the GitHub release.
#
#   scripts/package-npm-release.sh --archives DIR --out DIR
#
# Prints the tarballs' paths, the platform packages first and the launcher last (the order
# to publish them in: the launcher must not name a package the registry does not have yet).
# Exit 1 when an archive is missing, does not match its checksum or holds no binary: no
# launcher is written then, so a partial release cannot be published. Needs node and npm,
# tar, xz and unzip; fetches nothing.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
archives="" out=""
usage() { echo "usage: $0 --archives DIR --out DIR" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --archives) archives="${2:-}"; shift 2 ;;
    --out) out="${2:-}"; shift 2 ;;
    *) usage ;;
  esac
done
[ -n "$archives" ] && [ -n "$out" ] || usage
[ -d "$archives" ] || { echo "error: no folder $archives" >&2; exit 2; }
archives="$(cd "$archives" && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

sha256_of() { { sha256sum "$1" 2>/dev/null || shasum -a 256 "$1"; } | cut -d' ' -f1; }
fail() { echo "error: $*; no npm package written for this release" >&2; exit 1; }

# "KEY TARGET" per line, in platforms.json's order.
node -e '
  const p = require(process.argv[1]);
  for (const [key, e] of Object.entries(p)) console.log(`${key} ${e.target}`);
' "$root/npm/toolgate/platforms.json" >"$work/platforms"

# Every archive is checked and unpacked before anything is packed.
while read -r key target; do
  case "$target" in
    *windows*) archive="toolgate-$target.zip" inside="toolgate.exe" ;;
    *) archive="toolgate-$target.tar.xz" inside="toolgate-$target/toolgate" ;;
  esac
  [ -f "$archives/$archive" ] || fail "$archives/$archive is missing (platform $key)"
  [ -f "$archives/$archive.sha256" ] || fail "$archives/$archive.sha256 is missing (platform $key)"
  expected="$(cut -d' ' -f1 <"$archives/$archive.sha256")"
  actual="$(sha256_of "$archives/$archive")"
  [ "$expected" = "$actual" ] || fail "checksum mismatch for $archive: expected $expected, got $actual"
  mkdir -p "$work/$key"
  case "$archive" in
    *.zip) unzip -q "$archives/$archive" -d "$work/$key" ;;
    *) tar -xJf "$archives/$archive" -C "$work/$key" ;;
  esac || fail "could not unpack $archive"
  [ -f "$work/$key/$inside" ] || fail "$archive has no $inside"
  echo "$key $work/$key/$inside" >>"$work/binaries"
done <"$work/platforms"

# Each call packs the launcher too (the same files each time); it is kept from the last one
# and printed last.
launcher=""
while read -r key binary; do
  packed="$("$root/scripts/package-npm.sh" --binary "$binary" --out "$work/packed" --platform "$key")"
  launcher="$(sed -n 1p <<<"$packed")"
  platform="$(sed -n 2p <<<"$packed")"
  mv "$platform" "$out/"
  echo "$out/$(basename "$platform")"
done <"$work/binaries"
mv "$launcher" "$out/"
echo "$out/$(basename "$launcher")"
