"""Which paths are JavaScript or TypeScript source: one list of suffixes for every reader.

The import graph, the export surface, the refactor index and the React audit
all ask this question; they ask it here so a suffix added for one (``.mts``,
``.cts``) is seen by all.
"""

from __future__ import annotations

PLAIN_JS_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs")
TS_SUFFIXES = (".ts", ".mts", ".cts")
TSX_SUFFIXES = (".tsx",)
JS_TS_SUFFIXES = PLAIN_JS_SUFFIXES + TS_SUFFIXES + TSX_SUFFIXES
"""Every JavaScript / TypeScript source suffix (JSX and TSX included)."""


def is_js_file(path: str) -> bool:
    """A JavaScript or TypeScript source file (``.d.ts`` declarations included)."""
    return path.endswith(JS_TS_SUFFIXES)


DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts")


def is_declaration_file(path: str) -> bool:
    """A TypeScript declaration file: what a package ships as its types."""
    return path.endswith(DECLARATION_SUFFIXES)


def is_typescript_file(path: str) -> bool:
    return path.endswith(TS_SUFFIXES + TSX_SUFFIXES)
