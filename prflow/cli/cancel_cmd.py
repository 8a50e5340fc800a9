"""``prflow cancel``: stop a run left behind by an interrupted command (or any run by id)."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from temporalio.service import RPCError, RPCStatusCode

from prflow.cli.cluster import cluster_client
from prflow.config import load_settings
from prflow.errors import UserError


async def _cancel(workflow_id: str) -> None:
    client = await cluster_client(load_settings())
    try:
        await client.get_workflow_handle(workflow_id).cancel()
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:
            raise UserError(f"no running workflow {workflow_id!r}; check the id") from err
        raise


def cancel(
    workflow_id: Annotated[
        str, typer.Argument(help="Workflow id, as printed by `prflow impact` or `prflow review`.")
    ],
) -> None:
    """Cancel a running workflow: it stops at its next step and posts nothing more.

    Example: prflow cancel 'review:acme/api#12@1a2b3c4d5e6f'
    """
    if not workflow_id.strip():
        raise UserError("the workflow id is empty; pass the id the run printed")
    asyncio.run(_cancel(workflow_id))
    typer.echo(f"cancel requested for {workflow_id}", err=True)


def register(app: typer.Typer) -> None:
    app.command("cancel")(cancel)
