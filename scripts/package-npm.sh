#!/usr/bin/env bash
# Writes the npm packages of a toolgate binary as `npm pack` tarballs:
#   - the launcher `toolgate` (npm/toolgate: a Node.js script that runs the platform's binary),
#     whose optionalDependencies are every platform package of npm/toolgate/platforms.json;
#   - the platform package (`@toolgate/cli-linux-x64`, ...) holding BINARY, with that
#     platform's os, cpu and libc fields, so npm installs it only where it runs.
# Both carry the version of the root package in Cargo.toml.
#
#   scripts/package-npm.sh --binary PATH --out DIR [--platform KEY]
#
# KEY is a key of platforms.json (linux-x64, linux-x64-musl, darwin-arm64, win32-x64, ...);
# the default is the machine this runs on. Prints the two tarballs' paths. Needs node and npm;
# fetches nothing.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
binary="" out="" platform=""
usage() { echo "usage: $0 --binary PATH --out DIR [--platform KEY]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="${2:-}"; shift 2 ;;
    --out) out="${2:-}"; shift 2 ;;
    --platform) platform="${2:-}"; shift 2 ;;
    *) usage ;;
  esac
done
[ -n "$binary" ] && [ -n "$out" ] || usage
[ -f "$binary" ] || { echo "error: no binary at $binary" >&2; exit 2; }

version="$("$root/scripts/cargo-version.sh")"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The launcher: its files, with the version and the optional dependencies written in.
cp -R "$root/npm/toolgate" "$work/launcher"
# The platform package: package.json from platforms.json, the binary in bin/.
mkdir -p "$work/platform/bin"
VERSION="$version" PLATFORM="$platform" LAUNCHER="$work/launcher" PLATFORM_DIR="$work/platform" node - <<'JS'
const fs = require("node:fs");
const path = require("node:path");
const { VERSION, PLATFORM, LAUNCHER, PLATFORM_DIR } = process.env;
const platforms = JSON.parse(fs.readFileSync(path.join(LAUNCHER, "platforms.json"), "utf8"));

const launcherJson = path.join(LAUNCHER, "package.json");
const launcher = JSON.parse(fs.readFileSync(launcherJson, "utf8"));
launcher.version = VERSION;
launcher.optionalDependencies = Object.fromEntries(
  Object.values(platforms).map((p) => [p.package, VERSION]),
);
fs.writeFileSync(launcherJson, JSON.stringify(launcher, null, 2) + "\n");

let key = PLATFORM;
if (!key) {
  const report = process.platform === "linux" ? process.report.getReport() : null;
  const musl = report !== null && !report.header.glibcVersionRuntime;
  key = `${process.platform}-${process.arch}${musl ? "-musl" : ""}`;
}
const entry = platforms[key];
if (!entry) {
  console.error(`error: no platform ${key} in npm/toolgate/platforms.json (${Object.keys(platforms).join(", ")})`);
  process.exit(2);
}
const pkg = {
  name: entry.package,
  version: VERSION,
  description: `The toolgate binary for ${key} (${entry.target}); install the \`toolgate\` package, which runs it.`,
  license: launcher.license,
  os: [entry.os],
  cpu: [entry.cpu],
  ...(entry.libc ? { libc: [entry.libc] } : {}),
  files: ["bin/"],
  preferUnplugged: true,
};
fs.writeFileSync(path.join(PLATFORM_DIR, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
fs.writeFileSync(path.join(PLATFORM_DIR, "exe-name"), entry.os === "win32" ? "toolgate.exe" : "toolgate");
JS
exe="$(cat "$work/platform/exe-name")"
rm "$work/platform/exe-name"
cp "$binary" "$work/platform/bin/$exe"
chmod 755 "$work/platform/bin/$exe"

# `npm pack` prints the tarball's file name last.
for dir in launcher platform; do
  tarball="$(cd "$work/$dir" && npm pack --silent --pack-destination "$out" | tail -n 1)"
  echo "$out/$tarball"
done
