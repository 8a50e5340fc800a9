"""Breaking changes in JavaScript/TypeScript exports, base vs head, as a reviewer lists them."""

from __future__ import annotations

from prflow.analysis.breaking import find_breaking_changes
from prflow.analysis.findings import BreakingChange, BreakingKind
from prflow.analysis.js_exports import extract_exports
from prflow.changes import ChangedFile, FileStatus
from prflow.imports import build_import_graph
from prflow.severity import Severity
from prflow.source_tree import MemoryTree


def breaking(
    path: str, before: str | None, after: str | None, moved_to: str | None = None
) -> list[BreakingChange]:
    """Breaking changes when ``path`` goes from ``before`` to ``after`` (None: absent)."""
    base = {path: before} if before is not None else {}
    head_path = moved_to or path
    head = {head_path: after} if after is not None else {}
    if moved_to is not None:
        item = ChangedFile(path=moved_to, old_path=path, status=FileStatus.renamed)
    elif after is None:
        item = ChangedFile(path=path, status=FileStatus.deleted)
    else:
        item = ChangedFile(path=path, status=FileStatus.modified)
    return find_breaking_changes([item], MemoryTree(base), MemoryTree(head), None, None)


def only(changes: list[BreakingChange]) -> BreakingChange:
    assert len(changes) == 1, changes
    return changes[0]


def test_removed_function_export_is_high_with_base_line_and_declaration() -> None:
    before = (
        "export function keep(): void {}\n\nexport function parseDate(s: string): Date {\n"
        "  return new Date(s)\n}\n"
    )
    change = only(breaking("src/dates.ts", before, "export function keep(): void {}\n"))

    assert change.symbol == "parseDate"
    assert change.kind is BreakingKind.removed_export
    assert change.severity is Severity.high
    assert change.language == "typescript"
    assert change.before == "function parseDate(s: string): Date"
    assert change.line == 3


def test_unexported_helpers_are_not_part_of_the_surface() -> None:
    before = "function helper(a) { return a }\nexport const x = 1;\n"
    assert breaking("lib.js", before, "export const x = 1;\n") == []


def test_removed_class_method_is_class_dot_method() -> None:
    before = "export class Api {\n  get(id: string): Item {}\n  remove(id: string): void {}\n}\n"
    after = "export class Api {\n  get(id: string): Item {}\n}\n"

    change = only(breaking("api.ts", before, after))

    assert (change.symbol, change.kind) == ("Api.remove", BreakingKind.removed_export)
    assert change.before == "Api.remove(id: string): void"


def test_private_class_members_are_ignored() -> None:
    before = "export class A {\n  private p(): void {}\n  #q = 1;\n  r(): void {}\n}\n"
    after = "export class A {\n  r(): void {}\n}\n"
    assert breaking("a.ts", before, after) == []


def test_optional_parameter_made_required_and_parameter_type_change() -> None:
    before = "export function send(to: string, body?: string): void {}\n"
    after = "export function send(to: string[], body: string): void {}\n"

    change = only(breaking("mail.ts", before, after))

    assert change.kind is BreakingKind.changed_signature
    assert change.severity is Severity.medium
    assert change.detail == (
        "type of parameter `to` changed from string to string[]; parameter `body` became required"
    )
    assert change.after == "function send(to: string[], body: string): void"


def test_added_optional_parameter_is_not_breaking() -> None:
    before = "export const f = (a: number): number => a;\n"
    after = "export const f = (a: number, b?: number): number => a;\n"
    assert breaking("f.ts", before, after) == []


def test_changed_return_type_is_low_severity() -> None:
    change = only(
        breaking(
            "user.ts",
            "export function name(id: string): string { return get(id) }\n",
            "export function name(id: string): string | null { return get(id) }\n",
        )
    )

    assert change.kind is BreakingKind.changed_type
    assert change.severity is Severity.low
    assert change.detail == "return type changed from string to string | null"


def test_types_naming_other_types_are_not_judged_from_their_text() -> None:
    # Whether Promise<User | null> still suits old callers, or DateArg<D> accepts what
    # `D | number | string` did, is the compiler's call (see test_ts_compiler.py), not a diff's.
    before = (
        "export async function load(id: string): Promise<User> { return get(id) }\n"
        "export function add(date: D | number | string, n: number): D { return date }\n"
        "export function parse(s: any): Thing { return s }\n"
    )
    after = (
        "export async function load(id: string): Promise<User | null> { return get(id) }\n"
        "export function add(date: DateArg<D>, n: number): R { return date }\n"
        "export function parse(s: unknown): Readonly<Thing> { return s }\n"
    )
    assert breaking("dates.ts", before, after) == []


def test_renamed_export_is_paired_with_new_name() -> None:
    body = "(id: string): Promise<User> {\n  return db.users.find(id)\n}\n"
    change = only(
        breaking("users.ts", f"export function fetchUser{body}", f"export function loadUser{body}")
    )

    assert change.kind is BreakingKind.renamed_export
    assert change.symbol == "fetchUser"
    assert change.new_name == "loadUser"


def test_interface_member_changes_are_type_changes() -> None:
    before = (
        "export interface Options {\n  retries: number;\n  verbose: boolean;\n"
        "  label?: string;\n  color?: string;\n}\n"
    )
    after = (
        "export interface Options {\n  retries: string;\n  timeout: number;\n  label: string;\n}\n"
    )

    change = only(breaking("opts.ts", before, after))

    assert change.kind is BreakingKind.changed_type
    assert "member `retries: number` became `retries: string`" in change.detail
    assert "member `verbose` was removed" in change.detail
    assert "required member `timeout: number` was added" in change.detail
    assert "member `label` became required" in change.detail
    # An optional member dropped from an interface: both versions stay assignable.
    assert "color" not in change.detail


def test_enum_member_removed_and_type_alias_narrowed() -> None:
    before = "export enum Color { Red, Green }\nexport type Mode = 'a' | 'b';\n"
    after = "export enum Color { Red }\nexport type Mode = 'a';\n"

    changes = {c.symbol: c for c in breaking("types.ts", before, after)}

    assert changes["Color"].kind is BreakingKind.changed_type
    assert changes["Color"].detail == "member `Green` was removed"
    assert changes["Mode"].detail == "type changed from 'a' | 'b' to 'a'"


def test_react_component_props_type_change_in_tsx() -> None:
    before = (
        "type ButtonProps = { label: string };\n"
        "export function Button({ label }: ButtonProps) {\n  return <button>{label}</button>;\n}\n"
    )
    after = before.replace("{ label: string }", "{ label: string; onPress: () => void }")

    change = only(breaking("ui/Button.tsx", before, after))

    assert change.symbol == "Button"
    assert change.kind is BreakingKind.changed_signature
    assert change.language == "typescript"
    assert "parameter type `ButtonProps` changed" in change.detail


def test_exported_props_interface_of_jsx_component() -> None:
    before = (
        "export const Card = (props) => <div>{props.title}</div>;\n"
        "export default function Page({ title }) {\n  return <Card title={title} />;\n}\n"
    )
    after = "export default function Page({ title }, extra) {\n  return <main />;\n}\n"

    changes = breaking("Page.jsx", before, after)

    assert [(c.symbol, c.kind) for c in changes] == [
        ("Card", BreakingKind.removed_export),
        ("default", BreakingKind.changed_signature),
    ]
    assert changes[0].language == "javascript"


def test_reexports_in_a_barrel_file_without_their_targets() -> None:
    before = "export { a } from './a';\nexport * from './b';\nexport { c as see } from './c';\n"
    after = "export { a } from './a';\n"

    changes = breaking("src/index.ts", before, after)

    # `export *` is a way of exporting, not an export: what it carried is compared instead.
    assert [(c.symbol, c.kind) for c in changes] == [("see", BreakingKind.removed_export)]


def test_commonjs_exports() -> None:
    before = (
        "function connect(url) {}\nfunction close() {}\n"
        "module.exports = { connect, close, VERSION: '1' };\nexports.ping = (host) => host;\n"
    )
    after = "function connect(url, options) {}\nmodule.exports = { connect, VERSION: '2' };\n"

    changes = {c.symbol: c for c in breaking("db.cjs", before, after)}

    assert set(changes) == {"close", "ping", "connect"}
    assert changes["close"].kind is BreakingKind.removed_export
    assert changes["ping"].kind is BreakingKind.removed_export
    assert changes["connect"].detail == "required parameter `options` was added"


def test_declaration_file_signatures() -> None:
    before = (
        "export declare function render(el: Element, opts?: Options): void;\n"
        "export declare class Store {\n  get(key: string): unknown;\n  size: number;\n}\n"
    )
    after = (
        "export declare function render(el: Element, opts: Options): void;\n"
        "export declare class Store {\n  get(key: string): unknown;\n  size: string;\n}\n"
    )

    changes = {c.symbol: c for c in breaking("types/index.d.ts", before, after)}

    assert changes["render"].kind is BreakingKind.changed_signature
    assert changes["Store.size"].kind is BreakingKind.changed_type
    assert changes["Store.size"].detail == "type changed from number to string"


def test_deleted_file_removes_every_export() -> None:
    changes = breaking("old.ts", "export const A = 1;\nexport function b(): void {}\n", None)
    assert [(c.symbol, c.kind) for c in changes] == [
        ("A", BreakingKind.removed_export),
        ("b", BreakingKind.removed_export),
    ]


def test_renamed_file_moves_each_export() -> None:
    text = "export function slug(s: string): string { return s }\n"
    change = only(breaking("src/str.ts", text, text, moved_to="src/strings.ts"))

    assert change.kind is BreakingKind.renamed_export
    assert change.file == "src/str.ts"
    assert change.new_name == "src/strings.ts#slug"


def test_file_with_syntax_error_at_head_is_skipped() -> None:
    assert extract_exports("x.ts", "export function (\n") is None
    assert breaking("x.ts", "export function f(): void {}\n", "export function f(\n") == []


def test_consumers_of_a_ts_export_come_from_the_import_graph() -> None:
    base = {"src/math.ts": "export function add(a: number, b: number): number { return a + b }\n"}
    head = {
        "src/math.ts": "export function add(a: number): number { return a }\n"
        "export function sub(a: number): number { return -a }\n",
        "src/app.ts": "import { add } from './math';\nadd(1);\n",
        "src/other.ts": "import { sub } from './math';\nsub(1);\n",
    }
    head_tree = MemoryTree(head)
    changed = [ChangedFile(path="src/math.ts", status=FileStatus.modified)]

    change = only(
        find_breaking_changes(
            changed, MemoryTree(base), head_tree, build_import_graph(head_tree), None
        )
    )

    assert change.detail == "parameter `b` was removed"
    assert change.consumers == ["src/app.ts"]
