"""The pull request the token benchmark analyses: 20 files of a real release diff.

httpx 0.28 removed the deprecated ``proxies``, ``cert`` and ``app`` keywords and
the ``_compat`` module. The slice takes 20 of the 37 files that release changed
(the ones that removal touches, with their tests and docs) onto the 0.27.2 tree,
so it is a plausible single pull request, and a real one to review: it deletes
``httpx/_compat.py`` while ``httpx/_decoders.py``, outside the slice, still
imports it.
"""

from __future__ import annotations

from pathlib import Path

from bench.impact.errors import BenchError
from bench.impact.fetch import python_sdist
from bench.impact.layout import WorkDir, fresh_dir
from bench.impact.pairs import PYTHON_PAIR
from bench.impact.repos import BASE_REF, HEAD_REF, every_file, git, release_pair_repo

SLICE_BRANCH = "pr20"
SLICE_FILES = (
    "CHANGELOG.md",
    "README.md",
    "httpx/__version__.py",
    "httpx/_api.py",
    "httpx/_client.py",
    "httpx/_compat.py",
    "httpx/_config.py",
    "httpx/_main.py",
    "httpx/_models.py",
    "httpx/_transports/asgi.py",
    "httpx/_transports/default.py",
    "httpx/_types.py",
    "httpx/_urls.py",
    "httpx/_utils.py",
    "tests/client/test_auth.py",
    "tests/client/test_proxies.py",
    "tests/conftest.py",
    "tests/test_api.py",
    "tests/test_config.py",
    "tests/test_utils.py",
)
LABEL = f"{PYTHON_PAIR.label}, {len(SLICE_FILES)}-file slice"


def slice_repo(work: WorkDir) -> Path:
    """A clone of the release pair whose ``pr20`` branch is ``base`` plus the sliced changes."""
    base = python_sdist(work.downloads, PYTHON_PAIR.package, PYTHON_PAIR.base_version)
    head = python_sdist(work.downloads, PYTHON_PAIR.package, PYTHON_PAIR.head_version)
    pair = release_pair_repo(work.repo(PYTHON_PAIR), base, head, every_file, PYTHON_PAIR.label)
    repo = fresh_dir(work.root / "repos" / "tokens-httpx-slice")
    git(repo, "clone", "-q", str(pair), ".")
    git(repo, "checkout", "-q", "-b", SLICE_BRANCH, BASE_REF)
    for path in SLICE_FILES:
        if git(pair, "ls-tree", "--name-only", HEAD_REF, "--", path):
            git(repo, "checkout", f"origin/{HEAD_REF}", "--", path)
        else:
            git(repo, "rm", "-q", "--", path)
    git(repo, "commit", "-q", "-m", f"{LABEL}: drop proxies, cert, app and _compat")
    changed = set(git(repo, "diff", "--name-only", BASE_REF, SLICE_BRANCH).splitlines())
    if changed != set(SLICE_FILES):
        missing = sorted(set(SLICE_FILES) - changed)
        raise BenchError(f"the slice of {PYTHON_PAIR.label} does not change {missing}")
    return repo
