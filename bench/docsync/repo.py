"""A doc sync "PR" from two releases, and what ``griffe check`` says broke between them."""

from __future__ import annotations

import sys
from pathlib import Path

from bench.impact.griffe_anchor import _ONELINE as GRIFFE_LINE
from bench.impact.layout import WorkDir, fresh_dir
from bench.impact.measure import run_checked
from bench.impact.pairs import PythonPair
from bench.impact.repos import BASE_REF, HEAD_REF, git, unpack_release
from prflow.docsync.doc_index import DocGlobs

GRIFFE_SECONDS = 600


def build_repo(pair: PythonPair, work: WorkDir, base: Path, head: Path) -> Path:
    """``base``: the base release; ``head``: the new code with the base release's docs."""
    repo = work.root / "docsync-repos" / pair.slug
    docs = DocGlobs()
    if (repo / ".git").is_dir() and git(repo, "branch", "--list", HEAD_REF):
        return repo
    fresh_dir(repo)
    git(repo, "init", "-q", "-b", "main")
    unpack_release(base, repo, lambda _path: True)
    git(repo, "add", "-A", "-f")
    git(repo, "commit", "-q", "-m", f"{pair.label}: base release")
    git(repo, "tag", BASE_REF)
    git(repo, "checkout", "-q", "-b", HEAD_REF)
    git(repo, "rm", "-r", "-q", ".")
    unpack_release(head, repo, lambda path: not docs.matches(path))
    unpack_release(base, repo, docs.matches)
    git(repo, "add", "-A", "-f")
    git(repo, "commit", "-q", "--allow-empty", "-m", f"{pair.label}: new code, old docs")
    return repo


def griffe_objects(repo: Path, pair: PythonPair) -> set[str]:
    """API objects ``griffe check`` reports broken (its log lines, e.g. alias errors, skipped)."""
    griffe = Path(sys.executable).parent / "griffe"
    command = [str(griffe), "check", pair.import_package, "--against", BASE_REF]
    command += ["--base-ref", HEAD_REF, "--search", pair.search_path or "."]
    command += ["--format", "oneline", "--no-color"]
    done = run_checked(command, cwd=repo, ok_codes=(0, 1))
    found = set()
    for line in (done.stderr + done.stdout).splitlines():
        match = GRIFFE_LINE.match(line)
        if match is None:
            continue
        name = match["object"].strip()
        if name == "<module>":  # a removed module: griffe names it by its file
            name = match["file"].removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        found.add(name)
    return found
