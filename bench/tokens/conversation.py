"""The scripted model: six turns a careful reviewer of the sliced httpx PR would take.

The static findings already name the removed keywords and the deleted module,
so the model reads the per-file diffs of what it must judge itself (the type
aliases, the start of the SSL configuration, the URL class), quotes the new
``create_ssl_context``, searches for callers still passing the removed
keywords, asks which files imported the deleted ``_compat`` module, reads the
two lines it will cite, and submits. It asks neither for the changed files nor
for the tests of changed sources: the first message holds both. Both findings
are real; their evidence is checked against the repository before the run and
the report must keep them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.impact.errors import BenchError
from bench.impact.repos import git
from bench.tokens.pr_slice import SLICE_BRANCH
from tests.support.scripted_anthropic import ToolUse, Turn

DECODERS_IMPORT = (
    "httpx/_decoders.py",
    14,
    "from ._compat import brotli, zstd",
)
WSGI_DOCSTRING = ("httpx/_transports/wsgi.py", 50, "    client = httpx.Client(app=app)")

FINDINGS: list[dict[str, Any]] = [
    {
        "title": "httpx/_decoders.py still imports the deleted httpx/_compat.py",
        "category": "breaking",
        "severity": "high",
        "file": DECODERS_IMPORT[0],
        "line": DECODERS_IMPORT[1],
        "ref": "head",
        "evidence": DECODERS_IMPORT[2],
        "explanation": "The PR deletes _compat.py but _decoders.py (unchanged) imports brotli "
        "and zstd from it, so `import httpx` fails with ModuleNotFoundError.",
    },
    {
        "title": "WSGITransport docstring still shows the removed app= argument",
        "category": "stale_doc",
        "severity": "low",
        "file": WSGI_DOCSTRING[0],
        "line": WSGI_DOCSTRING[1],
        "ref": "head",
        "evidence": WSGI_DOCSTRING[2].strip(),
        "explanation": "Client(app=...) no longer exists; the example raises TypeError.",
    },
]


def turns() -> list[Turn]:
    """The six answers, in order; the last one ends the run."""
    return [
        Turn(
            text="The static findings cover the removed keywords. I will check the type "
            "aliases and the start of the SSL configuration change.",
            tool_uses=[
                ToolUse("git_diff", {"file": "httpx/_types.py"}),
                ToolUse("git_diff", {"file": "httpx/_config.py", "limit": 90}),
            ],
        ),
        Turn(
            text="create_ssl_context now takes verify first; reading its new body, and the "
            "URL diff for behaviour changes.",
            tool_uses=[
                ToolUse(
                    "read_file_at_ref",
                    {"path": "httpx/_config.py", "offset_line": 23, "limit_lines": 36},
                ),
                ToolUse("git_diff", {"file": "httpx/_urls.py"}),
            ],
        ),
        Turn(
            text="Looking for callers that still pass the removed keywords.",
            tool_uses=[
                ToolUse(
                    "search_code",
                    {"pattern": "proxies=|Client\\(app=", "glob": "*.py"},
                ),
            ],
        ),
        Turn(
            text="Which files imported the deleted module?",
            tool_uses=[ToolUse("find_importers", {"path": "httpx/_compat.py", "ref": "base"})],
        ),
        Turn(
            text="Reading the two places to cite.",
            tool_uses=[
                ToolUse(
                    "read_file_at_ref",
                    {"path": DECODERS_IMPORT[0], "offset_line": 12, "limit_lines": 4},
                ),
                ToolUse(
                    "read_file_at_ref",
                    {"path": WSGI_DOCSTRING[0], "offset_line": 48, "limit_lines": 4},
                ),
            ],
        ),
        Turn(
            tool_uses=[
                ToolUse(
                    "submit_impact_findings",
                    {
                        "summary": "Removes the deprecated proxies, cert and app keywords and "
                        "the _compat module. The removal is consistent in the public API, but "
                        "_decoders.py still imports _compat, which breaks `import httpx`.",
                        "findings": FINDINGS,
                        "recommendations": [
                            "Move brotli/zstd detection out of _compat into _decoders.py "
                            "before deleting _compat.py.",
                            "Update the WSGITransport docstring to transport=WSGITransport(...).",
                            "Drop httpx/_compat.py from the coverage omit list in pyproject.toml.",
                        ],
                    },
                )
            ]
        ),
    ]


def check_evidence(repo: Path) -> None:
    """Stop if the cited lines moved: the findings must stay real."""
    for path, line, text in (DECODERS_IMPORT, WSGI_DOCSTRING):
        lines = git(repo, "show", f"{SLICE_BRANCH}:{path}").split("\n")
        if len(lines) < line or lines[line - 1] != text:
            raise BenchError(f"{path}:{line} at {SLICE_BRANCH} is not {text!r}; update the script")
