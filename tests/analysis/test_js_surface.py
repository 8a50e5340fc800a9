"""JS/TS packages compared by the names their entry points export, not file by file."""

from __future__ import annotations

import json

from prflow.analysis.breaking import find_breaking_changes
from prflow.analysis.findings import BreakingKind
from prflow.changes import ChangedFile, FileStatus
from prflow.source_tree import MemoryTree

MANIFEST = json.dumps({"name": "lib", "exports": {".": {"types": "./index.d.ts"}}})


def test_a_declaration_moved_to_another_file_but_still_exported_is_no_break() -> None:
    base = {
        "package.json": MANIFEST,
        "index.d.ts": "export * from './util';\n",
        "util.d.ts": "export declare function pad(s: string, n: number): string;\n",
    }
    head = {
        "package.json": MANIFEST,
        "index.d.ts": "export { pad as pad } from './text/pad';\n",
        "text/pad.d.ts": "export declare function pad(s: string, n: number): string;\n",
    }
    changed = [
        ChangedFile(path="index.d.ts", status=FileStatus.modified),
        ChangedFile(path="text/pad.d.ts", old_path="util.d.ts", status=FileStatus.renamed),
    ]

    assert find_breaking_changes(changed, MemoryTree(base), MemoryTree(head), None, None) == []


def test_internal_modules_the_entry_point_never_exports_are_not_an_api() -> None:
    base = {
        "package.json": MANIFEST,
        "index.d.ts": "export { a } from './a';\n",
        "a.d.ts": "export declare function a(): void;\n",
        "internal.d.ts": "export declare function helper(x: number): void;\n",
    }
    head = {**base, "internal.d.ts": "export declare function other(): void;\n"}
    changed = [ChangedFile(path="internal.d.ts", status=FileStatus.modified)]

    assert find_breaking_changes(changed, MemoryTree(base), MemoryTree(head), None, None) == []


def test_declare_namespace_members_behind_export_equals_are_compared() -> None:
    manifest = json.dumps({"name": "ui", "types": "index.d.ts"})
    body = (
        "declare namespace UI {\n  function render(node: Node): void;\n"
        "  const version: string;\n}\n"
    )
    base = {"package.json": manifest, "index.d.ts": f"export = UI;\n{body}"}
    head = {
        "package.json": manifest,
        "index.d.ts": (
            "export = UI;\ndeclare namespace UI {\n"
            "  function render(node: Node, into: Element): void;\n}\n"
        ),
    }
    changed = [ChangedFile(path="index.d.ts", status=FileStatus.modified)]

    changes = find_breaking_changes(changed, MemoryTree(base), MemoryTree(head), None, None)

    assert {(c.symbol, c.kind) for c in changes} == {
        ("version", BreakingKind.removed_export),
        ("render", BreakingKind.changed_signature),
    }
    assert all(c.file == "index.d.ts" for c in changes)


def test_declarations_win_over_sources_when_a_package_ships_both() -> None:
    base = {
        "package.json": json.dumps(
            {"name": "p", "types": "dist/index.d.ts", "main": "src/index.ts"}
        ),
        "dist/index.d.ts": "export declare function run(a: string): void;\n",
        "src/index.ts": "export function run(a: string): void {}\n",
    }
    head = {
        **base,
        "dist/index.d.ts": "export declare function run(): void;\n",
        "src/index.ts": "export function run(): void {}\n",
    }
    changed = [
        ChangedFile(path="dist/index.d.ts", status=FileStatus.modified),
        ChangedFile(path="src/index.ts", status=FileStatus.modified),
    ]

    [change] = find_breaking_changes(changed, MemoryTree(base), MemoryTree(head), None, None)

    assert (change.file, change.symbol) == ("dist/index.d.ts", "run")
    assert change.detail == "parameter `a` was removed"
