"""``prflow budget``: see what a running workflow has spent and raise its caps."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Annotated

import typer
from temporalio.client import WorkflowExecutionStatus, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from prflow.agent.budget import BudgetRaise, BudgetStatus
from prflow.cli.cluster import cluster_client
from prflow.cli.numbers import check_number
from prflow.config import load_settings
from prflow.errors import UserError
from prflow.limits import MAX_ITERATIONS, MAX_SECONDS, MAX_TOKENS, MAX_USD
from prflow.run_handlers import RAISE_BUDGET_UPDATE, SPEND_QUERY

budget_app = typer.Typer(
    help="Inspect and raise the budget of a running workflow.", no_args_is_help=True
)

WorkflowId = Annotated[str, typer.Argument(help="Workflow id, as shown by `prflow impact`.")]


def _print_status(status: BudgetStatus, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(status.model_dump(mode="json"), indent=2))
        return
    for phase in status.phases:
        caps, spent = phase.caps, phase.spent
        typer.echo(
            f"{phase.phase}: ${spent.usd:.4f} of ${caps.usd:.2f}, "
            f"{spent.tokens} of {caps.tokens} tokens, "
            f"{spent.iterations} of {caps.iterations} turns, {caps.wall_clock_seconds:.0f}s limit"
        )
    typer.echo(f"total: ${status.total_usd:.4f}, {status.total_tokens} tokens")


QUERY_TIMEOUT = timedelta(seconds=10)


async def _query(workflow_id: str) -> BudgetStatus:
    client = await cluster_client(load_settings())
    handle = client.get_workflow_handle(workflow_id)
    try:
        described = await handle.describe()
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            raise UserError(f"no workflow {workflow_id!r}; check the id") from err
        raise
    _require_live(workflow_id, described.status, described.task_queue)
    try:
        status: BudgetStatus = await handle.query(
            SPEND_QUERY, result_type=BudgetStatus, rpc_timeout=QUERY_TIMEOUT
        )
        return status
    except RPCError as err:
        raise UserError(
            f"no worker answers for {workflow_id} on task queue {described.task_queue!r} "
            "within 10s; start `prflow worker`, or see its spend with "
            f"`prflow costs --workflow-id '{workflow_id}'`"
        ) from err


def _require_live(
    workflow_id: str, status: WorkflowExecutionStatus | None, task_queue: str
) -> None:
    """A finished run (or one stranded by a dead command) has no live budget to show."""
    from worker.orphans import owner_gone

    if status is not None and status != WorkflowExecutionStatus.RUNNING:
        raise UserError(
            f"{workflow_id} has ended ({status.name.lower()}), so it has no live budget; its "
            f"spend: `prflow costs --workflow-id '{workflow_id}'`"
        )
    if owner_gone(task_queue):
        raise UserError(
            f"{workflow_id} was served by a prflow command that is gone; run that command "
            "again to restart it"
        )


async def _raise(workflow_id: str, change: BudgetRaise) -> BudgetStatus:
    client = await cluster_client(load_settings())
    handle = client.get_workflow_handle(workflow_id)
    try:
        raised: BudgetStatus = await handle.execute_update(
            RAISE_BUDGET_UPDATE, change, result_type=BudgetStatus
        )
        return raised
    except WorkflowUpdateFailedError as err:
        raise UserError(f"budget not raised: {err.cause}") from err
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            raise UserError(f"no running workflow {workflow_id!r}; check the id") from err
        raise


@budget_app.command("show")
def show(
    workflow_id: WorkflowId,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print spend so far per phase. Example: prflow budget show 'impact:acme/api#12@1a2b3c'"""
    if not workflow_id.strip():
        raise UserError("the workflow id is empty; pass the id the run printed")
    _print_status(asyncio.run(_query(workflow_id)), as_json)


@budget_app.command("raise")
def raise_caps(
    workflow_id: WorkflowId,
    usd: Annotated[float, typer.Option(min=0, help="USD to add to the cap.")] = 0.0,
    tokens: Annotated[int, typer.Option(min=0, help="Tokens to add to the cap.")] = 0,
    iterations: Annotated[int, typer.Option(min=0, help="Model turns to add.")] = 0,
    seconds: Annotated[float, typer.Option(min=0, help="Wall-clock seconds to add.")] = 0.0,
    phase: Annotated[
        str | None, typer.Option(help="Only this phase (default: every phase).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Raise the caps of a running workflow; a paused agent continues.

    The raise reaches every agent of the run it addresses (--phase: a phase such as
    executor or reviewers, or one agent's name; default: all), child workflows included,
    and agents of that phase that start later start with it.

    Example: prflow budget raise 'impact:acme/api#12@1a2b3c' --usd 1 --iterations 10
    """
    if not workflow_id.strip():
        raise UserError("the workflow id is empty; pass the id the run printed")
    check_number("--usd", usd, MAX_USD, "1")
    check_number("--tokens", tokens, MAX_TOKENS, "100000")
    check_number("--iterations", iterations, MAX_ITERATIONS, "10")
    check_number("--seconds", seconds, MAX_SECONDS, "300")
    if not any((usd, tokens, iterations, seconds)):
        raise UserError("nothing to raise: pass --usd, --tokens, --iterations or --seconds")
    change = BudgetRaise(
        phase=phase, add_usd=usd, add_tokens=tokens, add_iterations=iterations, add_seconds=seconds
    )
    _print_status(asyncio.run(_raise(workflow_id, change)), as_json)


def register(app: typer.Typer) -> None:
    app.add_typer(budget_app, name="budget")
