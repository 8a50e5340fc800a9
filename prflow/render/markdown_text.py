"""Values made safe for a Markdown report: table cells, code spans and inert model prose.

Every kind's report puts text it does not control (paths, symbols, model-written
prose) into Markdown; these functions keep such text from opening a heading,
table, image or HTML element, or passing for a line of the report itself.
"""

from __future__ import annotations

import re

from prflow.render.active_content import drop_unsafe_links

MAX_CELL_CHARS = 300


def cell(value: object) -> str:
    """Plain text safe inside a table cell: one line, no pipes, no raw HTML, bounded length."""
    text = _truncate(str(value))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = text.replace("|", "\\|")
    return re.sub(r"\r?\n", "<br>", text.strip())


# A line starting like this would open a heading, quote, table, list, fence or setext underline.
_BLOCK_START = re.compile(r"^(\s*)(\d+)?([#>|=+*`~.)-])")


def _inert_line(line: str) -> str:
    """One line of model prose with HTML escaped, images disarmed and block syntax escaped."""
    text = drop_unsafe_links(line)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # No images (a badge could show any verdict), no table cells, no bold that could mimic
    # the report's own "**Risk Score**:" line.
    text = text.replace("![", "!\\[").replace("|", "\\|").replace("*", "\\*")
    return _BLOCK_START.sub(lambda m: f"{m[1]}{m[2] or ''}\\{m[3]}", text, count=1)


def model_quote(value: str) -> str:
    """Model prose as a Markdown block quote that renders as plain paragraphs, nothing more."""
    lines = [_inert_line(line.rstrip()) for line in value.strip().splitlines()]
    return "\n".join(f"> {line}" if line.strip() else ">" for line in lines)


def model_line(value: str) -> str:
    """Model prose on one line (a list item), rendered inert like :func:`model_quote`."""
    return _inert_line(" ".join(value.split()))


def model_cell(value: object) -> str:
    """A table cell of model prose: :func:`cell`, and no bold that could mimic a report line."""
    return cell(drop_unsafe_links(str(value))).replace("*", "\\*")


def reason(value: str) -> str:
    """A reason clause for mid-sentence use: escaped, without trailing period, never empty."""
    return cell(value).rstrip(" .") or "no reason given"


def code(value: object) -> str:
    """An inline code span that survives backticks, pipes and newlines in ``value``."""
    text = re.sub(r"\s*\r?\n\s*", " ", _truncate(str(value))).replace("|", "\\|")
    longest_run = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest_run + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def _truncate(text: str) -> str:
    if len(text) <= MAX_CELL_CHARS:
        return text
    return text[: MAX_CELL_CHARS - 1].rstrip() + "…"
