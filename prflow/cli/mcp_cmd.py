"""``prflow mcp``: serve the repo tools and the PR tools over stdio; ``prflow mcp plugin``
writes the editor plugin and the MCP registration example from prflow's templates."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from prflow.errors import UserError

PLUGIN_DIR = Path("editor/claude-plugin")
REGISTRATION_FILE = Path("mcp/mcp.json")

mcp_app = typer.Typer(
    name="mcp",
    help=(
        "Run prflow's MCP server on stdin/stdout (for Claude Code, Cursor and other MCP "
        "clients).\n\n"
        "Tools: list_changed_files, git_diff, read_file_at_ref, search_code, find_importers, "
        "list_test_files (a local repository at head vs base), pr_comments, pr_checks, "
        "pr_stack, pr_threads, pr_reply, pr_resolve, pr_conflicts, pr_rebase, pr_permissions "
        "(GitHub; set GITHUB_TOKEN).\n\n"
        "Register it: claude mcp add prflow -- prflow mcp"
    ),
    invoke_without_command=True,
)


@mcp_app.callback()
def mcp(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is not None:
        return
    import anyio

    from prflow.mcp.server import serve_stdio

    anyio.run(serve_stdio)


@mcp_app.command("plugin")
def plugin(
    deploy_dir: Annotated[
        Path,
        typer.Option(
            "--deploy-dir",
            help="Where to write editor/claude-plugin/ and mcp/mcp.json. "
            "Example: --deploy-dir deploy",
        ),
    ] = Path("deploy"),
) -> None:
    """Write the Claude Code plugin (skill + MCP registration) assembled from the templates."""
    from prflow.editor_plugin import plugin_files, registration_example

    files = {PLUGIN_DIR / path: text for path, text in plugin_files().items()}
    files[REGISTRATION_FILE] = registration_example()
    for relative, text in files.items():
        target = deploy_dir / relative
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        except OSError as err:
            raise UserError(
                f"cannot write {target}: {err.strerror}; choose another --deploy-dir"
            ) from err
        typer.echo(f"wrote {target}")


def register(app: typer.Typer) -> None:
    app.add_typer(mcp_app)
