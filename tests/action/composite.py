"""Run a composite GitHub Action's steps locally, the way the runner would.

The runner evaluates ``${{ ... }}`` expressions against its contexts, then
runs each ``run:`` step with ``bash --noprofile --norc -eo pipefail`` in the
step's working directory with the step's ``env``. ``uses:`` steps cannot run
here; the caller says which ones it has stood in for (e.g. setup-python, by
putting a Python first on PATH).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
_PATH = re.compile(r"[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*")


@dataclass(frozen=True)
class StepRun:
    name: str
    code: int
    stdout: str
    stderr: str


def load_action(action_dir: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((action_dir / "action.yml").read_text())
    return loaded


def evaluate(text: str, contexts: Mapping[str, Any]) -> str:
    """Substitute ``${{ a.b.c }}`` lookups; anything fancier fails loudly (not needed here)."""

    def lookup(match: re.Match[str]) -> str:
        expression = match[1]
        if not _PATH.fullmatch(expression):
            raise ValueError(f"unsupported expression: {expression}")
        value: Any = contexts
        for part in expression.split("."):
            if not isinstance(value, Mapping) or part not in value:
                return ""  # the runner also yields '' for a missing property
            value = value[part]
        return "" if value is None else str(value)

    return _EXPRESSION.sub(lookup, text)


def run_composite(
    action_dir: Path,
    inputs: Mapping[str, str],
    github: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    stand_ins: frozenset[str],
    timeout: float = 300,
) -> list[StepRun]:
    """Run every ``run:`` step in order, stopping at the first failure, as the runner does."""
    action = load_action(action_dir)
    declared = action.get("inputs", {})
    unknown = set(inputs) - set(declared)
    if unknown:
        raise ValueError(f"inputs the action does not declare: {sorted(unknown)}")
    values = {name: str(spec.get("default", "")) for name, spec in declared.items()}
    values.update(inputs)
    contexts = {"inputs": values, "github": github}
    step_env = dict(env) | {"GITHUB_ACTION_PATH": str(action_dir)}
    runs: list[StepRun] = []
    for index, step in enumerate(action["runs"]["steps"]):
        if "uses" in step:
            action_name = step["uses"].split("@")[0]
            if action_name not in stand_ins:
                raise ValueError(f"step {index} uses {step['uses']}, which nothing stands in for")
            continue
        assert step.get("shell") == "bash", "composite run steps must name their shell"
        script = evaluate(step["run"], contexts)
        extra = {key: evaluate(str(value), contexts) for key, value in step.get("env", {}).items()}
        cwd = evaluate(step.get("working-directory", "${{ github.workspace }}"), contexts)
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=cwd,
            env=step_env | extra,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        runs.append(
            StepRun(step.get("name", f"step {index}"), done.returncode, done.stdout, done.stderr)
        )
        if done.returncode != 0:
            break
    return runs
