"""Tree-sitter alone (no TypeScript compiler): members, signatures and what changes reach.

Each test is one judging rule on a small declaration file, asserting the
finding a user would see (symbol and kind) or its absence.
"""

from __future__ import annotations

import json

from prflow.analysis.breaking import find_breaking_changes
from prflow.analysis.findings import BreakingChange, BreakingKind
from prflow.changes import ChangedFile, FileStatus
from prflow.source_tree import MemoryTree

MANIFEST = json.dumps({"name": "lib", "types": "index.d.ts"})


def _compare(base: str, head: str) -> list[BreakingChange]:
    """One ``index.d.ts``; ``export {}`` keeps unexported declarations local."""
    return _compare_files(
        {"index.d.ts": base + "export {};\n"}, {"index.d.ts": head + "export {};\n"}
    )


def _compare_files(base: dict[str, str], head: dict[str, str]) -> list[BreakingChange]:
    changed = [
        ChangedFile(path=path, status=FileStatus.modified)
        for path in sorted(base)
        if path in head and base[path] != head[path]
    ]
    return find_breaking_changes(
        changed,
        MemoryTree({"package.json": MANIFEST, **base}),
        MemoryTree({"package.json": MANIFEST, **head}),
        None,
        None,
    )


def _found(changes: list[BreakingChange]) -> dict[str, tuple[BreakingKind, str]]:
    return {c.symbol: (c.kind, c.detail) for c in changes}


def test_a_call_signature_parameter_made_required_is_a_change() -> None:
    base = "export interface Transformer { (data: any, headers?: Headers): any; }\n"
    head = "export interface Transformer { (this: Config, data: any, headers: Headers): any; }\n"

    found = _found(_compare(base, head))

    assert found["Transformer"][0] is BreakingKind.changed_type
    assert "call signature: parameter `headers` became required" in found["Transformer"][1]


def test_a_method_whose_overloads_take_fewer_arguments_is_a_change_a_renamed_one_is_not() -> None:
    base = (
        "export interface Subscribable<T> {\n"
        "  subscribe(observer?: Observer<T>): Unsubscribable;\n"
        "  subscribe(next?: (v: T) => void, error?: (e: any) => void): Unsubscribable;\n"
        "  unsubscribe(reason?: string): void;\n"
        "}\n"
    )
    head = (
        "export interface Subscribable<T> {\n"
        "  subscribe(observer: Partial<Observer<T>>): Unsubscribable;\n"
        "  unsubscribe(why?: string): void;\n"
        "}\n"
    )

    found = _found(_compare(base, head))

    assert set(found) == {"Subscribable"}
    # the observer became required: a call without arguments no longer compiles
    assert "member `subscribe`: no overload takes 0 arguments any more" in found["Subscribable"][1]
    assert "unsubscribe" not in found["Subscribable"][1]


def test_a_function_typed_property_that_lost_a_parameter_is_a_change() -> None:
    base = "export interface Options { onProgress: (loaded: number, total: number) => void; }\n"
    head = "export interface Options { onProgress: (loaded: number) => void; }\n"

    assert "parameter `total` was removed" in _found(_compare(base, head))["Options"][1]


def test_a_result_that_became_void_is_a_change() -> None:
    base = "export declare class Subscription { add(teardown: Teardown): Subscription; }\n"
    head = "export declare class Subscription { add(teardown: Teardown): void; }\n"

    found = _found(_compare(base, head))

    assert found["Subscription.add"][0] is BreakingKind.changed_type
    assert "return type changed from Subscription to void" in found["Subscription.add"][1]


def test_a_member_typed_any_that_became_a_function_type_is_no_change() -> None:
    base = "export interface ServerOptions { handleProtocols?: any; }\n"
    head = "export interface ServerOptions { handleProtocols?: (p: Set<string>) => string; }\n"

    assert _compare(base, head) == []


def test_an_interface_taking_members_from_an_omitted_base_changes_with_it() -> None:
    base = (
        "export interface Config { timeout: number; headers: string; }\n"
        "export interface Defaults extends Omit<Config, 'headers'> { headers: string[]; }\n"
        "export interface Later extends Promise<Config> {}\n"
    )
    head = base.replace("timeout: number", "timeout: string")

    found = _found(_compare(base, head))

    # ``Promise<Config>`` does not take Config's members: only a compiler can tell
    assert set(found) == {"Config", "Defaults"}
    assert "changes with `Config`" in found["Defaults"][1]


def test_a_class_the_entry_does_not_export_carries_its_change_to_the_values_typed_by_it() -> None:
    base = {
        "index.d.ts": "export { asyncScheduler, queue } from './async';\n",
        "async.d.ts": (
            "import { AsyncScheduler } from './AsyncScheduler';\n"
            "export declare const asyncScheduler: AsyncScheduler;\n"
            "export declare const queue: number;\n"
        ),
        "AsyncScheduler.d.ts": (
            "import { AsyncAction } from './AsyncAction';\n"
            "export declare class AsyncScheduler { actions: Array<AsyncAction<any>>; }\n"
        ),
        "AsyncAction.d.ts": "export declare class AsyncAction<T> { state: T; }\n",
    }
    head = {**base, "AsyncAction.d.ts": "export declare class AsyncAction<T> { state?: T; }\n"}

    found = _found(_compare_files(base, head))

    assert set(found) == {"asyncScheduler"}
    kind, detail = found["asyncScheduler"]
    assert kind is BreakingKind.changed_type
    assert "uses `AsyncScheduler`, which is not exported and changed" in detail


def test_the_instance_side_of_an_export_equals_class_carries_its_change_to_its_users() -> None:
    base = (
        "declare class WebSocket {\n"
        "  removeEventListener(method: string, cb?: () => void): void;\n"
        "}\n"
        "declare namespace WebSocket {\n"
        "  interface CloseEvent { code: number; target: WebSocket; }\n"
        "  interface Options { port: number; }\n"
        "}\n"
        "export = WebSocket;\n"
    )
    head = base.replace("cb?: () => void", "cb: () => void")

    found = _found(_compare_files({"index.d.ts": base}, {"index.d.ts": head}))

    assert "uses `WebSocket`, which is not exported and changed" in found["CloseEvent"][1]
    assert "Options" not in found


def test_a_unique_symbol_of_the_package_makes_everything_using_it_a_new_type() -> None:
    declarations = (
        "declare const VOID_ONLY: unique symbol;\n"
        "type Destructor = () => void | { [VOID_ONLY]: never };\n"
        "export type EffectCallback = () => void | Destructor;\n"
        "export declare function useEffect(effect: EffectCallback): void;\n"
        "export declare function useId(): string;\n"
    )

    found = _found(_compare(declarations, declarations + "\n"))

    assert set(found) == {"EffectCallback", "useEffect"}
    assert (
        "`VOID_ONLY`" in found["EffectCallback"][1] or "`Destructor`" in found["EffectCallback"][1]
    )


def test_a_union_alias_that_lost_a_named_member_is_a_change() -> None:
    base = "export type TeardownLogic = Unsubscribable | Function | void;\n"
    head = "export type TeardownLogic = Subscription | Unsubscribable | (() => void) | void;\n"

    found = _found(_compare(base, head))

    assert "no longer admits `Function`" in found["TeardownLogic"][1]


def test_an_alias_whose_intersection_gained_a_class_with_members_is_a_change() -> None:
    base = (
        "export declare class AxiosHeaders { get(name: string): string; }\n"
        "export type RequestHeaders = Record<string, string | number>;\n"
        "export type Loose = Record<string, string> & Extra;\n"
    )
    head = (
        "export declare class AxiosHeaders { get(name: string): string; }\n"
        "export type RequestHeaders = Partial<Record<string, string>> & AxiosHeaders;\n"
        "export type Loose = Record<string, string> & Extra & {};\n"
    )

    found = _found(_compare(base, head))

    assert set(found) == {"RequestHeaders"}
    assert "now also requires `AxiosHeaders`" in found["RequestHeaders"][1]


def test_a_function_rewritten_without_a_removed_type_is_a_change_an_inlined_alias_is_not() -> None:
    base = (
        "export type PreloadedState<S> = S extends object ? Partial<S> : S;\n"
        "export type Func0<R> = () => R;\n"
        "export declare function createStore<S>(state?: PreloadedState<S>): S;\n"
        "export declare function compose<R>(f: Func0<R>): Func0<R>;\n"
    )
    head = (
        "export declare function createStore<S, P = S>(state?: P | undefined): S;\n"
        "export declare function compose<R>(f: () => R): () => R;\n"
    )

    found = _found(_compare(base, head))

    assert found["PreloadedState"][0] is BreakingKind.removed_export
    assert "rewritten without `PreloadedState`" in found["createStore"][1]
    assert "compose" not in found


def test_names_using_a_changed_type_nested_in_a_namespace_change_with_it() -> None:
    base = (
        "export interface Seq<K, V> { size: number; }\n"
        "export declare namespace Seq {\n"
        "  interface Indexed<T> extends Seq<number, T> { get(index: number): T; }\n"
        "}\n"
        "export declare function Range(start?: number, end?: number): Seq.Indexed<number>;\n"
        "export declare function count(): number;\n"
    )
    head = base.replace("size: number;", "readonly size: number | undefined;")

    found = _found(_compare(base, head))

    assert "uses `Seq.Indexed`, which changed" in found["Range"][1]
    assert "count" not in found


def test_a_value_whose_object_type_became_an_interface_with_an_optional_member_is_a_change() -> (
    None
):
    base = {
        "index.d.ts": (
            "export declare const config: { Promise: PromiseLike<any>; sync: boolean };\n"
            "export declare const limits: { size: number };\n"
        ),
    }
    head = {
        "index.d.ts": (
            "import { GlobalConfig, Limits } from './config';\n"
            "export declare const config: GlobalConfig;\n"
            "export declare const limits: Limits;\n"
        ),
        "config.d.ts": (
            "export interface GlobalConfig { Promise?: PromiseLike<any>; sync: boolean; x: any }\n"
            "export interface Limits { size: number; depth?: number }\n"
        ),
    }

    found = _found(_compare_files(base, head))

    assert set(found) == {"config"}
    assert "member `Promise` of its type became optional" in found["config"][1]
