"""Run the composite action in action.yml the way a GitHub Actions runner runs its steps.

    run_action.py [--setup-python VENV] PYTHON ACTION_DIR WORKSPACE RUNNER_TEMP [INPUT=VALUE...]

Reads ACTION_DIR/action.yml, which must be a composite action, takes each input's default unless
INPUT=VALUE gives it, and runs each step's `run:` script as the runner does for `shell: bash`
(`bash --noprofile --norc -eo pipefail FILE`) in WORKSPACE, with the step's `env:`. Expressions
`${{ inputs.NAME }}` and `${{ steps.ID.outputs.NAME }}` are substituted first, as the runner
does; any other expression is an error here (this emulation does not know it). Between steps,
the lines of $GITHUB_PATH go first on PATH, those of $GITHUB_ENV set variables, and
$GITHUB_OUTPUT sets the step's outputs. The first step that fails ends the action with its exit
status, like a composite action. Prints each step's exit status and output, then the action's
exit status and outputs, then what a later step of the job sees, against what it saw before the
action (`later steps: NAME: unchanged`, or `NAME: BEFORE -> AFTER`): PATH, VIRTUAL_ENV, where
`python3`, `python`, `pip` and `pytest` resolve, and `python3`'s sys.prefix, for FileCheck. pip
settings (PIP_NO_INDEX, PIP_FIND_LINKS) come from the caller's environment; PYTHON is the
runner's `python3` (first on PATH). --setup-python VENV stands for actions/setup-python (or any
Python the workflow set up): VENV/bin goes first on PATH, before the link to PYTHON.
"""
import os
import re
import subprocess
import sys

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
# What a later step of the job sees, in bash as a `run:` step does.
LATER_STEP = """
printf 'PATH=%s\\n' "$PATH"
printf 'VIRTUAL_ENV=%s\\n' "${VIRTUAL_ENV-(unset)}"
for name in python3 python pip pytest; do printf '%s=%s\\n' "$name" "$(command -v "$name")"; done
printf 'python3 sys.prefix=%s\\n' "$(python3 -c 'import sys; print(sys.prefix)' 2>&1)"
"""


def parse_output_file(path):
    """name=value lines and name<<DELIMITER blocks, as the runner reads $GITHUB_OUTPUT."""
    outputs = {}
    if not os.path.exists(path):
        return outputs
    with open(path, encoding="utf-8") as file:
        lines = file.read().splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            while lines[index] != delimiter:
                value.append(lines[index])
                index += 1
            index += 1
            outputs[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


def later_step_view(env, workspace):
    """name -> value of what LATER_STEP prints under `env`."""
    result = subprocess.run(["bash", "--noprofile", "--norc", "-c", LATER_STEP], cwd=workspace,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)


def main() -> int:
    arguments = sys.argv[1:]
    setup_python = None
    if arguments[:1] == ["--setup-python"]:
        setup_python, arguments = os.path.abspath(arguments[1]), arguments[2:]
    python, action_dir, workspace, runner_temp = (os.path.abspath(arg) for arg in arguments[:4])
    with open(os.path.join(action_dir, "action.yml"), encoding="utf-8") as file:
        action = yaml.safe_load(file)
    if action["runs"]["using"] != "composite":
        print(f"run_action: error: runs.using is {action['runs']['using']!r}, not composite")
        return 1
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    for argument in arguments[4:]:
        name, value = argument.split("=", 1)
        if name not in inputs:
            print(f"run_action: error: the action has no input {name!r}")
            return 1
        inputs[name] = value
    step_outputs = {}

    def evaluate(text):
        def substitute(match):
            parts = match[1].split(".")
            if len(parts) == 2 and parts[0] == "inputs":
                return inputs[parts[1]]
            if len(parts) == 4 and parts[0] == "steps" and parts[2] == "outputs":
                return step_outputs.get(parts[1], {}).get(parts[3], "")
            raise SystemExit(f"run_action: error: expression not emulated: {match[0]}")
        return EXPRESSION.sub(substitute, str(text))

    os.makedirs(runner_temp, exist_ok=True)
    path_file = os.path.join(runner_temp, "github_path")
    open(path_file, "w").close()
    env_file = os.path.join(runner_temp, "github_env")
    open(env_file, "w").close()
    base_env = dict(os.environ)
    base_env.update({
        "CI": "true", "GITHUB_ACTIONS": "true", "RUNNER_OS": "Linux", "RUNNER_TEMP": runner_temp,
        "GITHUB_WORKSPACE": workspace, "GITHUB_ACTION_PATH": action_dir, "GITHUB_PATH": path_file,
        "GITHUB_ENV": env_file,
        "HOME": os.path.join(runner_temp, "home"),
    })
    os.makedirs(base_env["HOME"], exist_ok=True)
    tools = os.path.join(runner_temp, "tools")
    os.makedirs(tools, exist_ok=True)
    os.symlink(python, os.path.join(tools, "python3"))
    base_env["PATH"] = tools + os.pathsep + base_env["PATH"]
    if setup_python is not None:
        base_env["PATH"] = os.path.join(setup_python, "bin") + os.pathsep + base_env["PATH"]

    def job_env():
        """The environment of the job's next step: $GITHUB_ENV's variables, $GITHUB_PATH's
        folders first on PATH."""
        env = dict(base_env)
        env.update(parse_output_file(env_file))
        with open(path_file, encoding="utf-8") as file:  # later lines go first, as the runner does
            added = [line for line in file.read().splitlines() if line]
        env["PATH"] = os.pathsep.join(list(reversed(added)) + [env.get("PATH", base_env["PATH"])])
        return env

    before = later_step_view(job_env(), workspace)
    status = 0
    for number, step in enumerate(action["runs"]["steps"]):
        if step.get("shell") != "bash" or "run" not in step:
            print(f"run_action: error: step {number} is not a `run:` step with `shell: bash`")
            return 1
        env = job_env()
        output_file = os.path.join(runner_temp, f"github_output_{number}")
        open(output_file, "w").close()
        env["GITHUB_OUTPUT"] = output_file
        env.update({name: evaluate(value) for name, value in step.get("env", {}).items()})
        script = os.path.join(runner_temp, f"step_{number}.sh")
        with open(script, "w", encoding="utf-8") as file:
            file.write(evaluate(step["run"]))
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                                cwd=workspace, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        print(f"== step {step.get('name', number)}: exit {result.returncode}")
        print(result.stdout, end="")
        if "id" in step:
            step_outputs[step["id"]] = parse_output_file(output_file)
        if result.returncode != 0:
            status = result.returncode
            break
    print(f"== action: exit {status}")
    for name, spec in action.get("outputs", {}).items():
        print(f"output {name}={evaluate(spec['value'])}")
    after = later_step_view(job_env(), workspace)
    for name in sorted(set(before) | set(after)):
        if before.get(name) == after.get(name):
            print(f"later steps: {name}: unchanged")
        else:
            print(f"later steps: {name}: {before.get(name)} -> {after.get(name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
