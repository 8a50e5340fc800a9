"""JS/TS import resolution, tsconfig aliases, and barrel re-export chains."""

from __future__ import annotations

from prflow.imports import ImportEdge, ImportGraph, build_import_graph
from prflow.imports.tsconfig import parse_jsonc
from prflow.source_tree import MemoryTree

WEB = {
    "tsconfig.json": """{
        // the app config; paths come from the base file
        "extends": "./tsconfig.base",
        "compilerOptions": {
            "baseUrl": ".", /* bare specifiers resolve from the root */
            "strict": true,
        },
    }""",
    "tsconfig.base.json": """{
        "compilerOptions": {
            "paths": {
                "@lib/*": ["src/lib/*", "src/fallback/*"],
                "@lib/special/*": ["src/special/*"],
                "@app": ["src/app/main.ts"],
            },
        },
    }""",
    "src/lib/math.ts": "export function add(a: number, b: number) { return a + b }\n",
    "src/lib/format.ts": "export default function format() {}\nexport const pad = 1\n",
    "src/lib/strings.ts": "export const upper = (s: string) => s.toUpperCase()\n",
    "src/lib/index.ts": (
        'export * from "./math";\n'
        'export { default as format, pad as padding } from "./format.js";\n'
        'export * as strings from "./strings";\n'
    ),
    "src/lib/local.ts": 'import { add } from "./math";\nexport { add };\n',
    "src/fallback/legacy.js": "module.exports = function legacy() {}\n",
    "src/special/thing.ts": "export const thing = 1\n",
    "src/types.d.ts": "export interface Config { debug: boolean }\n",
    "src/app/polyfill.js": "globalThis.x = 1\n",
    "src/app/chunk.mjs": "export const lazy = 1\n",
    "src/app/main.ts": (
        'import { add as plus } from "@lib/math";\n'
        'import legacy from "@lib/legacy";\n'
        'import thing from "@lib/special/thing";\n'
        'import type { Config } from "../types";\n'
        'import "./polyfill";\n'
        'import React from "react";\n'
        'import strings = require("../lib/strings");\n'
        'const chunk = await import("./chunk.mjs");\n'
    ),
    "src/app/view.tsx": (
        'import * as lib from "../lib";\n'
        'import Button from "components/Button";\n'
        "export const View = () => <Button label={lib.add(1, 2)} />;\n"
    ),
    "src/app/uses_barrel.ts": 'import { add, padding } from "../lib";\nadd(1, 2)\n',
    "src/app/other.ts": 'import { padding } from "../lib/index.js";\n',
    "src/app/entry.cjs": 'const main = require("@app");\nconst s = require("../lib/strings.ts");\n',
    "components/Button.jsx": "export default function Button() { return <button /> }\n",
    "packages/web/tsconfig.json": (
        '{"extends": "../../tsconfig.json", "compilerOptions": {"baseUrl": "./src",'
        ' "paths": {"~/*": ["./*"]}}}'
    ),
    "packages/web/src/page.ts": 'import { widget } from "~/widget";\nimport w from "widget";\n',
    "packages/web/src/widget.ts": "export const widget = 1\n",
    "broken.js": "import { from './src/lib/math'\nfunction (\n",
    "node_modules/react/index.js": 'import x from "../../src/lib/math"\n',
    "dist/bundle.js": 'import x from "../src/lib/math"\n',
}


def _graph() -> ImportGraph:
    return build_import_graph(MemoryTree(WEB))


def _from(graph: ImportGraph, importer: str) -> list[tuple[str, list[str] | None, bool]]:
    return sorted(
        (
            (edge.target, edge.names, edge.reexport)
            for edge in graph.edges
            if edge.importer == importer
        ),
        key=repr,
    )


def test_every_import_form_of_a_ts_module_resolves() -> None:
    assert _from(_graph(), "src/app/main.ts") == sorted(
        [
            ("src/lib/math.ts", ["add"], False),  # paths alias, first target; name before `as`
            ("src/fallback/legacy.js", ["default"], False),  # second target of the same alias
            ("src/special/thing.ts", ["default"], False),  # the longest matching prefix wins
            ("src/types.d.ts", ["Config"], False),  # `import type`, declaration file
            ("src/app/polyfill.js", None, False),  # side-effect import
            ("src/lib/strings.ts", None, False),  # `import x = require()`
            ("src/app/chunk.mjs", None, False),  # dynamic import()
        ],
        key=repr,
    )


def test_barrel_reexports_and_js_specifier_pointing_at_ts_source() -> None:
    assert _from(_graph(), "src/lib/index.ts") == sorted(
        [
            ("src/lib/math.ts", None, True),
            ("src/lib/format.ts", ["default", "pad"], True),
            ("src/lib/strings.ts", None, True),
        ],
        key=repr,
    )


def test_imported_then_exported_names_count_as_reexport() -> None:
    assert _from(_graph(), "src/lib/local.ts") == [("src/lib/math.ts", ["add"], True)]


def test_directory_index_base_url_require_and_tsx() -> None:
    graph = _graph()
    assert _from(graph, "src/app/view.tsx") == [
        ("components/Button.jsx", ["default"], False),
        ("src/lib/index.ts", None, False),
    ]
    assert _from(graph, "src/app/entry.cjs") == [
        ("src/app/main.ts", None, False),
        ("src/lib/strings.ts", None, False),
    ]


def test_nearest_tsconfig_wins_with_its_own_base_url_and_paths() -> None:
    # `~/widget` via the package's paths, `widget` via its baseUrl; one edge, both names.
    assert _from(_graph(), "packages/web/src/page.ts") == [
        ("packages/web/src/widget.ts", ["widget", "default"], False),
    ]


def test_vendored_build_output_and_broken_files_do_not_break_the_graph() -> None:
    graph = _graph()
    importers = {edge.importer for edge in graph.edges}
    assert not any(path.startswith(("node_modules/", "dist/")) for path in importers)
    assert all(edge.target in WEB for edge in graph.edges)


def test_symbol_consumers_follow_barrels_and_namespace_use() -> None:
    graph = _graph()
    tree = MemoryTree(WEB)
    assert graph.symbol_consumers("src/lib/math.ts", "add", tree) == [
        "src/app/main.ts",
        "src/app/uses_barrel.ts",
        "src/app/view.tsx",  # `lib.add(...)` through `import * as lib from "../lib"`
        "src/lib/index.ts",
        "src/lib/local.ts",
    ]
    # `pad` is re-exported under a new name; consumers are found by the original name.
    assert graph.symbol_consumers("src/lib/format.ts", "pad", tree) == ["src/lib/index.ts"]
    assert graph.symbol_consumers("src/lib/format.ts", "default", tree) == ["src/lib/index.ts"]


def test_transitive_importers_through_a_barrel() -> None:
    distances = _graph().transitive_importers(["src/lib/math.ts"])
    assert distances["src/lib/index.ts"] == 1
    assert distances["src/app/uses_barrel.ts"] == 2
    assert distances["src/app/view.tsx"] == 2
    assert "src/lib/math.ts" not in distances


def test_jsonc_tolerates_comments_trailing_commas_and_slashes_in_strings() -> None:
    text = '{\n  // c\n  "a": "http://x/*y*/", /* b */\n  "list": [1, 2,],\n}'
    assert parse_jsonc(text) == {"a": "http://x/*y*/", "list": [1, 2]}


def test_edges_are_plain_models_that_round_trip() -> None:
    graph = _graph()
    again = ImportGraph.model_validate_json(graph.model_dump_json())
    assert again.importers_of("src/lib/math.ts") == graph.importers_of("src/lib/math.ts")
    assert isinstance(again.edges[0], ImportEdge)


def test_extensionless_specifiers_prefer_typescript_and_plain_js_may_hold_jsx() -> None:
    graph = build_import_graph(
        MemoryTree(
            {
                "src/dup.ts": "export const a = 1\n",
                "src/dup.js": "exports.a = 1\n",
                "src/widgets/index.js": "export const w = 1\n",
                "src/view.js": (
                    'import { a } from "./dup";\nimport { w } from "./widgets";\n'
                    "export default () => <div>{a}{w}</div>;\n"
                ),
            }
        )
    )
    assert _from(graph, "src/view.js") == [
        ("src/dup.ts", ["a"], False),
        ("src/widgets/index.js", ["w"], False),
    ]
