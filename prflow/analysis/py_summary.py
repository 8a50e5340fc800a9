"""One parse per Python file: its API surface and its import statements, cached by blob SHA.

The import graph and the breaking-change analysis both need every file of a
big package read; a :class:`ModuleSummary` holds what each of them takes from
one ``ast.parse``, so a file is parsed once per content, whichever asks first,
and never again for the other side of a range or a later PR (the parse cache
is keyed by git blob SHA). Both parts depend on the file's bytes alone.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

import msgspec

from prflow.analysis.parse_cache import ParsedFiles, ParserSpec
from prflow.analysis.py_surface import (
    SURFACE_VERSION,
    ModuleSurface,
    surface_of_module,
    unreadable_surface,
)
from prflow.imports.build import PythonImportSource
from prflow.imports.python_imports import IMPORTS_VERSION, PythonImports, imports_of_module
from prflow.source_tree import SourceTree

SUMMARY_VERSION = f"{SURFACE_VERSION}+{IMPORTS_VERSION}"


class ModuleSummary(msgspec.Struct, frozen=True):
    """What one Python file contributes: its surface, and its imports (None: unparsable)."""

    surface: ModuleSurface
    imports: PythonImports | None = None


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(ModuleSummary)


def read_summary(text: str, filename: str = "<module>") -> ModuleSummary:
    try:
        module = ast.parse(text, filename=filename)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        return ModuleSummary(unreadable_surface(text, exc), None)
    return ModuleSummary(
        surface_of_module(module, text.count("\n") + 1), imports_of_module(module, text)
    )


def parse_summary(text: str, path: str) -> bytes:
    """The :data:`~prflow.analysis.parse_cache.Parser` of :func:`summary_parser`."""
    return _ENCODER.encode(read_summary(text, path))


def decode_summary(data: bytes) -> ModuleSummary:
    return _DECODER.decode(data)


def summary_parser() -> ParserSpec:
    return ParserSpec("python", SUMMARY_VERSION, parse_summary)


def cached_imports(parsed: ParsedFiles, tree: SourceTree) -> PythonImportSource:
    """Import statements for :func:`~prflow.imports.build.build_import_graph`, from summaries."""

    def source(paths: Sequence[str]) -> Mapping[str, PythonImports | None]:
        found = parsed.get_many(tree, paths)
        return {path: decode_summary(data).imports for path, data in found.items()}

    return source
