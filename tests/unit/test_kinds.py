"""Every kind declaration is complete and true: what the worker, CLI and replay test rely on."""

from __future__ import annotations

import inspect
import typing

import pytest

from prflow.config import load_settings
from prflow.errors import UserError
from prflow.kinds import KindDeclaration, QueueRole, import_path
from prflow.registry import KINDS, LINES, KindLine, kind_named
from worker.registry import activities_for, activity_name, queue_names, workflows


def _ids(kind: KindDeclaration) -> str:
    return kind.name


@pytest.mark.parametrize("kind", KINDS, ids=_ids)
def test_the_workflow_path_names_a_workflow_registered_under_the_kinds_name(
    kind: KindDeclaration,
) -> None:
    workflow_class = import_path(kind.workflow)
    assert workflow_class.__temporal_workflow_definition.name == kind.name
    hints = typing.get_type_hints(workflow_class.run)
    assert hints["return"] is kind.result_type
    [argument] = [
        name for name in inspect.signature(workflow_class.run).parameters if name != "self"
    ]
    assert hints[argument] is kind.input_type
    assert workflow_class in workflows()


@pytest.mark.parametrize("kind", KINDS, ids=_ids)
def test_the_worker_serves_every_activity_a_kind_declares_on_its_queue(
    kind: KindDeclaration,
) -> None:
    settings = load_settings()
    for role, paths in kind.activities.items():
        served = {activity_name(f) for f in activities_for(queue_names(settings)[role], settings)}
        for path in paths:
            found = import_path(path)
            for function in found if isinstance(found, list | tuple) else [found]:
                assert activity_name(function) in served, (role, path)


def test_each_registry_line_names_its_kinds_declaration_in_order() -> None:
    assert [import_path(line.declaration) for line in LINES] == list(KINDS)
    assert all(isinstance(kind, KindDeclaration) for kind in KINDS)


@pytest.mark.parametrize(
    "line", [k for k in LINES if k.cli is not None], ids=lambda line: line.declaration
)
def test_the_cli_entry_registers_exactly_the_commands_its_line_names(line: KindLine) -> None:
    import typer

    app = typer.Typer()
    app.callback()(lambda: None)
    assert line.cli is not None
    import_path(line.cli)(app)
    assert set(typer.main.get_command(app).commands) == set(line.commands)  # type: ignore[attr-defined]


def test_kind_names_are_unique_and_unknown_ones_are_a_user_error() -> None:
    names = [kind.name for kind in KINDS]
    assert len(names) == len(set(names))
    assert kind_named("impact").name == "impact"
    with pytest.raises(UserError, match="unknown job kind 'nope'; prflow runs: impact"):
        kind_named("nope")


def test_the_main_queue_runs_the_platform_workflows_for_every_kind() -> None:
    names = {w.__temporal_workflow_definition.name for w in workflows()}  # type: ignore[attr-defined]
    assert {"agent", "blob_read"} <= names
    settings = load_settings()
    llm = {activity_name(f) for f in activities_for(queue_names(settings)[QueueRole.LLM], settings)}
    assert {"llm_call", "llm_configured"} <= llm
