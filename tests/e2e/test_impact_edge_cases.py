"""The impact workflow on awkward repositories: huge PRs, odd files, no tests, TypeScript only.

These run the real workflow on the session's dev server with prflow's workers
in this process (faster than the console script, same activities), each on a
git repository the test builds, and check the reports a user would read.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.agent.planning import phase_plan
from prflow.analysis.findings import BreakingChange, StaleReason
from prflow.changes import FileStatus
from prflow.config import Settings, cached_settings
from prflow.impact.kind import IMPACT
from prflow.impact.models import ImpactReport
from prflow.impact.run_models import LLM_PHASE, ImpactRequest
from prflow.store.blobs import get_text
from tests.support.fixtures_temporal import run_worker
from tests.support.impact_runs import start_impact
from tests.support.sample_repos import commit_all, git, init_repo, write_files

pytestmark = pytest.mark.temporal

Files = Mapping[str, str | bytes | None]
FileMap = dict[str, str | bytes | None]


@dataclass(frozen=True)
class Analysis:
    report: ImpactReport
    markdown: str


def two_commit_repo(path: Path, base: Files, head: Files) -> Path:
    """``base`` tag on ``main``, then ``head``'s writes/deletions on branch ``feature``."""
    repo = init_repo(path)
    write_files(repo, base)
    commit_all(repo, "base")
    git(repo, "tag", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write_files(repo, head)
    return repo


async def analyse(client: Client, settings: Settings, repo: Path) -> Analysis:
    """Run the impact workflow (static mode) on ``base..feature`` and load its reports."""
    request = ImpactRequest(
        repo=str(repo),
        base="base",
        head="feature",
        llm=phase_plan(settings, IMPACT, LLM_PHASE, enabled=False),
    )
    async with run_worker(client, settings):
        handle = await start_impact(client, settings, request, f"e2e-{uuid.uuid4().hex[:10]}")
        result = await handle.result()
    db = cached_settings().resolved_database_url()
    report = ImpactReport.model_validate_json(get_text(db, result.report_key))
    assert result.score == report.risk.score
    return Analysis(report=report, markdown=get_text(db, result.markdown_key))


def by_kind(report: ImpactReport) -> dict[tuple[str, str], BreakingChange]:
    return {(b.file, b.symbol): b for b in report.breaking_changes}


# --- a 500-file pull request --------------------------------------------------------------

LARGE_PR_MODULES = 500


async def test_a_500_file_pr_uses_the_large_pr_strategy_and_completes(
    temporal_client: Client, temporal_settings: Settings, prflow_home: Path, tmp_path: Path
) -> None:
    base: FileMap = {
        "pkg/core.py": "def stable() -> int:\n    return 1\n\n\ndef retired() -> None:\n    pass\n",
        "docs/core.md": "Call `retired()` for the old value.\n",
        "web/app.ts": "export function start(): void {}\n",
    }
    head: FileMap = {
        f"pkg/generated/mod_{i:03d}.py": f"from pkg.core import stable\n\nVALUE = stable() + {i}\n"
        for i in range(LARGE_PR_MODULES)
    }
    head |= {f"web/widget_{i}.ts": f"export const widget{i} = {i};\n" for i in range(3)}
    head["pkg/core.py"] = "def stable() -> int:\n    return 1\n"
    head["docs/changelog.md"] = "retired() is gone.\n"
    repo = two_commit_repo(tmp_path / "big", base, head)
    commit_all(repo, "generate modules")

    result = await analyse(temporal_client, temporal_settings, repo)

    report = result.report
    assert report.totals.files == LARGE_PR_MODULES + 5
    assert report.large_pr.source_files_only and report.large_pr.doc_staleness_skipped
    assert any("only source files" in note for note in report.large_pr.notes)
    assert report.stale_docs == [], "doc staleness is skipped, not half-done"
    assert ("pkg/core.py", "retired") in by_kind(report), "source files are still analysed"
    assert "> **Large PR**:" in result.markdown
    assert "Stale Doc References**: not checked (large PR)" in result.markdown
    assert "Not checked: the stale documentation check is skipped" in result.markdown


# --- binary, non-UTF-8 and symlinked files --------------------------------------------------

PNG_BYTES = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x00\x00"
LATIN1_SOURCE = "# caf\xe9 cr\xe8me\ndef price() -> int:\n    return 3\n".encode("latin-1")
OUTSIDE_SECRET = "outside-the-repository-do-not-read"


async def test_binary_non_utf8_and_symlinked_files_are_listed_without_crashing(
    temporal_client: Client, temporal_settings: Settings, prflow_home: Path, tmp_path: Path
) -> None:
    # Outside the repository, a "doc" that names the removed symbol: were the escaping
    # link followed, the stale-doc check would quote this line in the report.
    outside = tmp_path / "outside.md"
    outside.write_text(f"Call `legacy_total()` here. {OUTSIDE_SECRET}\n", encoding="utf-8")
    base: FileMap = {
        "app/main.py": (
            "def run() -> int:\n    return 1\n\n\ndef legacy_total() -> int:\n    return 0\n"
        ),
        "assets/logo.png": PNG_BYTES,
    }
    head: FileMap = {
        "assets/logo.png": PNG_BYTES + b"\x00\xff" * 64,
        "assets/icon.bin": bytes(range(256)),
        "app/latin1.py": LATIN1_SOURCE,
        "app/main.py": "def run() -> int:\n    return 2\n",
    }
    repo = two_commit_repo(tmp_path / "odd", base, head)
    os.symlink("main.py", repo / "app" / "alias.py")
    os.symlink(outside, repo / "docs-escape.md")
    os.symlink("../../outside.md", repo / "app" / "escape.py")
    commit_all(repo, "odd files")

    result = await analyse(temporal_client, temporal_settings, repo)

    files = {f.path: f for f in result.report.changed_files}
    assert set(files) == {
        "assets/logo.png",
        "assets/icon.bin",
        "app/latin1.py",
        "app/main.py",
        "app/alias.py",
        "app/escape.py",
        "docs-escape.md",
    }
    logo = files["assets/logo.png"]
    assert logo.binary and logo.status is FileStatus.modified
    assert files["assets/icon.bin"].binary
    assert not files["app/latin1.py"].binary
    for path in files:
        assert f"`{path}`" in result.markdown, f"{path} missing from the Markdown report"
    assert ("app/main.py", "legacy_total") in by_kind(result.report), "analysis still ran"
    assert OUTSIDE_SECRET not in result.report.model_dump_json()
    assert OUTSIDE_SECRET not in result.markdown


# --- a repository without tests -------------------------------------------------------------


async def test_without_any_tests_every_changed_source_file_is_a_gap(
    temporal_client: Client, temporal_settings: Settings, prflow_home: Path, tmp_path: Path
) -> None:
    base: FileMap = {
        "calc/add.py": "def add(a: int, b: int) -> int:\n    return a + b\n",
        "calc/mul.py": "def mul(a: int, b: int) -> int:\n    return a * b\n",
        "ui/format.ts": "export function pad(s: string): string {\n  return s;\n}\n",
        "README.md": "# calc\n",
    }
    head: FileMap = {
        "calc/add.py": "def add(a: int, b: int) -> int:\n    return b + a\n",
        "calc/mul.py": "def mul(a: int, b: int) -> int:\n    return b * a\n",
        "ui/format.ts": "export function pad(s: string): string {\n  return ` ${s}`;\n}\n",
        "README.md": "# calc, now commutative\n",
    }
    repo = two_commit_repo(tmp_path / "untested", base, head)
    commit_all(repo, "refactor")

    result = await analyse(temporal_client, temporal_settings, repo)

    report = result.report
    sources = {"calc/add.py", "calc/mul.py", "ui/format.ts"}
    assert {gap.source_file for gap in report.test_gaps} == sources
    assert not any(gap.test_exists or gap.tests_updated for gap in report.test_gaps)
    assert (report.coverage.changed_source_files, report.coverage.with_test_updates) == (3, 0)
    assert "0% of changed source files have test updates (0 of 3)" in result.markdown


# --- TypeScript only: every kind of breaking change, and the docs that name them ------------

TS_BASE: FileMap = {
    "src/lib.ts": (
        "export function removedFn(a: number): number {\n  return a;\n}\n\n"
        "export function oldName(text: string): string {\n  return text.trim();\n}\n\n"
        "export function resize(width: number): number {\n  return width * 2;\n}\n\n"
        "export const LIMIT: number = 10;\n\n"
        "export class Store {\n"
        "  get(key: string): string {\n    return key;\n  }\n\n"
        "  drop(key: string): void {\n    void key;\n  }\n}\n\n"
        "export function helper(): number {\n  return 1;\n}\n"
    ),
    "src/index.ts": "export { Store, helper } from './lib';\n",
    "src/uses_lib.ts": (
        "import { removedFn, oldName, resize, LIMIT } from './lib';\n\n"
        "export const out = [removedFn(1), oldName(' a '), resize(3), LIMIT];\n"
    ),
    "src/StorePanel.tsx": (
        "import { Store } from './index';\n\n"
        "export function StorePanel(): string {\n"
        "  const store = new Store();\n  store.drop('k');\n  return store.get('v');\n}\n"
    ),
    "src/uses_barrel.ts": "import { helper } from './index';\n\nexport const one = helper();\n",
    "docs/api.md": (
        "# API\n\nCall `removedFn()` to get the number back.\n\nUse `oldName()` to trim text.\n"
    ),
}
TS_HEAD: FileMap = {
    "src/lib.ts": (
        "export function newName(text: string): string {\n  return text.trim();\n}\n\n"
        "export function resize(width: number, height: number): number {\n"
        "  return width * height;\n}\n\n"
        "export const LIMIT: string = '10';\n\n"
        "export class Store {\n"
        "  get(key: string): string {\n    return key;\n  }\n}\n\n"
        "export function helper(): number {\n  return 1;\n}\n"
    ),
    "src/index.ts": "export { Store } from './lib';\n",
}
TS_EXPECTED = {
    ("src/lib.ts", "removedFn"): ("removed_export", "src/uses_lib.ts"),
    ("src/lib.ts", "oldName"): ("renamed_export", "src/uses_lib.ts"),
    ("src/lib.ts", "resize"): ("changed_signature", "src/uses_lib.ts"),
    ("src/lib.ts", "LIMIT"): ("changed_type", "src/uses_lib.ts"),
    ("src/lib.ts", "Store.drop"): ("removed_export", "src/StorePanel.tsx"),
    ("src/index.ts", "helper"): ("removed_export", "src/uses_barrel.ts"),
}


@pytest.fixture
def ts_repo(tmp_path: Path) -> Path:
    repo = two_commit_repo(tmp_path / "web", TS_BASE, TS_HEAD)
    commit_all(repo, "reshape the library")
    return repo


async def test_ts_change_reports_every_breaking_kind_with_its_consumers(
    temporal_client: Client, temporal_settings: Settings, prflow_home: Path, ts_repo: Path
) -> None:
    result = await analyse(temporal_client, temporal_settings, ts_repo)

    found = by_kind(result.report)
    for key, (kind, consumer) in TS_EXPECTED.items():
        assert key in found, f"{key} not reported; found {sorted(found)}"
        change = found[key]
        assert change.kind.value == kind, change
        assert change.language == "typescript"
        assert consumer in change.consumers, change
    assert found[("src/lib.ts", "oldName")].new_name == "newName"
    assert "| `src/lib.ts`" in result.markdown and "`oldName` → `newName`" in result.markdown


async def test_docs_naming_removed_or_renamed_symbols_are_reported_stale(
    temporal_client: Client, temporal_settings: Settings, prflow_home: Path, ts_repo: Path
) -> None:
    result = await analyse(temporal_client, temporal_settings, ts_repo)

    stale = {(ref.doc_file, ref.target.split(".")[-1]): ref for ref in result.report.stale_docs}
    removed = stale[("docs/api.md", "removedFn")]
    assert (removed.line, removed.reason) == (3, StaleReason.removed_symbol)
    renamed = stale[("docs/api.md", "oldName")]
    assert (renamed.line, renamed.reason) == (5, StaleReason.renamed_symbol)
    assert renamed.replacement is not None and renamed.replacement.endswith("newName")
    assert "docs/api.md`:3" in result.markdown
