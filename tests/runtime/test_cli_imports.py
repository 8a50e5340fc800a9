"""A command loads what it runs, not every command's code: the client stays light.

Checked in fresh interpreters (``sys.modules`` after the import), since the test
process itself has loaded everything long ago. Timing lives in
``bench.impact.client_time``; these tests guard the structure that makes it fast.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import typer

from prflow.cli.app import COMMANDS, _command_asked
from prflow.registry import KIND_COMMANDS, LINES

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
    # the result is decoded without the report's models (the analyzers' findings)
    assert _loaded(modules, ("prflow.analysis", "prflow.impact.models")) == []


def test_the_version_loads_no_temporal_and_no_kind() -> None:
    modules = _modules_after(
        "from prflow.cli import app\n"
        "try:\n    app.main(['--version'])\nexcept SystemExit:\n    pass"
    )
    assert _loaded(modules, ("temporalio", "prflow.impact", *OTHER_KINDS)) == []


def _command_names(app: typer.Typer) -> set[str]:
    return set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def test_every_command_is_registered_by_the_function_the_table_names() -> None:
    from prflow.kinds import import_path

    every = typer.Typer()
    every.callback()(lambda: None)
    for path in dict.fromkeys(COMMANDS.values()):
        import_path(path)(every)
    assert _command_names(every) == set(COMMANDS)
    for name, path in COMMANDS.items():
        alone = typer.Typer()
        alone.callback()(lambda: None)
        import_path(path)(alone)
        assert name in _command_names(alone), (name, path)
    assert KIND_COMMANDS.items() <= COMMANDS.items(), "every kind's command comes from its line"


def test_help_lists_every_registered_kinds_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "prflow", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
    )
    listed = {line.split()[1] for line in done.stdout.splitlines() if line.startswith("│ ")}
    kinds_commands = {command for line in LINES for command in line.commands}
    assert kinds_commands and kinds_commands <= listed
    assert set(COMMANDS) <= listed


def test_importing_the_cli_imports_no_kind_no_workflow_and_no_activity() -> None:
    modules = _modules_after("import prflow.cli.app")
    kind_packages = tuple(line.declaration.rsplit(".", 1)[0] for line in LINES)
    assert "prflow.registry" in modules  # the command table is read from the registry
    assert _loaded(modules, ("workflows", "activities", "worker", *kind_packages)) == []
    assert _loaded(modules, ("prflow.cli.",)) == ["prflow.cli.app"], "no command module yet"


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


_GC_AT_EXIT = """
import atexit, gc, json, sys
from prflow.cli import app

atexit.register(lambda: print(json.dumps({{"threshold": gc.get_threshold()[0],
                                          "frozen": gc.get_freeze_count()}}), flush=True))
sys.argv = ["prflow"{args}]
app.main({argv})
"""


def _gc_facts(args: str, argv: str) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, "-c", _GC_AT_EXIT.format(args=args, argv=argv)],
        capture_output=True,
        text=True,
        check=False,
    )
    facts: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return facts


def test_the_console_script_lets_the_collector_sit_out_its_imports() -> None:
    # as the console script runs it (no argv): start-up objects frozen, young collections rare
    facts = _gc_facts(', "--version"', "")
    assert facts["threshold"] == 50_000
    assert facts["frozen"] > 10_000
    # called in process with arguments (tests, embedding): the process's collector is left alone
    facts = _gc_facts("", "['--version']")
    assert facts["threshold"] == 700
    assert facts["frozen"] == 0
