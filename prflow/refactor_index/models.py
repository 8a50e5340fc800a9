"""What the refactor index knows about a repository snapshot, as pydantic values.

A :class:`FileRecord` depends only on a file's bytes and language, so it is
cached by git blob SHA and shared by every worker and run. A
:class:`RepoIndex` is one snapshot: which paths exist (with their blob SHAs),
the import edges between them, and the project-level React/Next facts. It is
stored as one JSON blob; activities pass its key.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from prflow.imports.graph import ImportEdge

SymbolKind = Literal["function", "class", "method", "component"]


class ReactMetadata(BaseModel):
    """Seed 003's ``react_metadata``: set only when the project is a React project."""

    is_component: bool = False
    is_server_component: bool | None = Field(
        default=None,
        description="True/False under a Next.js app/ directory ('use client' decides); else None",
    )
    uses_hooks: list[str] = Field(default_factory=list)
    has_suspense_boundary: bool = False
    is_barrel_file: bool = False


class SymbolRecord(BaseModel):
    """A function, class, method or component declared in a file."""

    name: str
    kind: SymbolKind
    line: int = Field(description="1-based first line")
    end_line: int
    signature: str = Field(description="The declaration's first line, trimmed")
    doc: str = Field(default="", description="Leading docstring / JSDoc, shortened")
    body_head: str = Field(default="", description="The start of the body, for embedding")
    exported: bool = False
    hooks: list[str] = Field(default_factory=list, description="React hooks called inside")
    renders_suspense: bool = False
    returns_jsx: bool = False


class FileRecord(BaseModel):
    """The parse of one file's content: symbols, exports, imports and its words."""

    language: Literal["python", "javascript", "typescript", "tsx"]
    doc: str = ""
    symbols: list[SymbolRecord] = Field(default_factory=list)
    exports: list[str] = Field(default_factory=list)
    imports: list[str] = Field(
        default_factory=list, description="Module specifiers as written (dotted or quoted)"
    )
    terms: dict[str, int] = Field(
        default_factory=dict, description="Lower-cased identifier parts and words, with counts"
    )
    directive: Literal["use client", "use server"] | None = None
    is_barrel: bool = False


class IndexedFile(BaseModel):
    """One path of the snapshot and the content it had."""

    path: str
    blob_sha: str
    language: str


class RepoIndex(BaseModel):
    """One snapshot's index: files by path, import edges, project facts."""

    version: str
    include: list[str] = Field(default_factory=list, description="gitignore-style patterns")
    exclude: list[str] = Field(default_factory=list)
    files: list[IndexedFile] = Field(default_factory=list)
    config_paths: list[str] = Field(
        default_factory=list, description="tsconfig/jsconfig/package.json files of the tree"
    )
    edges: list[ImportEdge] = Field(default_factory=list)
    is_react_project: bool = False
    is_next_project: bool = False
    skipped: dict[str, str] = Field(
        default_factory=dict, description="Matched paths that were not indexed, with the reason"
    )

    def blob_of(self, path: str) -> str | None:
        return next((f.blob_sha for f in self.files if f.path == path), None)

    def paths(self) -> list[str]:
        return [f.path for f in self.files]


class EmbeddingRecord(BaseModel):
    """Seed 003's per-symbol metadata record (without the vector, which lives in the store)."""

    file_path: str
    symbol: str
    type: str
    dependencies: list[str]
    imports: list[str]
    hash: str
    react_metadata: ReactMetadata | None = None
