#!/bin/sh
# Installs a released toolgate binary: downloads the release archive for this machine,
# checks it against its published sha256, and only then puts `toolgate` in place.
#
#   curl -fsSL https://raw.githubusercontent.com/OWNER/toolgate/v0.1.0/scripts/install.sh | sh -s -- --version 0.1.0
#   scripts/install.sh --version 0.1.0 [--to DIR] [--base URL] [--target TRIPLE]
#   scripts/install.sh --print-target
#
# Fetches BASE/vVERSION/toolgate-TARGET.tar.xz and BASE/vVERSION/toolgate-TARGET.tar.xz.sha256
# (the names cargo-dist gives; the archive holds toolgate-TARGET/toolgate). On Windows the
# archive is toolgate-TARGET.zip with toolgate.exe at its top: cargo-dist's zips are flat.
#   --version  the release, with or without its leading v (required)
#   --to       where to put the binary (default: $TOOLGATE_INSTALL_DIR, else ~/.local/bin)
#   --base     where releases are (default: the GitHub releases of toolgate); any URL curl or
#              wget reads, file:// included, for mirrors and tests
#   --target   the Rust target triple to fetch (default: detected from uname and the libc)
# Exit 0 installed, 1 the download or the checksum failed (nothing installed), 2 bad usage or
# an unsupported machine.
set -eu

base="${TOOLGATE_RELEASES:-https://github.com/OWNER/toolgate/releases/download}"
version="" to="${TOOLGATE_INSTALL_DIR:-${HOME:-.}/.local/bin}" target="" print_target=""

say() { printf 'toolgate install: %s\n' "$*" >&2; }
die() { code="$1"; shift; say "error: $*"; exit "$code"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --version) [ $# -ge 2 ] || die 2 "--version needs a value"; version="$2"; shift 2 ;;
    --to) [ $# -ge 2 ] || die 2 "--to needs a value"; to="$2"; shift 2 ;;
    --base) [ $# -ge 2 ] || die 2 "--base needs a value"; base="$2"; shift 2 ;;
    --target) [ $# -ge 2 ] || die 2 "--target needs a value"; target="$2"; shift 2 ;;
    --print-target) print_target=1; shift ;;
    -h | --help) sed -n '2,20p' "$0" 2>/dev/null | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die 2 "unknown argument $1 (see --help)" ;;
  esac
done

# The C library of this Linux: musl when the loader or ldd says so, glibc otherwise.
linux_libc() {
  for loader in /lib/ld-musl-*.so.1 /lib64/ld-musl-*.so.1; do
    [ -e "$loader" ] && { echo musl; return; }
  done
  if command -v ldd >/dev/null 2>&1 && ldd --version 2>&1 | grep -qi musl; then
    echo musl
  else
    echo gnu
  fi
}

detect_target() {
  os="$(uname -s)" arch="$(uname -m)"
  case "$arch" in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch64 ;;
    *) die 2 "no prebuilt toolgate for the CPU $arch ($os); build it with \`cargo install --locked toolgate\`" ;;
  esac
  case "$os" in
    Linux) echo "$arch-unknown-linux-$(linux_libc)" ;;
    Darwin) echo "$arch-apple-darwin" ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT)
      [ "$arch" = x86_64 ] || die 2 "no prebuilt toolgate for Windows on $arch"
      echo "x86_64-pc-windows-msvc" ;;
    *) die 2 "no prebuilt toolgate for the OS $os; build it with \`cargo install --locked toolgate\`" ;;
  esac
}

if [ -z "$target" ]; then
  target="$(detect_target)" || exit 2
fi
if [ -n "$print_target" ]; then
  echo "$target"
  exit 0
fi
[ -n "$version" ] || die 2 "give the release to install: --version X.Y.Z"
version="${version#v}"

case "$target" in
  *windows*) ext=zip exe=toolgate.exe ;;
  *) ext=tar.xz exe=toolgate ;;
esac
archive="toolgate-$target.$ext"
url="${base%/}/v$version/$archive"

fetch() { # URL FILE
  if command -v curl >/dev/null 2>&1; then
    curl --proto '=https,file,http' -fsSL -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    die 2 "neither curl nor wget is installed"
  fi
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    die 2 "neither sha256sum nor shasum is installed: cannot check the download"
  fi
}

tmp="$(mktemp -d 2>/dev/null || mktemp -d -t toolgate)"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

say "downloading $url"
fetch "$url" "$tmp/$archive" || die 1 "could not download $url"
fetch "$url.sha256" "$tmp/$archive.sha256" || die 1 "could not download $url.sha256"

# The .sha256 file is `HASH  NAME` (or the hash alone).
expected="$(cut -d ' ' -f 1 <"$tmp/$archive.sha256" | tr -d '\r\n' | tr 'A-F' 'a-f')"
actual="$(sha256_of "$tmp/$archive")"
case "$expected" in
  [0-9a-f]*) [ "${#expected}" -eq 64 ] || die 1 "$url.sha256 holds no sha256" ;;
  *) die 1 "$url.sha256 holds no sha256" ;;
esac
if [ "$expected" != "$actual" ]; then
  die 1 "checksum mismatch for $archive: expected $expected, got $actual; nothing installed"
fi

mkdir "$tmp/unpacked"
case "$ext" in
  # Windows has no unzip of its own; its tar (bsdtar) reads zips.
  zip) if command -v unzip >/dev/null 2>&1; then
         (cd "$tmp/unpacked" && unzip -q "../$archive")
       else
         tar -xf "$tmp/$archive" -C "$tmp/unpacked"
       fi || die 1 "could not unpack $archive" ;;
  *) tar -xJf "$tmp/$archive" -C "$tmp/unpacked" || die 1 "could not unpack $archive" ;;
esac
case "$ext" in
  zip) inside="$exe" ;;
  *) inside="toolgate-$target/$exe" ;;
esac
binary="$tmp/unpacked/$inside"
[ -f "$binary" ] || die 1 "$archive has no $inside"

# Into place: a copy beside the destination, then a rename, so a failure leaves the old
# binary (or none) and never half a file.
mkdir -p "$to" || die 1 "cannot create $to"
cp "$binary" "$to/.$exe.partial.$$" || die 1 "cannot write to $to"
chmod 755 "$to/.$exe.partial.$$"
mv -f "$to/.$exe.partial.$$" "$to/$exe" || { rm -f "$to/.$exe.partial.$$"; die 1 "cannot write $to/$exe"; }
say "installed toolgate $version ($target) to $to/$exe"
case ":${PATH:-}:" in
  *":$to:"*) ;;
  *) say "note: $to is not on PATH" ;;
esac
