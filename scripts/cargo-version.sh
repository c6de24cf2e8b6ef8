#!/usr/bin/env sh
# Prints the version of the root package (the `version` of Cargo.toml's [package] table): the
# one version the wheel, the npm packages, the release archives and the Action carry.
set -eu
awk '
  /^\[/ { in_package = ($0 == "[package]") }
  in_package && /^version *= *"/ { sub(/^version *= *"/, ""); sub(/".*/, ""); print; exit }
' "$(dirname "$0")/../Cargo.toml"
