#!/usr/bin/env bash
# Times `toolgate lint` against ripgrep and against a baseline lint on a corpus of at least
# 10,000 SKILL.md files and 100 MB built from skills-fixtures/, and reports the lint's peak
# memory. The baseline is the way tatara's own drift lint works (validate_tool_calls.py, as
# ../shared/anchors/tatara/README.md describes it; written again here in Python, since its
# source is not part of this repository): one regex over each file for `name(field="v")`,
# matches inside Markdown code only, checked against a tatara-format manifest.
#
#   scripts/bench-lint.sh            # corpus in target/bench-corpus, 5 runs each
#   RUNS=3 FILES=13000 scripts/bench-lint.sh
#   BASELINE=0 scripts/bench-lint.sh # skip the (slow) baseline
#   PROFILE=dist scripts/bench-lint.sh # the shipped profile (default: release, no LTO)
#
# Each corpus file is one fixture case (front matter and body), padded to at least 8 KB: a
# clean case with copies of its own body (dense in valid calls), a drift case with code
# samples that hold no tool call (so it keeps its few findings). See the generator below.
set -euo pipefail
cd "$(dirname "$0")/.."

FILES=${FILES:-13000}
RUNS=${RUNS:-5}
CORPUS=${CORPUS:-target/bench-corpus}
TARGET=${CARGO_TARGET_DIR:-target}
# The pattern rg searches: a name, an optional space, `(`, then a `field=` pair.
PATTERN='[A-Za-z_][A-Za-z0-9_-]* ?\([A-Za-z_][A-Za-z0-9_]* *='

if ! command -v rg >/dev/null; then
  apt-get install -y ripgrep >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y ripgrep >/dev/null; }
fi
PROFILE=${PROFILE:-release}
cargo build --profile "$PROFILE" --quiet -p toolgate
BIN="$TARGET/$PROFILE/toolgate"
echo "profile: $PROFILE ($BIN)"

if [ ! -f "$CORPUS/.complete-v2-$FILES" ]; then
  rm -rf "$CORPUS"
  mkdir -p "$CORPUS"
  python3 - "$CORPUS" "$FILES" <<'PY'
import os, sys, glob
out, n = sys.argv[1], int(sys.argv[2])
# Cases checked against tatara by the root toolgate.toml (cases with their own surface or
# profile mapping are left out: the corpus has one configuration).
cases = []
for p in sorted(glob.glob("skills-fixtures/*/SKILL.md")):
    case = os.path.dirname(p)
    if os.path.exists(os.path.join(case, "toolgate.toml")):
        continue
    text = open(p, encoding="utf-8").read()
    end = text.index("\n---\n", 4) + 5
    clean = open(os.path.join(case, "expected.txt")).read().strip() == ""
    cases.append((text, text[end:], clean))
samples = open("skills-fixtures/code-samples/SKILL.md", encoding="utf-8").read()
samples = samples[samples.index("\n---\n", 4) + 5:]
for i in range(n):
    text, body, clean = cases[i % len(cases)]
    # Pad each file to 8 KB or more: a clean case with more of its own body, a drift case
    # with code samples that hold no tool call, so that each file keeps its case's findings
    # (a few per file, like a real repository with some drift) and clean files stay dense
    # in valid calls.
    pad = body if clean else samples
    while len(text) < 8000:
        text += "\n" + pad
    d = os.path.join(out, f"{i // 100:03d}", f"skill-{i:05d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "SKILL.md"), "w", encoding="utf-8") as f:
        f.write(text)
with open(os.path.join(out, "toolgate.toml"), "w") as f:
    f.write('catalog = "tatara"\n')
PY
  touch "$CORPUS/.complete-v2-$FILES"
fi
count=$(find "$CORPUS" -name SKILL.md | wc -l)
bytes=$(find "$CORPUS" -name SKILL.md -printf '%s\n' | awk '{s+=$1} END {print s}')
echo "corpus: $count SKILL.md files, $bytes bytes, in $CORPUS"

# Other builds on the machine slow every command down: the load average is printed with the
# numbers, and cpu time (user + system) beside wall time.
load=$(cut -d' ' -f1-3 /proc/loadavg)
# Warm the page cache, then time each command RUNS times and keep the median.
cat $(find "$CORPUS" -name SKILL.md | head -1) >/dev/null
rg -c "$PATTERN" "$CORPUS" >/dev/null || true
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_of() { # prints "seconds peak_kib cpu_seconds" (cpu: user + system)
  /usr/bin/time -f '%e %M %U %S' -o /tmp/bench-time.$$ "$@" >/dev/null 2>/dev/null || true
  tail -1 /tmp/bench-time.$$ | awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }'
}
rg_times=(); lint_times=(); lint_mem=(); rg_cpu=(); lint_cpu=()
for _ in $(seq "$RUNS"); do
  read -r t _m c < <(time_of rg -n "$PATTERN" "$CORPUS")
  rg_times+=("$t"); rg_cpu+=("$c")
  read -r t m c < <(time_of "$BIN" lint "$CORPUS" --format concise)
  lint_times+=("$t"); lint_mem+=("$m"); lint_cpu+=("$c")
done
rg_t=$(printf '%s\n' "${rg_times[@]}" | median)
lint_t=$(printf '%s\n' "${lint_times[@]}" | median)
rg_c=$(printf '%s\n' "${rg_cpu[@]}" | median)
lint_c=$(printf '%s\n' "${lint_cpu[@]}" | median)
mem=$(printf '%s\n' "${lint_mem[@]}" | sort -n | tail -1)
read -r t _m _c < <(time_of "$BIN" lint "$CORPUS")
full_t=$t
summary=$("$BIN" lint "$CORPUS" --format concise 2>/dev/null | tail -1 || true)
base_t=
if [ "${BASELINE:-1}" != 0 ]; then
  "$BIN" manifest --catalog tatara --format tatara > "$CORPUS/../bench-manifest.json"
  cat > "$CORPUS/../bench-baseline.py" <<'PY'
import json, os, re, sys
# tatara's drift lint, as its README describes it: one regex for `name(field="value")`, only
# matches inside Markdown code (fenced blocks, inline backticks, lines indented 4 or more
# spaces); an unknown name is an error; for a known tool the value is checked against the
# manifest's enum of that field; a negation word earlier on the line exempts enum errors.
manifest = json.load(open(sys.argv[1]))
tools = {t["name"]: t.get("enums", {}) for t in manifest["tools"]}
call = re.compile(r'\b([a-z_]+)\((?:[^()"]*?,\s*)?([a-z_]+)="([^"]*)"')
negation = re.compile(r"\b(never|not|no|don't|cannot|can't|without|do not)\b", re.I)
errors = 0
for root, _, files in os.walk(sys.argv[2]):
    for f in files:
        if f != "SKILL.md":
            continue
        path = os.path.join(root, f)
        fenced = False
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
                continue
            code = fenced or line.startswith("    ")
            for m in call.finditer(line):
                if not code and line[:m.start()].count("`") % 2 == 0:
                    continue
                name, field, value = m.groups()
                if name not in tools:
                    errors += 1
                    print(f"ERROR: {path}:{n}: unknown tool {name}", file=sys.stderr)
                elif field in tools[name] and value not in tools[name][field]:
                    if not negation.search(line[:m.start()]):
                        errors += 1
                        print(f"ERROR: {path}:{n}: {name}.{field}={value}", file=sys.stderr)
print(errors)
PY
  read -r base_t _m base_c < <(time_of python3 "$CORPUS/../bench-baseline.py" "$CORPUS/../bench-manifest.json" "$CORPUS")
fi
echo "lint: $summary"
echo "load average before: $load"
echo "rg -n PATTERN:            median ${rg_t}s over $RUNS runs (cpu ${rg_c}s)"
echo "toolgate lint (concise):  median ${lint_t}s over $RUNS runs (cpu ${lint_c}s), peak memory $((mem / 1024)) MiB"
echo "toolgate lint (full):     ${full_t}s (one run)"
awk -v l="$lint_t" -v r="$rg_t" 'BEGIN { printf "ratio lint/rg: %.2f (target: at most 2)\n", l / r }'
awk -v l="$lint_c" -v r="$rg_c" 'BEGIN { printf "ratio lint/rg in cpu time: %.2f\n", l / r }'
if [ -n "$base_t" ]; then
  echo "baseline lint (python):   ${base_t}s (one run, cpu ${base_c}s)"
  awk -v l="$lint_t" -v b="$base_t" 'BEGIN { printf "baseline/lint: %.1f (target: at least 10)\n", b / l }'
  awk -v l="$lint_c" -v b="$base_c" 'BEGIN { printf "baseline/lint in cpu time: %.1f\n", b / l }'
fi
