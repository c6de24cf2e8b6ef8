#!/usr/bin/env bash
# Builds the release archive of this machine's target with cargo-dist, offline, as the
# release workflow does for every target (dist-workspace.toml): target/distrib/
# toolgate-TARGET.tar.xz, its .sha256 and the shell installer. Uses [profile.dist] (fat
# LTO, one codegen unit, stripped: what every channel ships). Not run by .ci/run: dist is compiled from crates.io
# (`cargo install --locked cargo-dist@VERSION`, the version dist-workspace.toml pins) and
# the LTO build takes minutes. Extra arguments go to `dist build`.
set -euo pipefail
cd "$(dirname "$0")/.."

dist="${DIST:-dist}"
want="$(sed -n 's/^cargo-dist-version = "\(.*\)"/\1/p' dist-workspace.toml)"
if ! command -v "$dist" >/dev/null 2>&1; then
  echo "error: cargo-dist is not installed: cargo install --locked cargo-dist@$want" >&2
  exit 2
fi
have="$("$dist" --version | awk '{print $2}')"
[ "$have" = "$want" ] || echo "warning: dist $have, dist-workspace.toml pins $want" >&2
target="$(rustc -vV | sed -n 's/^host: //p')"
CARGO_NET_OFFLINE=true "$dist" build --artifacts=local --target "$target" "$@"
ls -l target/distrib/
