"""Tree-sitter alone (no TypeScript compiler): member types that changed meaning, subclasses."""

from __future__ import annotations

import json

from prflow.analysis.breaking import find_breaking_changes
from prflow.analysis.findings import BreakingChange, BreakingKind
from prflow.changes import ChangedFile, FileStatus
from prflow.source_tree import MemoryTree

MANIFEST = json.dumps({"name": "lib", "types": "index.d.ts"})
CHANGED = [ChangedFile(path="index.d.ts", status=FileStatus.modified)]


def _compare(base: str, head: str) -> list[BreakingChange]:
    """``export {}`` keeps unexported aliases local (a bare declaration file exports all)."""
    base, head = base + "export {};\n", head + "export {};\n"
    return find_breaking_changes(
        CHANGED,
        MemoryTree({"package.json": MANIFEST, "index.d.ts": base}),
        MemoryTree({"package.json": MANIFEST, "index.d.ts": head}),
        None,
        None,
    )


def test_an_interface_member_whose_type_names_another_type_is_a_change() -> None:
    base = "export interface Response { headers: Headers; status: number; }\n"
    head = "export interface Response { headers: RawHeaders; status: number; }\n"

    changes = _compare(base, head)

    assert [(c.symbol, c.kind) for c in changes] == [("Response", BreakingKind.changed_type)]
    assert "`headers: Headers` became `headers: RawHeaders`" in changes[0].detail
    assert "no compiler" in changes[0].detail


def test_a_member_type_spelled_another_way_is_no_change() -> None:
    base = (
        'type Cors = "anonymous" | "use-credentials" | undefined;\n'
        "export interface Img { crossOrigin?: Cors; value?: readonly string[] | number; }\n"
    )
    head = (
        'export interface Img { crossOrigin?: "use-credentials" | "anonymous";\n'
        "  value?: number | ReadonlyArray<string> | undefined; }\n"
    )

    assert _compare(base, head) == []


def test_a_member_widened_through_an_inlined_alias_is_a_change() -> None:
    base = (
        'type Cors = "anonymous" | "use-credentials";\n'
        "export interface Media { crossOrigin?: Cors; }\n"
    )
    head = "export interface Media { crossOrigin?: string; }\n"

    assert [c.symbol for c in _compare(base, head)] == ["Media"]


def test_members_typed_by_type_parameters_or_generic_aliases_are_left_to_the_compiler() -> None:
    base = (
        "type MaybeArray<T> = T | T[];\n"
        "export interface Interval<D = Date> { start: D | number; locale: string | string[]; }\n"
    )
    head = (
        "type MaybeArray<T> = T | T[];\n"
        "export interface Interval<S = Date, E = Date> { start: S; locale: MaybeArray<string>; }\n"
    )

    assert _compare(base, head) == []


def test_a_class_property_whose_type_changed_and_its_subclasses_are_reported() -> None:
    base = (
        "export declare class AxiosError { status: string; }\n"
        "export declare class CanceledError extends AxiosError {}\n"
        "export declare class Deeper extends CanceledError {}\n"
        "export declare class Unrelated { error: AxiosError; }\n"
    )
    head = base.replace("status: string", "status: number")

    changes = _compare(base, head)

    found = {c.symbol: c.detail for c in changes}
    assert set(found) == {
        "AxiosError",
        "AxiosError.status",
        "CanceledError",
        "Deeper",
        "Unrelated",
    }
    assert "changes with `AxiosError`" in found["CanceledError"]
    assert "changes with `CanceledError`" in found["Deeper"]
    # a class is compared member by member: a member typed by the changed class changes too
    assert "changes with `AxiosError`" in found["Unrelated"]


def test_an_interface_extending_a_changed_interface_changes_with_it() -> None:
    base = (
        "export interface Base { key: string; }\n"
        "export interface Child extends Base { other: number; }\n"
        "export interface Wrapper { base: Base; }\n"
    )
    head = base.replace("key: string", "key: Key")

    changes = {c.symbol: c.detail for c in _compare(base, head)}

    # the compiler compares Child member by member, inherited ones included; a member typed
    # by Base is Base's change, reported once at Base
    assert set(changes) == {"Base", "Child"}
    assert "changes with `Base`" in changes["Child"]


def test_a_union_alias_that_lost_a_member_is_a_change_and_a_function_alias_is_not_judged() -> None:
    base = (
        "export type Fragment = {} | Iterable<Node>;\n"
        "export type Node = Fragment | string | null;\n"
        "export type Effect = () => void;\n"
    )
    head = (
        "export type Fragment = Iterable<Node>;\n"
        "export type Node = Fragment | string | null;\n"
        "export type Effect = () => void | (() => void);\n"
    )

    assert {c.symbol for c in _compare(base, head)} == {"Fragment", "Node"}


def test_export_equals_of_a_class_merged_with_a_namespace_exposes_its_statics_and_namespace() -> (
    None
):
    declarations = (
        "declare class Emitter {\n  static prefixed: string;\n  emit(event: string): boolean;\n}\n"
        "declare namespace Emitter {\n  type Listener = (...args: any[]) => void;\n}\n"
    )
    base = declarations + "export = Emitter;\n"
    head = declarations + "export { Emitter };\nexport default Emitter;\n"

    removed = {c.symbol for c in _compare(base, head) if c.kind is BreakingKind.removed_export}

    # ``import E = require()`` reached ``E.prefixed``, ``E.Listener`` and ``E.prototype``;
    # ``emit`` is on instances
    assert removed == {"prefixed", "Listener", "prototype"}
