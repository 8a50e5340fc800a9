"""The structure of a change, computed: files, clusters, blast radius, dependency graph, stats.

Clusters group files that belong together, by directory and by import: a
changed module, the changed modules that import it, and the tests that
import it (or are named after it) review as one unit. The blast radius and
the per-file dependents come from the same import graphs the impact analysis
uses, so the planner sees what a change can reach beyond the diff.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from pydantic import BaseModel, Field

from prflow.analysis.findings import ImpactGraph
from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.imports import ImportGraph

MAX_BLAST_RADIUS = 200
"""The blast radius lists at most this many files (nearest first); the count is exact."""
HIGH_BLAST_DEPENDENTS = 10
"""A changed file with this many dependents (direct or transitive) has a high blast radius."""

LANGUAGE_BY_SUFFIX = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".rb": "ruby",
    ".php": "php",
    ".cs": "csharp",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".swift": "swift",
    ".sql": "sql",
    ".sh": "shell",
    ".md": "markdown",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".toml": "toml",
    ".json": "json",
}


def language_of(path: str) -> str:
    return LANGUAGE_BY_SUFFIX.get(PurePosixPath(path).suffix.lower(), "other")


class FileChange(BaseModel):
    path: str
    old_path: str | None = None
    status: FileStatus
    category: FileCategory
    language: str
    additions: int
    deletions: int
    hunks: int
    binary: bool = False
    dependents: int = Field(default=0, description="Files importing this one, transitively")


class ChangeCluster(BaseModel):
    id: str
    name: str
    files: list[str]
    tests: list[str] = Field(default_factory=list)
    additions: int = 0
    deletions: int = 0


class DiffStats(BaseModel):
    files: int = 0
    additions: int = 0
    deletions: int = 0
    by_category: dict[str, int] = Field(default_factory=dict)
    languages: list[str] = Field(default_factory=list)
    test_to_code_ratio: float = Field(
        default=0.0, description="Changed test lines per changed source line"
    )


class DiffStructure(BaseModel):
    files: list[FileChange]
    clusters: list[ChangeCluster]
    blast_radius: list[str]
    blast_radius_total: int
    dependency_graph: dict[str, list[str]] = Field(
        description="Each changed file and the repository files it imports"
    )
    stats: DiffStats

    def high_blast_files(self, threshold: int = HIGH_BLAST_DEPENDENTS) -> list[str]:
        return sorted(f.path for f in self.files if f.dependents >= threshold)


class _Groups:
    """Union-find over paths: which changed files form one cluster."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.parent = {path: path for path in paths}

    def find(self, path: str) -> str:
        root = path
        while self.parent[root] != root:
            root = self.parent[root]
        self.parent[path] = root
        return root

    def join(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _directory(path: str) -> str:
    parent = PurePosixPath(path).parent.as_posix()
    return "" if parent == "." else parent


def _stem(path: str) -> str:
    name = PurePosixPath(path).stem
    for affix in ("test_", "_test", ".test", ".spec", "_spec", "tests"):
        name = name.removeprefix(affix).removesuffix(affix)
    return name


def _common_directory(paths: Sequence[str]) -> str:
    parts = [PurePosixPath(p).parent.parts for p in paths]
    common: list[str] = []
    for level in zip(*parts, strict=False):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return "/".join(common) or "(repository root)"


def clusters_of(changed: Sequence[ChangedFile], graph: ImportGraph) -> list[ChangeCluster]:
    """Changed non-test files grouped by directory and import; tests attach to what they test."""
    code = [f.path for f in changed if f.category != FileCategory.test]
    tests = [f.path for f in changed if f.category == FileCategory.test]
    groups = _Groups(code)
    by_directory: dict[str, str] = {}
    for path in code:
        directory = _directory(path)
        if directory in by_directory:
            groups.join(path, by_directory[directory])
        else:
            by_directory[directory] = path
    code_set = set(code)
    for edge in graph.edges:
        if edge.importer in code_set and edge.target in code_set:
            groups.join(edge.importer, edge.target)
    members: dict[str, list[str]] = {}
    for path in code:
        members.setdefault(groups.find(path), []).append(path)
    attached: dict[str, list[str]] = {root: [] for root in members}
    loose: list[str] = []
    imports_of: dict[str, set[str]] = {}
    for edge in graph.edges:
        if edge.target in code_set:
            imports_of.setdefault(edge.importer, set()).add(edge.target)
    for test in tests:
        targets = set(imports_of.get(test, ()))
        targets |= {p for p in code if _stem(p) and _stem(p) == _stem(test)}
        if targets:
            attached[groups.find(min(targets))].append(test)
        else:
            loose.append(test)
    counts = {f.path: (f.additions, f.deletions) for f in changed}
    result: list[ChangeCluster] = []
    for root, files in sorted(members.items(), key=lambda item: item[0]):
        everything = files + attached[root]
        result.append(
            ChangeCluster(
                id=f"c{len(result) + 1}",
                name=_common_directory(files),
                files=sorted(files),
                tests=sorted(attached[root]),
                additions=sum(counts[p][0] for p in everything),
                deletions=sum(counts[p][1] for p in everything),
            )
        )
    if loose:
        result.append(
            ChangeCluster(
                id=f"c{len(result) + 1}",
                name="tests",
                files=[],
                tests=sorted(loose),
                additions=sum(counts[p][0] for p in loose),
                deletions=sum(counts[p][1] for p in loose),
            )
        )
    return result


def build_structure(
    changed: Sequence[ChangedFile],
    hunks: Mapping[str, int],
    graph: ImportGraph,
    impact: ImpactGraph,
) -> DiffStructure:
    """The whole structure of a change, from its files, the head import graph and the
    impact analysis's graph (which knows importers of deleted and renamed files too)."""
    changed_paths = {f.path for f in changed}
    dependents = {
        f.path: len(graph.transitive_importers([f.path])) for f in changed if not f.binary
    }
    files = [
        FileChange(
            path=f.path,
            old_path=f.old_path,
            status=f.status,
            category=f.category,
            language=language_of(f.path),
            additions=f.additions,
            deletions=f.deletions,
            hunks=hunks.get(f.path, 0),
            binary=f.binary,
            dependents=dependents.get(f.path, 0),
        )
        for f in changed
    ]
    dependency_graph: dict[str, set[str]] = {}
    for edge in graph.edges:
        if edge.importer in changed_paths:
            dependency_graph.setdefault(edge.importer, set()).add(edge.target)
    nearest = graph.transitive_importers(sorted(changed_paths))
    blast = [p for p, _ in sorted(nearest.items(), key=lambda kv: (kv[1], kv[0]))]
    blast += [p for p in impact.indirectly_affected if p not in nearest and p not in changed_paths]
    by_category: dict[str, int] = {}
    for f in changed:
        by_category[f.category.value] = by_category.get(f.category.value, 0) + 1
    lines = {cat: 0 for cat in (FileCategory.source, FileCategory.test)}
    for f in changed:
        if f.category in lines:
            lines[f.category] += f.additions + f.deletions
    source_lines = lines[FileCategory.source]
    return DiffStructure(
        files=files,
        clusters=clusters_of(changed, graph),
        blast_radius=blast[:MAX_BLAST_RADIUS],
        blast_radius_total=len(blast),
        dependency_graph={k: sorted(v) for k, v in sorted(dependency_graph.items())},
        stats=DiffStats(
            files=len(changed),
            additions=sum(f.additions for f in changed),
            deletions=sum(f.deletions for f in changed),
            by_category=dict(sorted(by_category.items())),
            languages=sorted({language_of(f.path) for f in changed} - {"other"}),
            test_to_code_ratio=round(lines[FileCategory.test] / source_lines, 2)
            if source_lines
            else 0.0,
        ),
    )
