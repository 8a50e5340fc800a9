"""``python -m bench.refactor.audit_speed``: one refactor step's audit on Django, whole-tree
graphs against graphs derived from the base commit's.

The repository is the Django 5.1.4 sdist (the one ``bench.refactor.large`` uses). A run
renames ``gettext_lazy`` (a word-boundary replacement, in sorted order of the files that
name it): step 1 changed the first ``--step-files`` of those files, step 2 (the audited
step) the next ``--step-files``. One step's audit is what the ``refactor_audit``
activity does: the step's audit (before -> after), the run's audit (base -> after) and
the mapped tests of the step's files, which need the import graph of the state after.

Printed: the audit of one step with every graph built from the whole tree (as before),
the one-time build of the base commit's graph, then the same step with graphs derived
from it (only the changed files re-read), and whether both found the same.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from bench.refactor_corpus.libraries import fetch
from prflow.analysis.test_mapping import TestFiles, find_related_tests
from prflow.imports import ImportGraph, build_import_graph
from prflow.refactor.audit import AuditReport, Parses, audit
from prflow.refactor.graphs import state_graph
from prflow.source_tree import DirectoryTree, SourceTree

WORK = Path(__file__).resolve().parents[1] / ".work" / "refactor-large"
NAME, VERSION = "django", "5.1.4"
WORD = re.compile(r"\bgettext_lazy\b")


class Overlay:
    """The repository's files with some replaced (a workspace state)."""

    def __init__(self, base: SourceTree, changes: Mapping[str, str]) -> None:
        self._base, self._changes = base, dict(changes)

    @property
    def root(self) -> Path | None:
        return None

    def paths(self) -> list[str]:
        return self._base.paths()

    def read_text(self, path: str) -> str | None:
        found = self._changes.get(path)
        return found if found is not None else self._base.read_text(path)

    def size_of(self, path: str) -> int | None:
        found = self._changes.get(path)
        return len(found.encode()) if found is not None else self._base.size_of(path)


def step(
    changed: list[str],
    run_changed: list[str],
    trees: tuple[SourceTree, SourceTree, SourceTree],
    graphs: tuple[ImportGraph, ImportGraph, ImportGraph] | None,
) -> tuple[AuditReport, AuditReport, list[str]]:
    """What ``refactor_audit`` computes for one step; ``graphs``: (base, before, after)."""
    base, before, after = trees
    if graphs is None:  # as the activity did: every graph whole, every file parsed per tree
        in_task, in_run = audit(changed, before, after), audit(run_changed, base, after)
    else:
        parses: Parses = {}
        in_task = audit(changed, before, after, graphs=(graphs[1], graphs[2]), parses=parses)
        in_run = audit(run_changed, base, after, graphs=(graphs[0], graphs[2]), parses=parses)
    graph = build_import_graph(after) if graphs is None else graphs[2]
    tests = TestFiles.of(after)
    mapped = sorted({t for p in changed for t in find_related_tests(p, after, graph, tests)})
    return in_task, in_run, mapped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--step-files", type=int, default=40)
    files = parser.parse_args().step_files
    WORK.mkdir(parents=True, exist_ok=True)
    repo = fetch(WORK, NAME, VERSION)
    assert repo is not None, "pip download of the Django sdist failed"
    listed = subprocess.run(
        ["git", "-C", str(repo), "ls-files"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    base = DirectoryTree(repo, listed)
    naming = [p for p in listed if p.endswith(".py") and WORD.search(base.read_text(p) or "")]
    first, second = naming[:files], naming[files : 2 * files]
    done = {p: WORD.sub("gettext_lazy_text", base.read_text(p) or "") for p in first}
    now = {**done, **{p: WORD.sub("gettext_lazy_text", base.read_text(p) or "") for p in second}}
    before, after = Overlay(base, done), Overlay(base, now)
    py = sum(p.endswith(".py") for p in listed)
    print(
        f"repository: Django {VERSION} sdist, {len(listed)} files ({py} Python); "
        f"{len(naming)} files name gettext_lazy; the audited step changes {len(second)}, "
        f"the run {len(now)}",
        flush=True,
    )
    trees = (base, before, after)
    started = time.monotonic()
    whole = step(second, sorted(now), trees, None)
    whole_s = time.monotonic() - started
    print(f"one step's audit, whole-tree graphs (before): {whole_s:.1f}s", flush=True)
    started = time.monotonic()
    base_graph = build_import_graph(base)
    once_s = time.monotonic() - started
    print(f"the base commit's graph, built once per commit: {once_s:.1f}s", flush=True)
    started = time.monotonic()
    derived_before = state_graph(base_graph, base, before, dict.fromkeys(done, True))
    derived_after = state_graph(base_graph, base, after, dict.fromkeys(now, True))
    derived = step(second, sorted(now), trees, (base_graph, derived_before, derived_after))
    derived_s = time.monotonic() - started
    print(f"one step's audit, graphs derived from the base's (after): {derived_s:.1f}s")
    same = whole == derived
    errors = len(whole[0].errors) + len(whole[1].errors)
    print(
        f"same findings and mapped tests: {same} ({errors} errors, "
        f"{len(whole[0].checked_files)} files checked, {len(whole[2])} mapped tests)"
    )
    print(f"ratio (whole / derived): {whole_s / derived_s:.1f}x")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
