"""Affected docs found in code: what is named, how it is bucketed, mappings and links."""

from __future__ import annotations

import pytest

from prflow.analysis.categories import categorize
from prflow.analysis.findings import BreakingChange, BreakingKind
from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.docsync.doc_index import DocGlobs, doc_links, front_matter
from prflow.docsync.finding import find_affected_docs
from prflow.docsync.models import Bucket, Change, EvidenceKind, Target, TargetKind, Thresholds
from prflow.docsync.targets import find_targets
from prflow.severity import Severity
from prflow.source_tree import MemoryTree

BASE_CODE = '''
import os

def open_session(url, timeout=10):
    """Open a session."""
    token = os.environ.get("ACME_TOKEN")
    return url

def legacy_open(path):
    return path

def main(argv):
    parser.add_argument("--retries", type=int)
    parser.add_argument("--verbose")
'''
HEAD_CODE = '''
import os

def open_session(url, *, timeout, tls=True):
    """Open a session."""
    token = os.environ.get("ACME_API_TOKEN")
    return url

def main(argv):
    parser.add_argument("--verbose")
'''


def _breaking() -> list[BreakingChange]:
    return [
        BreakingChange(
            file="acme/client.py",
            symbol="open_session",
            kind=BreakingKind.changed_signature,
            severity=Severity.high,
            language="python",
            detail="parameter timeout became required",
            before="open_session(url, timeout=10)",
            after="open_session(url, *, timeout, tls=True)",
        ),
        BreakingChange(
            file="acme/client.py",
            symbol="legacy_open",
            kind=BreakingKind.removed_export,
            severity=Severity.high,
            language="python",
            detail="removed",
        ),
    ]


CHANGED = [
    ChangedFile(path="acme/client.py", status=FileStatus.modified, category=FileCategory.source),
    ChangedFile(path="acme/old_cli.py", status=FileStatus.deleted, category=FileCategory.source),
]

DOCS = {
    "docs/usage.md": "# Usage\n\nCall it:\n\n```python\nopen_session('db://x', timeout=3)\n```\n",
    "docs/prose.md": "# Prose\n\nThe open_session helper opens a link.\n",
    "docs/legacy.rst": "Legacy\n======\n\nUse ``legacy_open(path)`` to read.\n",
    "docs/cli.md": "# CLI\n\nPass `--retries 3` to retry.\n",
    "docs/env.md": "# Env\n\nSet ACME_TOKEN before running.\n",
    "docs/files.md": "# Files\n\nSee acme/old_cli.py for the entry point.\n",
    "docs/index.md": "# Index\n\n- [usage](usage.md)\n- [other](other.md)\n",
    "docs/other.md": "# Other\n\nNothing here. Back to [index](index.md).\n",
    "docs/mapped.md": (
        "---\nattention:\n  - op: file\n    path: acme/client.py\n---\n# Mapped\n\nSome text.\n"
    ),
    "docs/unrelated.md": "# Unrelated\n\nNothing about the change.\n",
    "CHANGELOG.md": "## 1.0\n\n- removed legacy_open\n",
}


def _find(thresholds: Thresholds | None = None, globs: DocGlobs | None = None):  # type: ignore[no-untyped-def]
    base = MemoryTree({"acme/client.py": BASE_CODE, "acme/old_cli.py": "x = 1\n", **DOCS})
    head = MemoryTree({"acme/client.py": HEAD_CODE, **DOCS})
    targets = find_targets(CHANGED, _breaking(), base, head)
    return find_affected_docs(
        targets,
        head,
        changed_paths=[c.path for c in CHANGED],
        globs=globs,
        thresholds=thresholds,
    )


def test_targets_cover_symbols_paths_options_and_env_vars() -> None:
    base = MemoryTree({"acme/client.py": BASE_CODE, "acme/old_cli.py": "x = 1\n"})
    head = MemoryTree({"acme/client.py": HEAD_CODE})
    found = {(t.kind, t.name): t for t in find_targets(CHANGED, _breaking(), base, head)}
    assert (TargetKind.symbol, "open_session") in found
    assert (TargetKind.symbol, "legacy_open") in found
    assert (TargetKind.path, "acme/old_cli.py") in found
    assert (TargetKind.cli_option, "--retries") in found
    assert (TargetKind.env_var, "ACME_TOKEN") in found
    assert (TargetKind.cli_option, "--verbose") not in found  # unchanged line


def test_option_lines_that_only_swapped_places_are_no_change() -> None:
    options = '    parser.add_argument("--quiet")\n    parser.add_argument("--verbose")\n'
    swapped = '    parser.add_argument("--verbose")\n    parser.add_argument("--quiet")\n'
    base = MemoryTree({"acme/cli.py": f"def main(argv):\n{options}"})
    head = MemoryTree({"acme/cli.py": f"def main(argv):\n{swapped}"})
    changed = [
        ChangedFile(path="acme/cli.py", status=FileStatus.modified, category=FileCategory.source)
    ]
    found = {(t.kind, t.name) for t in find_targets(changed, [], base, head)}
    assert not {name for kind, name in found if kind is TargetKind.cli_option}


def test_an_example_scripts_options_are_not_the_projects() -> None:
    """click 6.0 dropped an example's ``--count``; its docs define ``--count`` options of
    their own. An installed script's options still are the project's command line."""
    option = '@click.option("--count", default=1)\ndef main(count):\n    pass\n'
    base = MemoryTree({"examples/repo/repo.py": option, "scripts/tool.py": option})
    head = MemoryTree({})
    changed = [
        ChangedFile(path=path, status=FileStatus.deleted, category=FileCategory.source)
        for path in ("examples/repo/repo.py", "scripts/tool.py")
    ]
    found = [t for t in find_targets(changed, [], base, head) if t.kind is TargetKind.cli_option]
    assert [(t.name, t.source) for t in found] == [("--count", "scripts/tool.py")]


def test_each_doc_gets_a_bucket_with_the_line_that_names_the_target() -> None:
    findings = _find()
    by_path = {doc.path: doc for doc in findings.docs}
    usage = by_path["docs/usage.md"]
    assert usage.bucket == Bucket.must_update
    assert usage.evidence[0].line == 6
    assert "open_session('db://x', timeout=3)" in usage.evidence[0].excerpt
    assert by_path["docs/legacy.rst"].bucket == Bucket.must_update
    assert by_path["docs/cli.md"].bucket == Bucket.must_update
    assert by_path["docs/env.md"].evidence[0].target == "ACME_TOKEN"
    assert by_path["docs/files.md"].bucket == Bucket.must_update
    # a prose mention of a changed (not removed) signature, no call, no parameter: listed
    assert by_path["docs/prose.md"].bucket == Bucket.probably_fine
    assert "docs/unrelated.md" not in by_path
    assert "CHANGELOG.md" not in by_path  # history is not rewritten


def test_front_matter_attention_maps_a_doc_to_its_code() -> None:
    mapped = next(doc for doc in _find().docs if doc.path == "docs/mapped.md")
    assert mapped.evidence[0].kind == EvidenceKind.front_matter
    assert mapped.evidence[0].line == 4  # the line naming the path
    assert mapped.bucket == Bucket.must_update  # the file has a breaking change


def test_links_propagate_with_decay_and_cycles_end() -> None:
    by_path = {doc.path: doc for doc in _find(Thresholds(link_decay=0.5)).docs}
    index = by_path["docs/index.md"]
    assert index.evidence[0].kind == EvidenceKind.link
    assert index.evidence[0].via in {"docs/usage.md", "docs/mapped.md"}
    assert index.bucket == Bucket.review
    # other.md links to index.md (which links back): two hops, probably fine
    assert by_path["docs/other.md"].bucket == Bucket.probably_fine
    shallow = {d.path for d in _find(Thresholds(link_decay=0.5, link_depth=1)).docs}
    assert "docs/other.md" not in shallow
    # by default a linking doc is listed, with its evidence, as probably fine
    default = {doc.path: doc.bucket for doc in _find().docs}
    assert default["docs/index.md"] == Bucket.probably_fine


def test_plain_words_and_bare_members_count_only_in_code() -> None:
    targets = [
        Target(kind=TargetKind.symbol, name="Parser.errors", change=Change.removed, weight=1.0),
        Target(kind=TargetKind.symbol, name="context", change=Change.removed, weight=1.0),
        Target(kind=TargetKind.symbol, name="Schema.__init__", change=Change.signature, weight=0.9),
    ]
    docs = {
        "prose.md": "Only errors are shown; the context may vary. A Schema is a class.\n",
        "code.md": "Read `parser.errors` and `context`.\n",
        "call.md": "```python\nschema = Schema(many=True)\n```\n",
        "qualified.md": "Parser.errors was removed.\n",
        "directive.rst": "API\n===\n\n.. autofunction:: context\n",
        "doctest.rst": "Try it::\n\n>>> parser.errors\n",
    }
    found = {d.path: d for d in find_affected_docs(targets, MemoryTree(docs)).docs}
    assert "prose.md" not in found
    assert {e.target for e in found["code.md"].evidence} == {"Parser.errors", "context"}
    assert found["call.md"].evidence[0].target == "Schema.__init__"
    assert found["qualified.md"].bucket == Bucket.must_update
    assert found["directive.rst"].evidence[0].line == 4  # reST directives and doctests are code
    assert found["doctest.rst"].evidence[0].target == "Parser.errors"


def test_a_directive_argument_is_read_from_a_folder_above_its_doc() -> None:
    """matplotlib's ``.. plot:: pyplots/simple.py`` reads from ``doc/`` (its plot base
    folder), not from the folder of ``doc/users/intro.rst``; a file beside the doc wins."""
    targets = [
        Target(kind=TargetKind.path, name=name, change=Change.removed, weight=1.0)
        for name in ("doc/pyplots/simple.py", "doc/_static/logo.png", "doc/users/kept.py")
    ]
    docs = {
        "doc/users/intro.rst": "Intro\n=====\n\n.. plot:: pyplots/simple.py\n",
        "doc/users/logo.rst": "Logo\n====\n\n.. image:: /_static/logo.png\n",
        "doc/users/beside.rst": "Beside\n======\n\n.. plot:: pyplots/beside.py\n",
        "doc/users/pyplots/beside.py": "print(1)\n",
        "doc/users/explicit.rst": "Up\n==\n\n.. plot:: ../kept.py\n",
        "doc/users/prose.rst": "Prose\n=====\n\nSee pyplots/simple.py for more.\n",
    }
    found = {d.path: d for d in find_affected_docs(targets, MemoryTree(docs)).docs}
    assert found["doc/users/intro.rst"].evidence[0].target == "doc/pyplots/simple.py"
    assert found["doc/users/logo.rst"].evidence[0].target == "doc/_static/logo.png"
    assert "doc/users/explicit.rst" not in found  # ``../kept.py`` is ``doc/kept.py`` only
    assert "doc/users/prose.rst" not in found  # only a directive's argument is a path to read
    shadowed = [
        Target(
            kind=TargetKind.path, name="doc/pyplots/beside.py", change=Change.removed, weight=1.0
        )
    ]
    beside = {d.path for d in find_affected_docs(shadowed, MemoryTree(docs)).docs}
    assert "doc/users/beside.rst" not in beside  # it names the file beside the doc


def test_thresholds_move_docs_between_buckets() -> None:
    strict = {d.path: d.bucket for d in _find(Thresholds(must_update=0.95, review=0.7)).docs}
    assert strict["docs/usage.md"] == Bucket.review
    assert strict["docs/prose.md"] == Bucket.probably_fine
    with pytest.raises(ValueError, match="review threshold"):
        Thresholds(must_update=0.3, review=0.5)


def test_docs_glob_overrides_the_defaults() -> None:
    only_rst = _find(globs=DocGlobs(["docs/*.rst"]))
    assert [d.path for d in only_rst.docs] == ["docs/legacy.rst"]
    assert only_rst.docs_scanned == 1
    default = DocGlobs()
    assert default.matches("README")
    assert default.matches("guide/intro.adoc")
    assert default.matches("site/page.mdx")
    assert not default.matches("src/app.py")
    assert not default.matches("node_modules/x/README.md")


def test_links_resolve_in_markdown_rst_and_asciidoc() -> None:
    paths = frozenset({"docs/a.md", "docs/b.rst", "docs/c.adoc", "docs/sub/README.md"})
    md = doc_links("docs/a.md", "[b](b.rst#x) [c](./c.adoc) [s](sub/) [w](https://x.io)", paths)
    assert md == {"docs/b.rst", "docs/c.adoc", "docs/sub/README.md"}
    assert doc_links("docs/b.rst", "See :doc:`a` and `C <c.adoc>`_.\n", paths) == {
        "docs/a.md",
        "docs/c.adoc",
    }
    assert doc_links("docs/c.adoc", "xref:b.rst[B] and link:a.md[A]\n", paths) == {
        "docs/a.md",
        "docs/b.rst",
    }


def test_front_matter_glob_lists_and_broken_yaml() -> None:
    meta = front_matter("---\nwatch:\n  - src/**/*.py\ndocsync: [lib/x.js]\n---\nbody\n")
    assert meta.watched() == ["lib/x.js", "src/**/*.py"]
    assert front_matter("---\n: [\n---\nbody\n").watched() == []
    assert front_matter("no front matter").lines == 0


def test_a_removed_requirements_file_a_doc_includes_is_a_removed_path() -> None:
    """limits 5.0 dropped etcd and ``requirements/storage/etcd.txt`` with it; the install
    guide's ``.. literalinclude:: ../../requirements/storage/etcd.txt`` must go too. A text
    file in a ``requirements/`` folder is pip's input, not a doc."""
    path = "requirements/storage/etcd.txt"
    changed = [ChangedFile(path=path, status=FileStatus.deleted, category=categorize(path))]
    targets = find_targets(changed, [], MemoryTree({path: "etcd3\n"}), MemoryTree({}))
    doc = "Etcd\n----\n\n.. literalinclude:: ../../requirements/storage/etcd.txt\n"
    found = find_affected_docs(targets, MemoryTree({"doc/source/installation.rst": doc}))
    assert [(d.path, d.bucket) for d in found.docs] == [
        ("doc/source/installation.rst", Bucket.must_update)
    ]


def test_a_removed_dockerfile_is_named_in_code_not_by_the_word_in_prose() -> None:
    """notebook 5.0 dropped its own ``Dockerfile``; a deployment guide's "the Dockerfile
    ``ENTRYPOINT``" is the reader's, while ``docker build -f Dockerfile .`` uses it."""
    path = "Dockerfile"
    changed = [ChangedFile(path=path, status=FileStatus.deleted, category=categorize(path))]
    targets = find_targets(changed, [], MemoryTree({path: "FROM python\n"}), MemoryTree({}))
    docs = {
        "prose.rst": 'In your Dockerfile set the ENTRYPOINT::\n\n    ENTRYPOINT ["tini"]\n',
        "build.md": "```console\n$ docker build -f Dockerfile .\n```\n",
    }
    found = find_affected_docs(targets, MemoryTree(docs))
    assert [d.path for d in found.docs] == ["build.md"]
