"""The impact graph: directly changed sources and who is affected through imports."""

from __future__ import annotations

from prflow.analysis.findings import ImpactEdge
from prflow.analysis.impact_graph import build_impact_graph
from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.imports import build_import_graph
from prflow.source_tree import MemoryTree

CHAIN = {
    "core.py": "VALUE = 1\n",
    "service.py": "import core\n",
    "api.py": "from service import *\n",
    "cli.py": "import api\n",
    "tools.py": "import core\n",
    "plugins.py": "import tools\n",
    "tests/test_core.py": "import core\n",
    "docs/guide.md": "core.VALUE\n",
}


def _source(path: str, status: FileStatus = FileStatus.modified, **extra: str) -> ChangedFile:
    return ChangedFile(path=path, status=status, category=FileCategory.source, **extra)


def test_transitive_importers_are_indirectly_affected_unless_changed() -> None:
    graph = build_import_graph(MemoryTree(CHAIN))
    changed = [
        _source("core.py"),
        _source("tools.py"),
        ChangedFile(path="docs/guide.md", status=FileStatus.modified, category=FileCategory.doc),
    ]
    impact = build_impact_graph(changed, graph)
    assert impact.directly_changed == ["core.py", "tools.py"]
    assert impact.indirectly_affected == [
        "api.py",
        "cli.py",
        "plugins.py",
        "service.py",
        "tests/test_core.py",
    ]
    assert ImpactEdge(importer="tools.py", imported="core.py") in impact.edges
    assert ImpactEdge(importer="cli.py", imported="api.py") in impact.edges
    assert ImpactEdge(importer="plugins.py", imported="tools.py") in impact.edges
    assert len(impact.edges) == len({(e.importer, e.imported) for e in impact.edges})


def test_max_depth_limits_the_walk_to_direct_importers() -> None:
    graph = build_import_graph(MemoryTree(CHAIN))
    impact = build_impact_graph([_source("core.py")], graph, max_depth=1)
    assert impact.indirectly_affected == ["service.py", "tests/test_core.py", "tools.py"]


def test_deleted_file_importers_come_from_the_base_graph() -> None:
    base = {"gone.py": "def f(): ...\n", "user.py": "import gone\n", "app.py": "import user\n"}
    head = {"user.py": "import gone\n", "app.py": "import user\n"}
    changed = [_source("gone.py", FileStatus.deleted)]
    head_graph = build_import_graph(MemoryTree(head))
    base_graph = build_import_graph(MemoryTree(base))

    impact = build_impact_graph(changed, head_graph, base_graph=base_graph)
    assert impact.directly_changed == ["gone.py"]
    assert impact.indirectly_affected == ["app.py", "user.py"]
    assert impact.edges == [
        ImpactEdge(importer="app.py", imported="user.py"),
        ImpactEdge(importer="user.py", imported="gone.py"),
    ]
    # Without the base graph nobody is known to import a file that no longer exists.
    assert build_impact_graph(changed, head_graph).indirectly_affected == []


def test_renamed_file_keeps_importers_of_its_old_path() -> None:
    base = {"old.py": "X = 1\n", "stale.py": "import old\n", "moved.py": "import old\n"}
    head = {"new.py": "X = 1\n", "stale.py": "import old\n", "moved.py": "import new\n"}
    changed = [_source("new.py", FileStatus.renamed, old_path="old.py"), _source("moved.py")]
    impact = build_impact_graph(
        changed,
        build_import_graph(MemoryTree(head)),
        base_graph=build_import_graph(MemoryTree(base)),
    )
    assert impact.directly_changed == ["moved.py", "new.py"]
    assert impact.indirectly_affected == ["stale.py"]
    assert ImpactEdge(importer="moved.py", imported="new.py") in impact.edges
