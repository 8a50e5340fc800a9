"""A run's report in the format asked for: inline in the result when small, else by blob key.

Every kind that renders Markdown, JSON and SARIF keeps them under the same
three result fields, so the commands pick, fetch and write them one way.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Protocol

import typer

from prflow.cli.output_file import write_output


class OutputFormat(StrEnum):
    md = "md"
    json = "json"
    sarif = "sarif"


class RenderedResult(Protocol):
    @property
    def markdown_key(self) -> str: ...
    @property
    def report_key(self) -> str: ...
    @property
    def sarif_key(self) -> str: ...
    @property
    def inline(self) -> dict[str, str]: ...


def report_key(result: RenderedResult, output_format: OutputFormat) -> str:
    return {
        OutputFormat.md: result.markdown_key,
        OutputFormat.json: result.report_key,
        OutputFormat.sarif: result.sarif_key,
    }[output_format]


def blobs_needed(result: RenderedResult, output_format: OutputFormat) -> list[str]:
    """The blob to fetch: none when the rendering came inline in the result."""
    if output_format.value in result.inline:
        return []
    return [report_key(result, output_format)]


def emit_report(
    result: RenderedResult,
    texts: dict[str, str],
    output_format: OutputFormat,
    output: Path | None,
) -> None:
    """Print the report, or write it to ``output`` (whole or not at all)."""
    text = result.inline.get(output_format.value)
    if text is None:
        text = texts[report_key(result, output_format)]
    if output is None:
        typer.echo(text)
        return
    write_output(output, text)
    typer.echo(f"prflow: wrote {output_format.value} report to {output}", err=True)
