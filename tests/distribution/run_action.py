"""Runs the shell steps of the composite action.yml as the runner would, on this machine.

    python run_action.py ACTION_YML SCRATCH INPUTS_JSON

Each `run:` step gets `bash --noprofile --norc -eo pipefail` (what `shell: bash` means on
GitHub), its `env:` and `working-directory:` with `${{ }}` expressions evaluated, the runner's
variables (GITHUB_ACTION_PATH: the action's folder, RUNNER_TOOL_CACHE and RUNNER_TEMP under
SCRATCH, GITHUB_OUTPUT, GITHUB_PATH) and the PATH entries earlier steps added. `uses:` steps
(actions/cache, upload-sarif) are not run: the cache always misses. Expressions understood:
inputs.X, steps.ID.outputs.X, runner.temp, github.action_repository (empty, as in a
composite's run), and `A == 'v'` / `A != 'v'` joined by `&&` in `if:`. Prints one JSON object
per step: its id, whether it ran, its exit code, outputs, stdout and stderr.
"""

import json
import os
import re
import subprocess
import sys

import yaml


def main():
    action_yml, scratch, inputs_json = sys.argv[1:4]
    action = yaml.safe_load(open(action_yml))
    action_path = os.path.dirname(os.path.abspath(action_yml))
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs.update(json.loads(inputs_json))
    temp = os.path.join(scratch, "runner-temp")
    tool_cache = os.path.join(scratch, "tool-cache")
    os.makedirs(temp, exist_ok=True)
    os.makedirs(tool_cache, exist_ok=True)
    github_path = os.path.join(scratch, "github-path")
    open(github_path, "w").close()
    outputs = {}

    def value(expr):
        expr = expr.strip()
        m = re.fullmatch(r"inputs\.([\w-]+)", expr)
        if m:
            return inputs[m.group(1)]
        m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
        if m:
            return outputs.get(m.group(1), {}).get(m.group(2), "")
        m = re.fullmatch(r"'([^']*)'", expr)
        if m:
            return m.group(1)
        if expr == "runner.temp":
            return temp
        if expr == "github.action_repository":
            return ""
        raise SystemExit(f"run_action.py: expression not understood: {expr}")

    def substitute(text):
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: value(m.group(1)), str(text))

    def condition(expr):
        expr = re.sub(r"^\$\{\{(.*)\}\}$", r"\1", expr.strip())
        for part in expr.split("&&"):
            m = re.fullmatch(r"\s*(.+?)\s*(==|!=)\s*(.+?)\s*", part)
            if not m:
                raise SystemExit(f"run_action.py: condition not understood: {part}")
            left, op, right = value(m.group(1)), m.group(2), value(m.group(3))
            if (left == right) != (op == "=="):
                return False
        return True

    for step in action["runs"]["steps"]:
        record = {"id": step.get("id"), "uses": step.get("uses")}
        if "uses" in step or ("if" in step and not condition(step["if"])):
            record["ran"] = False
            print(json.dumps(record), flush=True)
            continue
        github_output = os.path.join(scratch, "github-output")
        open(github_output, "w").close()
        env = dict(os.environ)
        added = [line for line in open(github_path).read().splitlines() if line]
        env["PATH"] = os.pathsep.join(added + [env["PATH"]])
        env.update(
            GITHUB_ACTION_PATH=action_path,
            RUNNER_TOOL_CACHE=tool_cache,
            RUNNER_TEMP=temp,
            GITHUB_OUTPUT=github_output,
            GITHUB_PATH=github_path,
        )
        for key, val in (step.get("env") or {}).items():
            env[key] = substitute(val)
        cwd = substitute(step.get("working-directory", "."))
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
        )
        step_outputs = dict(
            line.split("=", 1) for line in open(github_output).read().splitlines() if "=" in line
        )
        if step.get("id"):
            outputs[step["id"]] = step_outputs
        record.update(
            ran=True,
            code=done.returncode,
            outputs=step_outputs,
            stdout=done.stdout,
            stderr=done.stderr,
        )
        print(json.dumps(record), flush=True)


main()
