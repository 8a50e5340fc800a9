"""Run the real ``prflow`` CLI as a user would, with private state and private ports.

The environment is scrubbed of the user's prflow, Temporal and model settings
so the bench measures static mode on an embedded Temporal, and never touches
the user's data directory or a Temporal they have running.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.impact.errors import BenchError
from bench.impact.measure import free_port, run_checked
from bench.impact.repos import BASE_REF, HEAD_REF

_SCRUBBED = (
    "TEMPORAL_ADDRESS",
    "TEMPORAL_NAMESPACE",
    "DATABASE_URL",
    "ANTHROPIC_API_KEY",
    "PYTHONPATH",  # the console script needs none; a relative one differs per directory
)
_SERVER_READY = "Temporal dev server running"
_SERVER_STOP_SECONDS = 60.0
_START_ATTEMPTS = 3
_LOST_PORT = "while starting"
"""How ``prflow server`` says its dev server exited during start (a port taken meanwhile)."""


@dataclass(frozen=True)
class ImpactFigures:
    """What one ``prflow impact`` report says about the pair."""

    changed_files: int
    additions: int
    deletions: int
    breaking_changes: int
    breaking_symbols: frozenset[tuple[str, str]]
    risk_score: int


def read_report(path: Path) -> ImpactFigures:
    """Figures from the JSON report (schema in ``prflow/impact/models.py``)."""
    report = json.loads(path.read_text(encoding="utf-8"))
    totals = report["totals"]
    return ImpactFigures(
        changed_files=int(totals["files"]),
        additions=int(totals["additions"]),
        deletions=int(totals["deletions"]),
        breaking_changes=len(report["breaking_changes"]),
        breaking_symbols=frozenset(
            (str(item["file"]), str(item["symbol"])) for item in report["breaking_changes"]
        ),
        risk_score=int(report["risk"]["score"]),
    )


def _console_script(name: str) -> Path:
    script = Path(sys.executable).parent / name
    if not script.is_file():
        raise BenchError(
            f"`{name}` is not installed next to {sys.executable}: run the bench with the "
            "project's venv, e.g. .venv/bin/python -m bench.impact"
        )
    return script


class PrflowCli:
    """``prflow`` with its own data/cache directories under ``state`` and free ports."""

    def __init__(self, state: Path, extra_env: dict[str, str] | None = None) -> None:
        self.state = state
        self.extra_env = dict(extra_env or {})
        self.binary = _console_script("prflow")
        self.port = free_port()
        self.ui_port = free_port()

    def env(self) -> dict[str, str]:
        inherited = {
            key: value
            for key, value in os.environ.items()
            if key not in _SCRUBBED and not key.startswith("PRFLOW_")
        }
        self.state.mkdir(parents=True, exist_ok=True)
        config = self.state / "prflow.toml"
        config.touch()
        return {
            **inherited,
            "PRFLOW_CONFIG": str(config),
            "PRFLOW_DATA_DIR": str(self.state / "data"),
            "PRFLOW_CACHE_DIR": str(self.state / "cache"),
            "PRFLOW_TEMPORAL__EMBEDDED_PORT": str(self.port),
            "PRFLOW_TEMPORAL__EMBEDDED_UI_PORT": str(self.ui_port),
            **self.extra_env,
        }

    def impact(
        self, repo: Path, report: Path, base: str = BASE_REF, head: str = HEAD_REF
    ) -> ImpactFigures:
        """One static-mode ``prflow impact`` of ``base..head``; its JSON report's figures.

        Run from inside the repository with ``--repo .``, as the quick start and the
        GitHub Action run it (the answer must not depend on the directory).
        """
        report.parent.mkdir(parents=True, exist_ok=True)
        report.unlink(missing_ok=True)
        command = [str(self.binary), "impact", "--repo", "."]
        command += ["--base", base, "--head", head, "--no-llm"]
        command += ["--format", "json", "--output", str(report.resolve()), "--quiet"]
        run_checked(command, cwd=repo, env=self.env())
        return read_report(report)

    def stop_warm_worker(self) -> None:
        """``prflow server stop``: end the warm worker a run with warm seconds > 0 left behind."""
        run_checked([str(self.binary), "server", "stop"], cwd=self.state, env=self.env())

    @contextlib.contextmanager
    def server(self) -> Iterator[None]:
        """A ``prflow server`` on the bench's port for the block, as a user's second terminal.

        ``prflow impact`` then reuses it instead of starting its own dev server.
        Readiness is the server's own "running" line, not a guess.
        """
        process = self._start_server()
        try:
            yield
        finally:
            _stop(process)

    def _start_server(self) -> subprocess.Popen[str]:
        """The server, on ports picked just before it starts: a port picked minutes earlier
        (while a pair's sdists download) may have become another connection's ephemeral
        port. A start that loses that race is tried again on fresh ports."""
        for attempt in range(1, _START_ATTEMPTS + 1):
            self.port, self.ui_port = free_port(), free_port()
            command = [str(self.binary), "server", "--headless", "--port", str(self.port)]
            process = subprocess.Popen(
                command,
                cwd=self.state,
                env=self.env(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            try:
                _await_line(process, _SERVER_READY)
            except BenchError as err:
                _stop(process)
                if attempt == _START_ATTEMPTS or _LOST_PORT not in str(err):
                    raise
                continue
            return process
        raise AssertionError("unreachable")


def _await_line(process: subprocess.Popen[str], marker: str) -> None:
    assert process.stdout is not None
    seen: list[str] = []
    for line in process.stdout:
        if line.startswith(marker):
            return
        seen.append(line.strip())
    detail = next((line for line in reversed(seen) if line), "no output")
    raise BenchError(f"prflow server exited before it was ready: {detail}")


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.communicate(timeout=_SERVER_STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
