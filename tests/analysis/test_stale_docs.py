"""Stale documentation: docs at head naming what the PR removed, renamed or deleted."""

from __future__ import annotations

from prflow.analysis.breaking import find_breaking_changes
from prflow.analysis.findings import BreakingChange, BreakingKind, StaleReason
from prflow.analysis.stale_docs import find_stale_doc_refs, is_doc_path
from prflow.changes import ChangedFile, FileStatus
from prflow.severity import Severity
from prflow.source_tree import MemoryTree


def change(
    symbol: str, kind: BreakingKind = BreakingKind.removed_export, new_name: str | None = None
) -> BreakingChange:
    return BreakingChange(
        file="src/lib.py",
        symbol=symbol,
        kind=kind,
        severity=Severity.high,
        language="python",
        detail="",
        new_name=new_name,
    )


MODIFIED = [ChangedFile(path="src/lib.py", status=FileStatus.modified)]


def test_removed_symbol_named_in_a_guide_is_reported_with_line_and_excerpt() -> None:
    head = MemoryTree(
        {
            "docs/guide.md": "# Guide\n\nCall `slugify(title)` to build URLs.\n\nUnrelated line.\n",
            "src/lib.py": "",
        }
    )

    [ref] = find_stale_doc_refs(MODIFIED, [change("slugify")], head)

    assert ref.doc_file == "docs/guide.md"
    assert ref.line == 3
    assert ref.target == "slugify"
    assert ref.reason is StaleReason.removed_symbol
    assert ref.excerpt == "Call `slugify(title)` to build URLs."
    assert ref.replacement is None


def test_renamed_symbol_carries_its_replacement_and_matches_the_qualified_name() -> None:
    head = MemoryTree(
        {
            "README.md": "Use client.fetch_all() or\n`Client.fetch_all` for batches.\n",
            "docs/api.rst": "Methods\n=======\n\n.. automethod:: Client.fetch_all\n",
        }
    )
    renamed = change("Client.fetch_all", BreakingKind.renamed_export, new_name="Client.fetch_many")

    refs = find_stale_doc_refs(MODIFIED, [renamed], head)

    assert [(r.doc_file, r.line) for r in refs] == [
        ("README.md", 1),
        ("README.md", 2),
        ("docs/api.rst", 4),
    ]
    assert {r.reason for r in refs} == {StaleReason.renamed_symbol}
    assert {r.replacement for r in refs} == {"Client.fetch_many"}


def test_common_word_names_count_only_inside_code() -> None:
    head = MemoryTree(
        {
            "docs/usage.md": (
                "We get the data and run the job.\n"  # prose: not stale
                "```python\n"
                "result = run(job)\n"  # fenced code: stale
                "```\n"
                "Then call ``get``.\n"  # inline code: stale
            ),
        }
    )

    refs = find_stale_doc_refs(MODIFIED, [change("run"), change("get")], head)

    assert [(r.line, r.target) for r in refs] == [(3, "run"), (5, "get")]


def test_member_with_a_common_name_needs_its_class() -> None:
    head = MemoryTree({"docs/a.md": "Call `close()` when done.\nOr `Session.close()`.\n"})

    refs = find_stale_doc_refs(MODIFIED, [change("Session.close")], head)

    assert [(r.line, r.target) for r in refs] == [(2, "Session.close")]


def test_deleted_path_in_a_link_code_span_or_relative_link() -> None:
    changed = [ChangedFile(path="scripts/migrate_db.py", status=FileStatus.deleted)]
    head = MemoryTree(
        {
            "README.md": "Run `python scripts/migrate_db.py` first.\n",
            "docs/ops/runbook.md": (
                "See [the script](../../scripts/migrate_db.py).\n"
                "Or `migrate_db.py` directly.\n"
                "The scripts.migrate_db module is gone.\n"
                "Nothing here.\n"
            ),
        }
    )

    refs = find_stale_doc_refs(changed, [], head)

    assert [(r.doc_file, r.line, r.target) for r in refs] == [
        ("README.md", 1, "scripts/migrate_db.py"),
        ("docs/ops/runbook.md", 1, "scripts/migrate_db.py"),
        ("docs/ops/runbook.md", 2, "scripts/migrate_db.py"),
        ("docs/ops/runbook.md", 3, "scripts.migrate_db"),
    ]
    assert {r.reason for r in refs} == {StaleReason.deleted_path}


def test_renamed_path_reports_the_new_path() -> None:
    changed = [
        ChangedFile(path="docs/setup.md", old_path="docs/install.md", status=FileStatus.renamed)
    ]
    head = MemoryTree({"README.md": "Read [install](docs/install.md).\n", "docs/setup.md": "x\n"})

    [ref] = find_stale_doc_refs(changed, [], head)

    assert (ref.target, ref.reason, ref.replacement) == (
        "docs/install.md",
        StaleReason.renamed_path,
        "docs/setup.md",
    )


def test_docs_that_do_not_name_the_change_are_not_flagged() -> None:
    changed = [ChangedFile(path="src/utils/index.ts", status=FileStatus.deleted)]
    head = MemoryTree(
        {
            "README.md": "slugifyAll is great; unslugify too. See `src/app/index.ts`.\n",
            "src/app/index.ts": "",
            "CHANGELOG.md": "- Removed `slugify`.\n",
            "notes.txt": "slugify\n",
            "docs/deep.md": "Edit `index.ts` in src/utils2/index.ts.\n",
        }
    )

    assert find_stale_doc_refs(changed, [change("slugify")], head) == []


def test_doc_file_selection() -> None:
    assert is_doc_path("README")
    assert is_doc_path("pkg/README.rst")
    assert is_doc_path("site/content/intro.mdx")
    assert is_doc_path("docs/faq.txt")
    assert not is_doc_path("requirements.txt")
    assert not is_doc_path("CHANGELOG.md")
    assert not is_doc_path("node_modules/left-pad/README.md")
    assert not is_doc_path("src/app.py")


def test_end_to_end_with_breaking_changes_from_code() -> None:
    base = {
        "src/format.ts": "export function formatMoney(cents: number): string { return '' }\n",
        "docs/money.md": "Use `formatMoney(cents)` to print prices.\n",
    }
    head = {"src/format.ts": "export {}\n", "docs/money.md": base["docs/money.md"]}
    changed = [ChangedFile(path="src/format.ts", status=FileStatus.modified)]
    breaking = find_breaking_changes(changed, MemoryTree(base), MemoryTree(head), None, None)

    [ref] = find_stale_doc_refs(changed, breaking, MemoryTree(head))

    assert (ref.doc_file, ref.line, ref.target) == ("docs/money.md", 1, "formatMoney")


def test_a_removed_name_still_defined_in_any_analysed_source_suffix_is_alive() -> None:
    """The check reads every suffix the analyses share (``.mts``, ``.cts``, ``.cjs`` too)."""
    doc = {"docs/guide.md": "# Guide\n\nCall `slugify(title)` to build URLs.\n"}
    for moved_to, text in (
        ("src/text.mts", "export function slugify(title: string) {}\n"),
        ("src/text.cts", "export const slugify = (t: string) => t;\n"),
        ("src/text.cjs", "function slugify(title) {}\n"),
        ("src/text.pyi", "def slugify(title: str) -> str: ...\n"),
    ):
        head = MemoryTree({**doc, "src/lib.py": "", moved_to: text})
        assert find_stale_doc_refs(MODIFIED, [change("slugify")], head) == [], moved_to
    nowhere = MemoryTree({**doc, "src/lib.py": "", "src/text.txt": "def slugify(): ...\n"})
    assert len(find_stale_doc_refs(MODIFIED, [change("slugify")], nowhere)) == 1
