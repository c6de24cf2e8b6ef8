#!/usr/bin/env bash
# Runs the same commands with two toolgate binaries and says where their behaviour differs:
# stdout, stderr and exit code of each, and the files a command writes. For refactors that
# must not change behaviour (issue 23 and the crate re-cut before it).
#
#   scripts/compare-behaviour.sh BEFORE AFTER [OUT]
#
# BEFORE and AFTER are toolgate binaries (a release build of the old commit, and of the new
# one; a debug build gives the same output). OUT (default: a temporary folder) keeps each
# command's output under OUT/before and OUT/after. Prints one line per command that differs
# and a summary; exits 0 when everything is identical, 1 otherwise. Commands on the shared
# corpora (`../shared/anchors`) are skipped, with a message, when it is not checked out.
#
# Run from anywhere; the commands run in a scratch folder holding a copy of the repository's
# catalogs and fixtures, at the same path for both binaries, so paths in messages are equal.
set -euo pipefail

if [ $# -lt 2 ]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
before=$(realpath "$1")
after=$(realpath "$2")
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${3:-$(mktemp -d)}
mkdir -p "$out"
out=$(realpath "$out")
shared="$repo/../shared/anchors"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Each binary under the name `toolgate`, so that usage lines (which show the program's name)
# compare equal.
mkdir -p "$scratch/bin-before" "$scratch/bin-after"
cp "$before" "$scratch/bin-before/toolgate"
cp "$after" "$scratch/bin-after/toolgate"
before="$scratch/bin-before/toolgate"
after="$scratch/bin-after/toolgate"

# The scratch copy both binaries run in.
work="$scratch/work"
fresh_work() {
  rm -rf "$work"
  mkdir -p "$work"
  cp -r "$repo/schema" "$repo/skills-fixtures" "$repo/generated" "$work/"
  if [ -d "$shared" ]; then
    # The github surface as a server of a toolgate.toml, for the wild agent files.
    # Each file at its path in its repository, as the lint reads a repository.
    python3 - "$shared/wild-agents" "$work/wild-agents" <<'PY'
import json, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
for row in json.load(open(os.path.join(src, "index.json"))):
    to = os.path.join(dst, row["repo"].replace("/", "__"), row["path"])
    os.makedirs(os.path.dirname(to), exist_ok=True)
    shutil.copyfile(os.path.join(src, "files", row["saved_as"]), to)
PY
    cp "$shared/wild/github-mcp-server/tools.json" "$work/wild-agents/github.tools.json"
    cat >"$work/wild-agents/toolgate.toml" <<'EOF'
[servers.github]
tools_list = "github.tools.json"
prefixes = ["mcp__github__", "mcp__plugin_*_github__", "mcp__GitHub__", "mcp__github-official__", "mcp_io_github_git_", "mcp_github_", "github/github-mcp-server/", "GitHub/GitHub-mcp-server/", "github/"]
EOF
  fi
}

# Every command, one per line: a name (a file name) and the arguments after `toolgate`.
# `@stdin FILE` as the first word feeds FILE to the command; `@tree DIR` after the arguments
# records the files under DIR (relative to the scratch folder) once the command has run.
commands() {
  local c p
  echo "version --version"
  echo "help --help"
  for c in tools-list manifest check diff docs import lint explain serve; do
    echo "help-$c $c --help"
  done
  for c in tatara maetra; do
    local profiles
    profiles=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["profiles"]))' "$repo/schema/$c/profiles.json")
    for p in $profiles "" nonexistent; do
      echo "tools-list-$c-bundled-${p:-EMPTY} tools-list --catalog $c --profile ${p:-''}"
      echo "tools-list-$c-folder-${p:-EMPTY} tools-list --catalog schema/$c --profile ${p:-''}"
    done
    echo "tools-list-$c-noprofile tools-list --catalog $c"
    echo "manifest-$c manifest --catalog $c"
    echo "manifest-$c-tatara manifest --catalog schema/$c --format tatara"
    echo "check-$c check --catalog schema/$c"
    echo "docs-$c docs --catalog schema/$c"
    echo "diff-golden-$c diff generated/golden/$c/manifest.json schema/$c"
    echo "diff-golden-$c-json diff generated/golden/$c/manifest.json schema/$c --format json"
    echo "diff-golden-$c-md diff generated/golden/$c/manifest.json schema/$c --format markdown"
  done
  echo "tools-list-maetra-combined tools-list --catalog maetra --profile task_guard,secure,govern"
  echo "diff-rules diff --rules"
  echo "diff-tatara-maetra diff schema/tatara schema/maetra"
  for f in full concise json github sarif; do
    echo "lint-fixtures-$f lint skills-fixtures --format $f"
  done
  echo "lint-fixtures-diff lint skills-fixtures --diff"
  echo "lint-fixtures-tatara lint --catalog tatara skills-fixtures"
  echo "explain-list explain"
  for r in $(ls "$repo/lint/src/rules" | grep -v '^mod.rs$' | sed 's/\.rs$//; s/_/-/g'); do
    echo "explain-$r explain $r"
  done
  echo "serve-stdio-refine @stdin serve-input.jsonl serve --catalog tatara --profile refine"
  echo "serve-stdio-maetra @stdin serve-input.jsonl serve --catalog schema/maetra --profile secure"
  if [ -d "$shared" ]; then
    echo "lint-tatara-corpus lint --catalog tatara --format concise tatara-corpus"
    echo "lint-tatara-corpus-json lint --catalog tatara --format json tatara-corpus"
    echo "lint-wild-agents lint --format concise wild-agents"
    echo "lint-wild-agents-json lint --format json wild-agents"
    for f in "$shared"/wild/*.tools.json; do
      local n
      n=$(basename "$f" .tools.json)
      echo "import-$n import --out imported/$n --profile all=$f @tree imported/$n"
      echo "import-$n-check check --catalog imported/$n"
    done
  else
    echo "skipped: $shared is not here (the wild and tatara corpora)" >&2
  fi
}

# One MCP session over stdio: initialize, initialized, tools/list, then end of input.
serve_input() {
  cat <<'EOF'
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"compare","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
EOF
}

# Runs every command with one binary; outputs under $out/$1.
run_all() {
  local side=$1 bin=$2 dest="$out/$1"
  rm -rf "$dest"
  mkdir -p "$dest"
  fresh_work
  serve_input >"$work/serve-input.jsonl"
  if [ -d "$shared" ]; then
    cp -r "$shared/tatara/tatara-agent-skills@8b51c62" "$work/tatara-corpus"
  fi
  while read -r name rest; do
    local stdin=/dev/null tree=""
    # shellcheck disable=SC2206
    local words=($rest)
    if [ "${words[0]}" = "@stdin" ]; then
      stdin="$work/${words[1]}"
      words=("${words[@]:2}")
    fi
    local n=${#words[@]}
    if [ "$n" -ge 2 ] && [ "${words[$((n - 2))]}" = "@tree" ]; then
      tree=${words[$((n - 1))]}
      words=("${words[@]:0:$((n - 2))}")
    fi
    # '' stands for an empty argument.
    local args=()
    for w in "${words[@]}"; do
      if [ "$w" = "''" ]; then args+=(""); else args+=("$w"); fi
    done
    set +e
    (cd "$work" && timeout 60 "$bin" "${args[@]}" <"$stdin" >"$dest/$name.stdout" 2>"$dest/$name.stderr")
    echo $? >"$dest/$name.code"
    set -e
    if [ -n "$tree" ] && [ -d "$work/$tree" ]; then
      (cd "$work/$tree" && find . -type f | sort | while read -r f; do
        echo "== $f"
        cat "$f"
      done) >"$dest/$name.tree"
    fi
  done < <(commands)
}

run_all before "$before"
run_all after "$after"

differ=0
total=0
for f in "$out"/before/*; do
  total=$((total + 1))
  g="$out/after/$(basename "$f")"
  if ! cmp -s "$f" "$g"; then
    echo "differs: $(basename "$f")"
    differ=$((differ + 1))
  fi
done
echo "$total outputs compared ($(ls "$out"/before/*.code | wc -l) commands): $differ differ; outputs in $out"
[ "$differ" -eq 0 ]
