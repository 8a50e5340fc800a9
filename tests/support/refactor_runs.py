"""Shared pieces of refactor-workflow tests: requests, starting a run, reading artifacts."""

from __future__ import annotations

import subprocess
from pathlib import Path

from temporalio.client import Client, WorkflowHandle

from prflow.agent.planning import phase_plans
from prflow.config import Settings, cached_settings
from prflow.refactor.kind import REFACTOR
from prflow.refactor.run_models import MODEL_PHASES, RefactorRequest, RefactorResult
from prflow.store.blobs import get_text
from tests.support.refactor_repo import DIRECTIVE
from workflows.refactor import RefactorWorkflow


def refactor_request(
    settings: Settings, repo: Path, *, model: bool = True, **fields: object
) -> RefactorRequest:
    return RefactorRequest.model_validate(
        {
            "repo": str(repo),
            "directive": DIRECTIVE,
            "plans": phase_plans(settings, REFACTOR, MODEL_PHASES, enabled=model),
            "allow_unsandboxed": True,
            **fields,
        }
    )


async def start_refactor(
    client: Client, settings: Settings, request: RefactorRequest, workflow_id: str
) -> WorkflowHandle[RefactorWorkflow, RefactorResult]:
    return await client.start_workflow(
        RefactorWorkflow.run, request, id=workflow_id, task_queue=settings.temporal.task_queue
    )


def artifact(result: RefactorResult, name: str) -> str:
    return get_text(cached_settings().resolved_database_url(), result.artifact_keys[name])


def apply_check(repo: Path, patch: str) -> subprocess.CompletedProcess[str]:
    """``git apply --check`` of ``patch`` on the repository's base (its HEAD)."""
    return subprocess.run(
        ["git", "-C", str(repo), "apply", "--check", "-"],
        input=patch,
        capture_output=True,
        text=True,
        check=False,
    )


def tree_bytes(repo: Path) -> dict[str, bytes]:
    """Every file of the working tree (outside .git) and its bytes."""
    return {
        str(p.relative_to(repo)): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }
