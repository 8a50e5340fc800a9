"""A command loads what it runs, not every command's code: the client stays light.

Checked in fresh interpreters (``sys.modules`` after the import), since the test
process itself has loaded everything long ago. Timing lives in
``bench.impact.client_time``; these tests guard the structure that makes it fast.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer

from prflow.cli.app import COMMAND_MODULES, _command_asked

OTHER_KINDS = ("prflow.review", "prflow.refactor", "prflow.docsync", "prflow.queue")
ENGINES = ("workflows", "temporalio.worker", "prflow.imports", "prflow.tools", "prflow.agent.loop")


def _modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def _loaded(modules: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m.startswith(prefixes) or m in prefixes)


def test_an_impact_run_loads_no_other_kind_no_worker_and_no_analysis_engine() -> None:
    modules = _modules_after(
        "from prflow.cli import app\n"
        "app._register_commands(['impact', '--repo', '.'])\n"
        "import prflow.cli.impact_cmd, prflow.cli.run_client, worker.embedded\n"
        "import prflow.git.repo  # the refs are checked before a run starts\n"
        "from prflow.cli.progress import PhaseDisplay\n"
        "PhaseDisplay('impact', quiet=True).__enter__()"
    )
    assert "temporalio.client" in modules  # the check sees a real client import
    assert _loaded(modules, OTHER_KINDS + ENGINES) == []
    assert _loaded(modules, ("rich",)) == [], "a quiet run draws nothing, so loads no rich"


def test_the_version_loads_no_temporal_and_no_kind() -> None:
    modules = _modules_after(
        "from prflow.cli import app\n"
        "try:\n    app.main(['--version'])\nexcept SystemExit:\n    pass"
    )
    assert _loaded(modules, ("temporalio", "prflow.impact", *OTHER_KINDS)) == []


def _command_names(app: typer.Typer) -> set[str]:
    return set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def test_every_command_is_registered_by_the_module_the_table_names() -> None:
    import importlib

    from prflow.registry import KINDS

    every = typer.Typer()
    every.callback()(lambda: None)
    for module in dict.fromkeys(COMMAND_MODULES.values()):
        importlib.import_module(module).register(every)
    assert _command_names(every) == set(COMMAND_MODULES)
    for name, module in COMMAND_MODULES.items():
        alone = typer.Typer()
        alone.callback()(lambda: None)
        importlib.import_module(module).register(alone)
        assert name in _command_names(alone), (name, module)
    kind_modules = {kind.cli.partition(":")[0] for kind in KINDS if kind.cli is not None}
    assert kind_modules <= set(COMMAND_MODULES.values()), "a kind's CLI is missing in the table"


@pytest.mark.parametrize(
    ("args", "asked"),
    [
        (["impact", "--repo", "."], "impact"),
        (["-v", "impact", "--help"], "impact"),
        (["--verbose", "server", "stop"], "server"),
        (["--help"], None),
        ([], None),
        (["--show-completion", "bash"], None),
        (["no-such-command"], None),
    ],
)
def test_only_a_known_command_is_registered_alone(args: list[str], asked: str | None) -> None:
    assert _command_asked(args) == asked


def test_shell_completion_registers_every_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_PRFLOW_COMPLETE", "complete_bash")
    assert _command_asked(["impact"]) is None


def test_python_dash_m_prflow_is_the_same_command() -> None:
    """``python -m prflow`` runs the CLI (so ``-X importtime`` can show a command's imports)."""
    from prflow import __version__

    done = subprocess.run(
        [sys.executable, "-m", "prflow", "--version"], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout.strip()) == (0, f"prflow {__version__}")
    wrong = subprocess.run(
        [sys.executable, "-m", "prflow", "impact", "--no-such-option"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert wrong.returncode == 2
    assert wrong.stderr.count("\n") == 1 and "Traceback" not in wrong.stderr
