"""One list of JavaScript / TypeScript suffixes, and every reader of source agrees with it.

The React audit once knew six suffixes while the import graph knew eight, so an
anti-pattern written in a ``.mts`` module passed the audit unseen.
"""

from __future__ import annotations

import pytest

from prflow.js_files import JS_TS_SUFFIXES, is_js_file, is_typescript_file
from prflow.refactor.react_audit import react_findings
from prflow.refactor_index.symbols import language_of
from prflow.source_tree import MemoryTree

BEFORE = "export async function load() {\n  const user = await getUser();\n  return user;\n}\n"
AFTER = BEFORE.replace("  return user;", "  const ads = await getAds();\n  return user;")


@pytest.mark.parametrize("suffix", JS_TS_SUFFIXES)
def test_every_reader_takes_every_suffix(suffix: str) -> None:
    path = f"src/load{suffix}"
    assert is_js_file(path)
    assert language_of(path) in ("javascript", "typescript", "tsx")
    found = react_findings(path, BEFORE, AFTER, MemoryTree({path: AFTER}), ["async-parallel"])
    assert [f.check for f in found] == ["react:async-parallel"]


@pytest.mark.parametrize("path", ["a.mts", "b.cts", "c.ts", "d.tsx", "e.d.ts"])
def test_typescript_includes_its_module_suffixes(path: str) -> None:
    assert is_typescript_file(path) and language_of(path) != "javascript"


@pytest.mark.parametrize("path", ["a.py", "b.json", "c.vue", "d.ts.map", "mts"])
def test_other_files_are_not_javascript(path: str) -> None:
    assert not is_js_file(path)
