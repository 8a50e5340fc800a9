"""The TypeScript compiler judges JS/TS type changes: real `typescript`, real `node`, real files."""

from __future__ import annotations

from pathlib import Path

from prflow.analysis.breaking_js import JsApiDiff, find_js_breaking_changes
from prflow.analysis.findings import BreakingKind
from prflow.analysis.ts_compiler import CheckRequest, TypeScriptCompiler, find_typescript
from prflow.changes import ChangedFile, FileStatus
from prflow.source_tree import DirectoryTree

MANIFEST = '{"name": "pkg", "version": "1.0.0", "types": "index.d.ts"}'


def release(root: Path, files: dict[str, str]) -> DirectoryTree:
    for path, text in {"package.json": MANIFEST, **files}.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return DirectoryTree(root)


def judged(
    tmp_path: Path, typescript: Path, before: dict[str, str], after: dict[str, str]
) -> JsApiDiff:
    base = release(tmp_path / "base", before)
    head = release(tmp_path / "head", after)
    changed = [
        ChangedFile(path=p, status=FileStatus.modified) for p in sorted(set(before) | set(after))
    ]
    return find_js_breaking_changes(changed, base, head, compiler=TypeScriptCompiler(typescript))


def test_type_changes_that_old_callers_still_compile_against_are_no_break(
    tmp_path: Path, typescript_package: Path
) -> None:
    before = {
        "index.d.ts": (
            "export declare function addDays<D extends Date>(date: D | number | string, "
            "amount: number): D;\n"
            "export declare function parse(input: any): object;\n"
        )
    }
    after = {
        "index.d.ts": (
            "export type DateArg<D extends Date> = D | number | string;\n"
            "export declare function addDays<D extends Date, R extends Date = D>("
            "date: DateArg<D>, amount: number, options?: { in?: string }): R;\n"
            "export declare function parse(input: unknown): object;\n"
        )
    }

    diff = judged(tmp_path, typescript_package, before, after)

    assert diff.changes == []
    assert diff.not_analysed == []


def test_a_real_type_break_is_reported_with_the_compilers_reason(
    tmp_path: Path, typescript_package: Path
) -> None:
    before = {"index.d.ts": "export declare function load(id: string): Promise<string>;\n"}
    after = {"index.d.ts": "export declare function load(id: string): Promise<string | null>;\n"}

    (change,) = judged(tmp_path, typescript_package, before, after).changes

    assert (change.symbol, change.kind) == ("load", BreakingKind.changed_signature)
    assert change.detail.startswith("the TypeScript compiler: ")
    assert "null" in change.detail
    assert change.public_paths == ["load"]


def test_a_removed_parameter_breaks_although_the_new_function_is_assignable(
    tmp_path: Path, typescript_package: Path
) -> None:
    before = {"index.d.ts": "export declare function send(to: string, body: string): void;\n"}
    after = {"index.d.ts": "export declare function send(to: string): void;\n"}

    (change,) = judged(tmp_path, typescript_package, before, after).changes

    assert change.symbol == "send"
    assert change.detail == "parameter `body` was removed"


def test_private_members_and_old_internal_members_do_not_make_a_class_incompatible(
    tmp_path: Path, typescript_package: Path
) -> None:
    before = {
        "index.d.ts": (
            "export declare class Queue {\n  private items;\n"
            "  /** @internal do not use */\n  _drain(): void;\n  push(x: number): void;\n}\n"
            "export declare function make(): Queue;\n"
        )
    }
    after = {
        "index.d.ts": (
            "export declare class Queue {\n  #items: number[];\n  private size;\n"
            "  push(x: number): void;\n}\nexport declare function make(): Queue;\n"
        )
    }

    assert judged(tmp_path, typescript_package, before, after).changes == []


def test_a_break_is_reported_at_the_declaration_that_changed_not_at_its_users(
    tmp_path: Path, typescript_package: Path
) -> None:
    before = {
        "index.d.ts": "export * from './types';\nexport * from './api';\n",
        "types.d.ts": "export interface Node { id: string; children: Node[] }\n",
        "api.d.ts": (
            "import { Node } from './types';\nexport declare function root(): Node;\n"
            "export declare function walk(n: Node, f: (n: Node) => void): void;\n"
        ),
    }
    after = {**before, "types.d.ts": "export interface Node { id: number; children: Node[] }\n"}

    diff = judged(tmp_path, typescript_package, before, after)

    assert [(c.file, c.symbol) for c in diff.changes] == [("types.d.ts", "Node")]


def test_declarations_tree_sitter_cannot_read_are_judged_by_the_compiler(
    tmp_path: Path, typescript_package: Path
) -> None:
    # Call signatures separated by newlines only: valid TypeScript, a parse error for tree-sitter.
    signatures = (
        "export interface Creator {\n  (name: string): string\n"
        "  (name: string, initial: number): string\n}\n"
    )
    before = {"index.d.ts": signatures + "export declare const x: number;\n"}
    returns_number = signatures.replace("): string\n", "): number\n")
    after = {"index.d.ts": returns_number + "export declare const x: 1;\n"}

    diff = judged(tmp_path, typescript_package, before, after)

    assert [(c.symbol, c.kind) for c in diff.changes] == [("Creator", BreakingKind.changed_type)]
    assert diff.not_analysed == []


def test_without_a_working_compiler_the_structural_findings_stand_and_the_report_says_why(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "node_modules" / "typescript"
    (broken / "lib").mkdir(parents=True)
    (broken / "package.json").write_text('{"name": "typescript"}', encoding="utf-8")
    before = {"index.d.ts": "export declare function send(to: string, body: string): void;\n"}
    after = {"index.d.ts": "export declare function send(to: string): void;\n"}

    diff = judged(tmp_path, broken, before, after)

    assert [c.detail for c in diff.changes] == ["parameter `body` was removed"]
    (note,) = diff.not_analysed
    assert note.reason.startswith("the TypeScript compiler failed: ")


def test_the_repositorys_own_typescript_is_found_from_the_repository(
    tmp_path: Path, typescript_package: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    assert find_typescript(repo) is None
    (repo / "node_modules").mkdir()
    (repo / "node_modules" / "typescript").symlink_to(typescript_package)

    assert find_typescript(repo / "src") == repo / "node_modules" / "typescript"
    compiler = TypeScriptCompiler.discover(repo)
    assert compiler is not None
    assert compiler.check(CheckRequest(repo, repo, {}, [])) == {}


def test_past_the_recheck_budget_failing_overloads_keep_the_first_programs_verdicts(
    tmp_path: Path, typescript_package: Path
) -> None:
    # A package with many broken overload sets: with no time for rechecking each name
    # alone, every failing name is still judged broken (explained by the one program).
    overloads = "".join(
        f"export declare function f{i}(x: number): number;\n"
        f"export declare function f{i}(x: string): string[];\n"
        for i in range(6)
    )
    changed = overloads.replace("string[];", "number;")
    old, new = tmp_path / "base", tmp_path / "head"
    release(old, {"index.d.ts": overloads + "export declare const kept: 1;\n"})
    release(new, {"index.d.ts": changed + "export declare const kept: 1;\n"})
    names = [f"f{i}" for i in range(6)] + ["kept"]
    request = CheckRequest(old, new, {"": (old / "index.d.ts", new / "index.d.ts")}, names)
    hurried = TypeScriptCompiler(typescript_package, recheck_share=0.0)
    patient = TypeScriptCompiler(typescript_package)

    fast, slow = hurried.check(request), patient.check(request)

    broken = {f"f{i}" for i in range(6)}
    assert {name for name, reason in fast.items() if reason} == broken
    assert {name for name, reason in slow.items() if reason} == broken
    assert fast["kept"] is None


def test_an_import_condition_entry_of_d_mts_files_is_judged_by_the_compiler(
    tmp_path: Path, typescript_package: Path
) -> None:
    # A dual package: `exports` gives `import` consumers index.d.mts, which re-exports an
    # overload set from another .d.mts file under another name; the new release changes one
    # overload's return type (the argument counts stay: tree-sitter alone sees no break).
    manifest = (
        '{"name": "dual", "version": "2.0.0", "type": "module", "exports": {".": {'
        '"import": {"types": "./dist/index.d.mts", "default": "./dist/index.mjs"}, '
        '"require": {"types": "./dist/index.d.cts", "default": "./dist/index.cjs"}}}}'
    )
    overloads = (
        "export declare function pick(items: string[]): string;\n"
        "export declare function pick(items: string[], count: number): string[];\n"
    )
    retyped = overloads.replace("number): string[]", "number): Set<string>")
    entry = "export { pick as choose } from './pick.mjs';\n"

    def files(body: str) -> dict[str, str]:
        return {
            "package.json": manifest,
            "dist/index.d.mts": entry,
            "dist/pick.d.mts": body,
            "dist/index.d.cts": entry.replace(".mjs", ".cjs"),
            "dist/pick.d.cts": body,
        }

    diff = judged(tmp_path, typescript_package, files(overloads), files(retyped))

    assert diff.judge is not None and diff.judge.startswith("TypeScript")
    (change,) = diff.changes
    assert (change.symbol, change.file) == ("choose", "dist/pick.d.mts")
    assert change.kind == BreakingKind.changed_signature
    assert change.public_paths == ["choose"]
    assert "string[]" in change.detail
    # the same release pair with the overload kept: the compiler finds no break
    unchanged = judged(tmp_path / "kept", typescript_package, files(overloads), files(overloads))
    assert unchanged.changes == []
