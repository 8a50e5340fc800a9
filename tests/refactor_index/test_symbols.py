"""Symbols, exports, imports and React facts read from real Python and JS/TS/JSX/TSX sources."""

from __future__ import annotations

import pytest

from prflow.refactor_index.symbols import decode_record, language_of, parse_file, read_file

PYTHON = '''"""Storage helpers."""
from .paths import clean as tidy
import os.path, json
__all__ = ["read_blob", "Store"]

@cache
def read_blob(path: str) -> bytes:
    """Read one blob from disk."""
    return open(path, "rb").read()

def _private():
    pass

class Store(Base):
    """A store."""
    async def put(self, key: str) -> None:
        pass
'''

TSX = """"use client";
import React, { Suspense, useState } from "react";
import { fetchUser } from "@/lib/api";

/** Shows one user. */
export const UserCard = ({ id }: { id: string }) => {
  const [open, setOpen] = useState(false);
  React.useEffect(() => {}, []);
  return <Suspense fallback={null}><div>{id}</div></Suspense>;
};

export default function Page() {
  return <UserCard id="1" />;
}

function helper(x: number): number { return x + 1; }

export class Client extends Base {
  async load(): Promise<void> {}
}

const lazy = require("./lazy");
"""


def test_python_functions_classes_methods_exports_and_imports() -> None:
    record = read_file(PYTHON, "pkg/store.py")

    assert record.language == "python"
    assert record.doc == "Storage helpers."
    names = {(s.name, s.kind, s.exported) for s in record.symbols}
    assert names == {
        ("read_blob", "function", True),
        ("_private", "function", False),
        ("Store", "class", True),
        ("Store.put", "method", True),
    }
    read_blob = next(s for s in record.symbols if s.name == "read_blob")
    assert (read_blob.line, read_blob.end_line) == (7, 9)
    assert read_blob.signature == "def read_blob(path: str) -> bytes:"
    assert read_blob.doc == "Read one blob from disk."
    assert record.exports == ["read_blob", "Store"]
    assert record.imports == [".paths", "os.path", "json"]
    assert record.terms["blob"] >= 2 and "def" not in record.terms


def test_python_exports_default_to_public_top_level_names() -> None:
    record = read_file("def a():\n    pass\ndef _b():\n    pass\nclass C:\n    pass\n", "m.py")
    assert record.exports == ["a", "C"]


def test_tsx_components_hooks_suspense_directive_exports_and_imports() -> None:
    record = read_file(TSX, "app/user/page.tsx")

    by_name = {s.name: s for s in record.symbols}
    assert set(by_name) == {"UserCard", "Page", "helper", "Client", "Client.load"}
    card = by_name["UserCard"]
    assert card.kind == "component"
    assert sorted(card.hooks) == ["useEffect", "useState"]
    assert card.renders_suspense and card.exported
    assert card.doc == "Shows one user."
    assert by_name["Page"].kind == "component" and not by_name["Page"].renders_suspense
    assert by_name["helper"].kind == "function" and not by_name["helper"].exported
    assert by_name["Client.load"].kind == "method"
    assert record.exports == ["UserCard", "default", "Client"]
    assert record.imports == ["react", "@/lib/api", "./lazy"]
    assert record.directive == "use client"
    assert not record.is_barrel


@pytest.mark.parametrize(
    ("path", "text", "barrel"),
    [
        ("index.ts", 'export * from "./a";\nexport { b as c } from "./b";\n', True),
        ("index.js", 'import { a } from "./a";\nexport { a };\n', True),
        ("index.ts", 'export * from "./a";\nexport const x = 1;\n', False),
        ("pkg/__init__.py", '"""Doc."""\nfrom .a import b\n__all__ = ["b"]\n', True),
        ("pkg/__init__.py", "from .a import b\nX = 1\n", False),
    ],
)
def test_barrel_files_only_pass_names_on(path: str, text: str, barrel: bool) -> None:
    assert read_file(text, path).is_barrel is barrel


def test_jsx_files_are_read_with_jsx_and_reported_as_javascript() -> None:
    record = read_file("export function Box() { return <div/>; }\n", "src/Box.jsx")
    assert record.language == "javascript"
    assert [s.kind for s in record.symbols] == ["component"]


def test_broken_source_still_yields_what_parses() -> None:
    record = read_file("def ok():\n    return 1\n\ndef broken(:\n", "m.py")
    assert "ok" in [s.name for s in record.symbols]


def test_parse_cache_encoding_round_trips() -> None:
    record = read_file(TSX, "a.tsx")
    assert decode_record(parse_file(TSX, "a.tsx")) == record


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a.py", "python"),
        ("a.ts", "typescript"),
        ("a.tsx", "tsx"),
        ("a.mjs", "javascript"),
        ("a.jsx", "tsx"),
        ("README.md", None),
    ],
)
def test_languages_by_suffix(path: str, language: str | None) -> None:
    assert language_of(path) == language
