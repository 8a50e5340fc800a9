"""File-level import graph of Python and JavaScript/TypeScript sources."""

from prflow.imports.build import build_import_graph
from prflow.imports.graph import ImportEdge, ImportGraph

__all__ = ["ImportEdge", "ImportGraph", "build_import_graph"]
