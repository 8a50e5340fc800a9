"""JS/TS packages compared by the names their entry points export, not file by file."""

from __future__ import annotations

import json
from collections.abc import Mapping

from prflow.analysis.breaking import find_breaking_changes
from prflow.analysis.breaking_js import JsApiDiff, find_js_breaking_changes
from prflow.analysis.findings import BreakingKind
from prflow.analysis.js_exports import JS_SURFACE_VERSION, read_module
from prflow.analysis.parse_cache import InputLimits, MemoryParseCache
from prflow.changes import ChangedFile, FileCategory, FileStatus
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


def package_diff(
    base_files: dict[str, str], head_files: dict[str, str], cache: MemoryParseCache | None = None
) -> JsApiDiff:
    """The JS/TS diff of a package whose every listed file changed (main entry: index.d.ts)."""
    base = {"package.json": MANIFEST, **base_files}
    head = {"package.json": MANIFEST, **head_files}
    changed = [
        ChangedFile(path=p, status=FileStatus.modified)
        for p in sorted(set(base_files) | set(head_files))
    ]
    return find_js_breaking_changes(changed, MemoryTree(base), MemoryTree(head), cache)


def test_generic_import_types_in_declarations_are_read() -> None:
    # date-fns 4 ships `fp/*.d.ts` like this; the grammar fails on `import("…").Name<T>`.
    before = 'export declare const add: import("./types.js").FPFn2<Date, number, Date>;\n'
    after = 'export declare const add: import("./types.js").FPFn2<Date, number, Date | string>;\n'
    surface = read_module("fp/add.d.ts", before)

    assert surface.damaged == ()
    assert surface.exports["add"].type_text == "FPFn2<Date, number, Date>"
    assert package_diff({"index.d.ts": before}, {"index.d.ts": after}).changes == []


def test_a_declaration_that_does_not_parse_is_listed_and_the_rest_is_compared() -> None:
    unreadable = "export interface Creator {\n  <S>(r: S): S\n  <S>(r: S, s: S): S\n}\n"
    before = unreadable + "export declare function a(x: string): void;\n"
    after = unreadable + "export declare function a(): void;\n"

    diff = package_diff({"index.d.ts": before}, {"index.d.ts": after})

    assert [(c.symbol, c.detail) for c in diff.changes] == [("a", "parameter `x` was removed")]
    assert [(n.path, n.symbol) for n in diff.not_analysed] == [("index.d.ts", "Creator")]


def test_a_declaration_file_without_export_lists_exports_every_declaration() -> None:
    before = (
        "export declare function compose<R>(f: Func0<R>): Func0<R>;\ntype Func0<R> = () => R;\n"
    )
    after = "export declare function compose<R>(f: () => R): () => R;\n"

    diff = package_diff({"index.d.ts": before}, {"index.d.ts": after})

    assert [(c.symbol, c.kind) for c in diff.changes] == [("Func0", BreakingKind.removed_export)]
    # With an export list, a declaration without `export` stays private to the file.
    private = package_diff(
        {"index.d.ts": before + "export {};\n"}, {"index.d.ts": after + "export {};\n"}
    )
    assert private.changes == []


def test_a_namespace_nested_in_a_declared_namespace_is_part_of_the_surface() -> None:
    before = (
        "declare namespace R {\n  namespace JSX { interface Element {} }\n"
        "  type Key = string;\n}\nexport = R;\n"
    )
    after = "declare namespace R {\n  type Key = string;\n}\nexport = R;\n"

    diff = package_diff({"index.d.ts": before}, {"index.d.ts": after})

    assert [(c.symbol, c.kind) for c in diff.changes] == [("JSX", BreakingKind.removed_export)]


def test_members_documented_as_internal_in_the_old_release_are_not_api() -> None:
    before = (
        "export declare class Observable {\n"
        "  /** @internal This is an internal implementation detail, do not use. */\n"
        "  _subscribe(s: unknown): void;\n"
        "  /** Internal implementation detail, do not use directly. */\n  _isScalar: boolean;\n"
        "  lift(): Observable;\n  pipe(): Observable;\n}\n"
    )
    after = (
        "export declare class Observable {\n"
        "  /** @deprecated Internal implementation detail, do not use directly. */\n"
        "  lift(): Observable;\n}\n"
    )

    diff = package_diff({"index.d.ts": before}, {"index.d.ts": after})

    # `lift` is merely documented as internal now; it is still there for old callers.
    assert [(c.symbol, c.kind) for c in diff.changes] == [
        ("Observable.pipe", BreakingKind.removed_export)
    ]


def test_interface_members_inherited_from_a_base_are_still_members() -> None:
    before = (
        "export interface Attrs { id?: string }\n"
        "export interface DialogAttrs extends Attrs { onClose: () => void; open?: boolean }\n"
        "export interface Portal extends Attrs { key: string }\n"
    )
    after = (
        "export interface Attrs { id?: string; onClose: () => void }\n"
        "export interface DialogAttrs extends Attrs { open?: boolean }\n"
        "export interface Portal extends Attrs { key: string; id?: string }\n"
    )

    diff = package_diff({"index.d.ts": before}, {"index.d.ts": after})

    found = {c.symbol: c.detail for c in diff.changes}
    assert found["Attrs"] == "required member `onClose: () => void` was added"
    # DialogAttrs has the same members as before; Portal now requires the inherited onClose
    assert set(found) == {"Attrs", "Portal"}
    assert "changes with `Attrs`" in found["Portal"]


def test_a_member_that_may_have_moved_into_an_unreadable_base_is_not_claimed() -> None:
    before = "export interface Options { locale: string; unit?: string }\n"
    after = "export interface Options extends Intl.RelativeTimeFormatOptions { unit?: string }\n"

    assert package_diff({"index.d.ts": before}, {"index.d.ts": after}).changes == []


def test_overloads_are_judged_by_the_argument_counts_they_take() -> None:
    before = "export declare function raise(error: unknown, scheduler?: Scheduler): never;\n"
    kept = (
        "export declare function raise(factory: () => unknown): never;\n"
        "export declare function raise(error: unknown, scheduler: Scheduler): never;\n"
    )
    lost = (
        "export declare function raise(error: unknown): never;\n"
        "export declare function raise(): never;\n"
    )

    assert package_diff({"index.d.ts": before}, {"index.d.ts": kept}).changes == []
    for old in (before, kept):
        (change,) = package_diff({"index.d.ts": old}, {"index.d.ts": lost}).changes
        assert change.detail == "no overload takes 2 arguments any more"


class CountingCache(MemoryParseCache):
    """Records every parse result written, so a test can see what was parsed again."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[str] = []

    def put_many(self, items: Mapping[str, bytes]) -> None:
        self.written += sorted(items)
        super().put_many(items)


def test_each_file_content_is_parsed_once_across_base_head_and_runs() -> None:
    shared = "export declare function pad(s: string): string;\n"
    base_files = {
        "index.d.ts": "export * from './pad';\nexport * from './b';\n",
        "pad.d.ts": shared,
        "b.d.ts": "export declare const b: number;\n",
    }
    head_files = {**base_files, "b.d.ts": "export declare const b: string;\n"}
    cache = CountingCache()

    first = package_diff(base_files, head_files, cache)
    parsed_first = list(cache.written)
    second = package_diff(base_files, head_files, cache)

    # index and pad are the same at base and head: one parse each; b differs: two.
    assert len(parsed_first) == 4
    assert all(key.startswith(f"js/{JS_SURFACE_VERSION}/") for key in parsed_first)
    assert cache.written == parsed_first  # the second run parsed nothing
    assert first.changes == second.changes
    assert [c.symbol for c in first.changes] == ["b"]


def _bundled(extra: str, count: int) -> str:
    """One generated declaration file for a whole API, like a bundler's output."""
    lines = [f"export declare function op{n}(value: string): void;" for n in range(count)]
    return "\n".join([*lines, extra, ""])


def test_a_bundled_declaration_file_above_the_source_limit_is_still_compared() -> None:
    # @octokit/rest 16 ships its whole API as one 1.36 MB index.d.ts, above the 1 MB limit
    # for sources; here the limit is scaled down, the file is over it all the same.
    manifest = json.dumps({"name": "rest", "types": "index.d.ts"})
    base = {
        "package.json": manifest,
        "index.d.ts": _bundled("export declare class Octokit { constructor(); }", 200),
    }
    head = {**base, "index.d.ts": _bundled("export declare const Octokit: object;", 200)}
    limits = InputLimits(max_bytes=5_000, max_lines=100)
    assert len(base["index.d.ts"]) > 5_000
    changed = [ChangedFile(path="index.d.ts", status=FileStatus.modified)]

    diff = find_js_breaking_changes(changed, MemoryTree(base), MemoryTree(head), limits=limits)

    assert diff.not_analysed == []
    assert "Octokit" in {c.symbol.split(".")[0] for c in diff.changes}
    assert InputLimits().declaration_max_bytes > 1_360_000  # @octokit/rest's fits by default


def test_a_declaration_file_above_the_declaration_limit_is_listed_not_parsed() -> None:
    manifest = json.dumps({"name": "rest", "types": "index.d.ts"})
    base = {"package.json": manifest, "index.d.ts": _bundled("", 40)}
    head = {**base, "index.d.ts": _bundled("", 30)}
    changed = [ChangedFile(path="index.d.ts", status=FileStatus.modified)]
    limits = InputLimits(max_bytes=500, declaration_max_bytes=1_000)

    diff = find_js_breaking_changes(changed, MemoryTree(base), MemoryTree(head), limits=limits)

    assert {n.path for n in diff.not_analysed} == {"index.d.ts"}
    assert any("larger than 1000 bytes" in n.reason for n in diff.not_analysed)
    assert diff.changes == []


def test_an_export_list_naming_type_and_ts_specifiers_reaches_the_declarations() -> None:
    # arktype 2 emits `export { ..., type, type Ark } from "./keywords.ts"`: `type` is a name
    # there, and `./keywords.ts` means the shipped `keywords.d.ts`.
    manifest = json.dumps({"name": "ark", "types": "out/index.d.ts"})
    base = {
        "package.json": manifest,
        "out/index.d.ts": 'export { type, parse as read } from "./keywords.ts";\n',
        "out/keywords.d.ts": (
            "export declare function type(def: string): object;\n"
            "export declare function parse(text: string): object;\n"
        ),
    }
    head = {
        **base,
        "out/keywords.d.ts": (
            "export declare function type(def: string, scope: object): object;\n"
            "export declare function parse(text: string): object;\n"
        ),
    }
    changed = [ChangedFile(path="out/keywords.d.ts", status=FileStatus.modified)]

    diff = find_js_breaking_changes(changed, MemoryTree(base), MemoryTree(head))

    assert diff.not_analysed == []
    assert {c.symbol for c in diff.changes} == {"type"}
    assert diff.changes[0].file == "out/keywords.d.ts"


def test_types_named_only_in_exports_are_lost_to_node10_consumers() -> None:
    # @typescript-eslint/utils 6 dropped `types`/`main` for `exports` alone: consumers compiling
    # with `moduleResolution: node` (node10, which ignores `exports`) find no types any more.
    body = "export declare function parse(text: string): object;\nexport type Node = object;\n"
    old_manifest = {"name": "u", "types": "dist/index.d.ts", "main": "dist/index.js"}
    new_manifest = {"name": "u", "exports": {".": {"types": "./dist/index.d.ts"}}}
    base = {"package.json": json.dumps(old_manifest), "dist/index.d.ts": body}
    head = {"package.json": json.dumps(new_manifest), "dist/index.d.ts": body}
    changed = [ChangedFile(path="package.json", status=FileStatus.modified)]  # nothing else

    diff = find_js_breaking_changes(changed, MemoryTree(base), MemoryTree(head))

    assert {(c.symbol, c.kind) for c in diff.changes} == {
        ("parse", BreakingKind.removed_export),
        ("Node", BreakingKind.removed_export),
    }
    assert all("moduleResolution: node" in c.detail for c in diff.changes)
    # with `main` still beside the declarations, node10 finds them: nothing is lost
    kept = {**head, "package.json": json.dumps({**new_manifest, "main": "dist/index.js"})}
    assert find_js_breaking_changes(changed, MemoryTree(base), MemoryTree(kept)).changes == []


def test_every_name_is_lost_when_the_new_manifest_names_no_shipped_entry() -> None:
    # @inquirer/prompts 8 shipped `"exports": {".": "./src/index.ts"}` without `src/` (its
    # publishConfig was not applied) and no `types`/`main`: no consumer resolves the package.
    body = (
        "export { default as select, Separator } from '@inquirer/select';\n"
        "export * from './confirm';\n"
    )
    confirm = "export declare function confirm(message: string): Promise<boolean>;\n"
    old_manifest = {"name": "p", "types": "./dist/index.d.ts", "main": "./dist/index.js"}
    new_manifest = {"name": "p", "type": "module", "exports": {".": "./src/index.ts"}}
    base = {"package.json": json.dumps(old_manifest), "dist/index.d.ts": body}
    base["dist/confirm.d.ts"] = confirm
    head = {**base, "package.json": json.dumps(new_manifest)}
    changed = [ChangedFile(path="package.json", status=FileStatus.modified)]

    diff = find_js_breaking_changes(changed, MemoryTree(base), MemoryTree(head))

    found = {(c.symbol, c.kind, c.file, tuple(c.public_paths)) for c in diff.changes}
    assert found == {
        ("select", BreakingKind.removed_export, "dist/index.d.ts", ("select",)),
        ("Separator", BreakingKind.removed_export, "dist/index.d.ts", ("Separator",)),
        ("confirm", BreakingKind.removed_export, "dist/confirm.d.ts", ("confirm",)),
    }
    assert all("can no longer be imported" in c.detail for c in diff.changes)
    # the whole analysis, as a run sees the change: package.json is configuration, the only
    # declaration file touched is an added one
    as_run = [
        ChangedFile(path="package.json", status=FileStatus.modified, category=FileCategory.config),
        ChangedFile(path="src/extra.d.ts", status=FileStatus.added, category=FileCategory.source),
    ]
    head_run = {**head, "src/extra.d.ts": "export declare const x: number;\n"}
    analysed = find_breaking_changes(as_run, MemoryTree(base), MemoryTree(head_run), None, None)
    assert {c.symbol for c in analysed} == {"select", "Separator", "confirm"}
    # an entry that the new release ships (for node10 too): nothing is lost
    fixed = {**new_manifest, "exports": {".": "./src/index.js"}, "types": "./src/index.d.ts"}
    shipped = {**head, "package.json": json.dumps(fixed), "src/index.d.ts": body}
    shipped["src/confirm.d.ts"] = confirm
    assert find_js_breaking_changes(changed, MemoryTree(base), MemoryTree(shipped)).changes == []
    # a package whose manifest is gone at head (moved or deleted) is not judged this way
    moved = {k: v for k, v in base.items() if k != "package.json"}
    gone = [ChangedFile(path="package.json", status=FileStatus.deleted)]
    assert find_js_breaking_changes(gone, MemoryTree(base), MemoryTree(moved)).changes == []


def test_export_equals_of_an_imported_bundle_exposes_the_bundles_names() -> None:
    """A UMD entry that is ``export =`` of a namespace import (``import * as x from
    './types/dist/x'; export = x``, echarts' typings layout) has no names of its own: its
    surface is the bundled file's export list, so changes there are breaks of the package.
    Before, the entry read as one opaque ``default`` value and nothing was compared."""
    manifest = json.dumps({"name": "charts", "types": "index.d.ts", "main": "dist/charts.js"})
    entry = (
        "import * as charts from './types/dist/charts';\n"
        "export as namespace charts;\nexport = charts;\n"
    )

    def bundle(init_params: str, extra: str, listed: str) -> str:
        return (
            f"declare function init$1({init_params}): void;\n{extra}"
            "declare const version$1: string;\n"
            f"export {{ init$1 as init, version$1 as version{listed} }};\n"
        )

    base = {
        "package.json": manifest,
        "index.d.ts": entry,
        "types/dist/charts.d.ts": bundle(
            "dom: HTMLElement", "declare function keep(x: number): void;\n", ", keep"
        ),
    }
    head = {
        **base,
        "types/dist/charts.d.ts": bundle("dom: HTMLElement, theme: string", "", ""),
    }
    changed = [ChangedFile(path="types/dist/charts.d.ts", status=FileStatus.modified)]

    changes = find_breaking_changes(changed, MemoryTree(base), MemoryTree(head), None, None)

    assert {(c.symbol, c.kind) for c in changes} == {
        ("init", BreakingKind.changed_signature),
        ("keep", BreakingKind.removed_export),
    }


def test_export_equals_of_a_required_module_exposes_its_names() -> None:
    """``import api = require('./api'); export = api`` binds the whole module as the
    package, as a namespace import does: a name removed from ``api.d.ts`` is gone for
    consumers."""
    manifest = json.dumps({"name": "api", "types": "index.d.ts"})
    entry = "import api = require('./api');\nexport = api;\n"
    base = {
        "package.json": manifest,
        "index.d.ts": entry,
        "api.d.ts": "export declare function get(url: string): void;\n"
        "export declare function post(url: string): void;\n",
    }
    head = {**base, "api.d.ts": "export declare function get(url: string): void;\n"}
    changed = [ChangedFile(path="api.d.ts", status=FileStatus.modified)]

    changes = find_breaking_changes(changed, MemoryTree(base), MemoryTree(head), None, None)

    assert [(c.symbol, c.kind) for c in changes] == [("post", BreakingKind.removed_export)]


def test_type_parameters_with_variance_annotations_are_read() -> None:
    """TypeScript 4.7's ``in``/``out`` on type parameters (effect's ``ReadonlyRecord<in out K,
    out A>``) are newer than the grammar: the declaration did not parse, its name was
    "damaged", and every export of that short name (here the namespace the entry makes of
    the module) was left out as unsure, so its removal was never reported."""
    record = (
        "export type ReadonlyRecord<in out K extends string | symbol, out A> = {\n"
        "  readonly [P in K]: A;\n};\n"
        "export declare const empty: <K extends string = never, V = never>() => Record<K, V>;\n"
    )
    base = {
        "index.d.ts": "export * as ReadonlyRecord from './ReadonlyRecord.js';\n",
        "ReadonlyRecord.d.ts": record,
    }
    head = {
        "index.d.ts": "export * as Record from './ReadonlyRecord.js';\n",
        "ReadonlyRecord.d.ts": record,
    }

    assert read_module("ReadonlyRecord.d.ts", record).damaged == ()
    changes = package_diff(base, head).changes
    assert ("ReadonlyRecord", BreakingKind.removed_export) in {(c.symbol, c.kind) for c in changes}


def test_a_name_whose_declaration_does_not_parse_is_still_lost_to_node10() -> None:
    """remeda 2 moved its types into ``exports`` only; its old ``prop`` was emitted as a
    function type with a computed destructuring key, which the grammar cannot read. The name
    is gone for node10 consumers all the same, whatever its declaration says."""
    unreadable = (
        "export declare const prop: <T, K extends keyof T = keyof T>(propName: K) => "
        "({ [propName]: value }: T) => T[K];\n"
    )
    body = "export * from './prop';\nexport declare function add(a: number, b: number): number;\n"
    old_manifest = {"name": "r", "types": "dist/index.d.ts", "main": "dist/index.js"}
    new_manifest = {"name": "r", "exports": {".": {"types": "./dist/index.d.ts"}}}
    base = {"package.json": json.dumps(old_manifest), "dist/index.d.ts": body}
    base["dist/prop.d.ts"] = unreadable
    head = {**base, "package.json": json.dumps(new_manifest)}
    changed = [ChangedFile(path="package.json", status=FileStatus.modified)]

    assert read_module("dist/prop.d.ts", unreadable).damaged == ("prop",)
    diff = find_js_breaking_changes(changed, MemoryTree(base), MemoryTree(head))

    assert {(c.symbol, c.kind) for c in diff.changes} == {
        ("add", BreakingKind.removed_export),
        ("prop", BreakingKind.removed_export),
    }


def test_a_default_exported_function_is_not_also_exported_by_its_own_name() -> None:
    """``export default function async(…)`` in a declaration file exports ``default`` only
    (fast-glob 1); the implicit export of a declaration file's unexported declarations does
    not apply to it, so dropping the default export is no removal of a name ``async``."""
    before = (
        "export interface Options { cwd?: string; }\n"
        "export default function async(source: string, options?: Options): Promise<string[]>;\n"
        "export declare function sync(source: string): string[];\n"
    )

    assert set(read_module("fglob.d.ts", before).exports) == {"Options", "default", "sync"}
