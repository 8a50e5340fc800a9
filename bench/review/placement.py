"""``python -m bench.review.placement``: where review comments land under users' git configs.

On a real pair (requests 2.31.0 → 2.32.0, as ``bench.review`` builds it), a
probe finding sits on every head line within six lines of a change: the lines
where a different context size, algorithm or hunk join moves the edge of what
GitHub shows. Each probe is placed as a review places it (the diff prflow reads
through ``GitRepoReader.diff``, then ``place``) with ``HOME`` pointing at a
``.gitconfig`` holding one setting, and judged against the diff GitHub shows
(git with no user config, three lines of context, as the test suite's GitHub
server computes it). A placement is wrong when prflow puts a comment on a line
GitHub would refuse (a 422) or sends to the body a line GitHub shows.

The "before" column replays the git options prflow used before the fix
(``-M --no-color --no-ext-diff --no-textconv``, a/ b/ prefixes) under the same
config. The "--pr" column places as a review of a pull request does: GitHub's own
per-file patches, listed by PyGithub from the test suite's GitHub server serving
the pair as a PR (``github_pull_patches``), then ``placement_index`` and ``place``.
A last row hides one file's diff on GitHub (as for a diff too large to show) and
compares the local path with the --pr path. Printed last: wrong placements /
probes over all settings, after the fix and on the --pr path.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from activities.github.pull_files import pull_patches_of
from bench.impact.fetch import python_sdist
from bench.impact.layout import DEFAULT_ROOT
from bench.impact.repos import BASE_REF, HEAD_REF, every_file, git, release_pair_repo
from prflow.config import cached_settings
from prflow.git.repo import GitRepo, GitRepoReader
from prflow.pr_identifier import PullRequestRef
from prflow.review.diff_map import DiffIndex, place
from prflow.review.github_diff import placement_index
from prflow.review.models import FindingCategory, FindingSource, ReviewFinding
from prflow.review.pull_patches import files_from_json
from prflow.store.blobs import get_json
from tests.support.fake_github import FakeGitHub
from tests.support.fake_github_reviews import DiffFile, ReviewRejected, place_comment, pull_diff

PACKAGE, BASE_VERSION, HEAD_VERSION = "requests", "2.31.0", "2.32.0"
REACH = 6
SETTINGS = {
    "(none)": "",
    "diff.context=5": "[diff]\n\tcontext = 5\n",
    "diff.algorithm=histogram": "[diff]\n\talgorithm = histogram\n",
    "context=5 + histogram": "[diff]\n\tcontext = 5\n\talgorithm = histogram\n",
    "diff.renames=false": "[diff]\n\trenames = false\n",
    "diff.renames=copies": "[diff]\n\trenames = copies\n",
    "diff.external": "[diff]\n\texternal = {external}\n",
    "color.ui=always": "[color]\n\tui = always\n",
    "diff.indentHeuristic=false": "[diff]\n\tindentHeuristic = false\n",
    "diff.noprefix": "[diff]\n\tnoprefix = true\n",
    "diff.mnemonicPrefix": "[diff]\n\tmnemonicPrefix = true\n",
    "diff.interHunkContext=10": "[diff]\n\tinterHunkContext = 10\n",
}
OLD_OPTIONS = ["-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff"]
OLD_OPTIONS += ["--no-textconv", "-M", "--src-prefix=a/", "--dst-prefix=b/"]
PR = PullRequestRef(owner="bench", repo="requests", number=1)
HIDDEN = "tests/test_requests.py"  # the pair's largest change: hidden by GitHub in the last row
TOKEN = "ghp_bench_placement"


def _probes(truth: dict[str, object], repo: Path) -> list[ReviewFinding]:
    probes: list[ReviewFinding] = []
    for path, file in truth.items():
        changed = {line for hunk in file.hunks for line in hunk["RIGHT"]}  # type: ignore[attr-defined]
        lines = sorted({n for c in changed for n in range(c - REACH, c + REACH + 1) if n >= 1})
        for line in lines:
            probes.append(
                ReviewFinding(
                    file=path,
                    line_start=line,
                    line_end=line,
                    severity="suggestion",
                    category=FindingCategory.maintainability,
                    title="probe",
                    body="b",
                    confidence=1.0,
                    dimension_id="d",
                    dimension_name="D",
                    source=FindingSource.reviewer,
                )
            )
    return probes


def _wrong(
    probes: list[ReviewFinding],
    index: DiffIndex,
    truth: dict[str, DiffFile],
    hidden: frozenset[str] = frozenset(),
) -> int:
    wrong = 0
    for probe in probes:
        placed = place(probe, index)
        comment = {"path": placed.path, "line": placed.line, "side": "RIGHT", "body": "b"}
        if placed.inline:
            try:
                place_comment(comment, truth, hidden)
            except ReviewRejected:
                wrong += 1
            else:
                wrong += placed.line != probe.line_end
        else:
            shown = {"path": probe.file, "line": probe.line_end, "side": "RIGHT", "body": "b"}
            try:
                place_comment(shown, truth, hidden)  # type: ignore[arg-type]
                wrong += 1  # GitHub shows it, prflow sent it to the body
            except ReviewRejected:
                pass
    return wrong


def _pr_index(local: DiffIndex, head_sha: str) -> DiffIndex:
    """The diff a review of the PR places on: GitHub's patches as the activity lists them."""
    patches = pull_patches_of(PR)
    files = files_from_json(get_json(cached_settings().resolved_database_url(), patches.key))
    index, _ = placement_index(
        local, files, complete=patches.complete, head_moved=patches.head_sha != head_sha
    )
    return index


def _serve(git_dir: Path, base_sha: str, head_sha: str, scratch: Path) -> FakeGitHub:
    """The stateful GitHub server holding the pair as PR #1; prflow's settings point at it."""
    fake = FakeGitHub().start()
    fake.add_user("prflow-bench", token=TOKEN)
    fake.add_pull_request(
        PR.owner, PR.repo, PR.number, bare_repo_path=git_dir, base_sha=base_sha, head_sha=head_sha
    )
    for name in ("GH_TOKEN", "GITHUB_API_URL", "PRFLOW_GITHUB_APP_ID", "DATABASE_URL"):
        os.environ.pop(name, None)
    os.environ.update(
        PRFLOW_GITHUB_API_URL=fake.api_url,
        GITHUB_TOKEN=TOKEN,
        PRFLOW_DATABASE_URL=f"sqlite:///{scratch / 'bench.db'}",
    )
    cached_settings.cache_clear()
    return fake


def _under(config: str, home: Path, action: object) -> object:
    home.mkdir(parents=True, exist_ok=True)
    external = home / "external-diff"
    external.write_text("#!/bin/sh\necho 'an external diff tool wrote this'\n")
    external.chmod(0o755)
    (home / ".gitconfig").write_text(config.format(external=external))
    saved = {k: os.environ.get(k) for k in ("HOME", "GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME")}
    os.environ["HOME"] = str(home)
    os.environ["XDG_CONFIG_HOME"] = str(home / ".config")
    os.environ.pop("GIT_CONFIG_GLOBAL", None)
    try:
        return action()  # type: ignore[operator]
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main() -> int:
    root = DEFAULT_ROOT
    downloads = root / "downloads"
    base = python_sdist(downloads, PACKAGE, BASE_VERSION)
    head = python_sdist(downloads, PACKAGE, HEAD_VERSION)
    label = f"{PACKAGE} {BASE_VERSION}→{HEAD_VERSION}"
    repo = release_pair_repo(root / "repos" / f"review-{PACKAGE}", base, head, every_file, label)
    git_dir = Path(git(repo, "rev-parse", "--absolute-git-dir"))
    base_sha, head_sha = git(repo, "rev-parse", BASE_REF), git(repo, "rev-parse", HEAD_REF)
    truth = pull_diff(git_dir, base_sha, head_sha)
    probes = _probes(truth, repo)  # type: ignore[arg-type]
    reader = GitRepoReader(
        GitRepo(git_dir=git_dir, key="bench-placement", location=str(repo), remote=False)
    )

    def old_diff() -> str:
        done = subprocess.run(
            ["git", f"--git-dir={git_dir}", *OLD_OPTIONS, base_sha, head_sha],
            capture_output=True,
            check=True,
        )
        return done.stdout.decode("utf-8", errors="replace")

    def pr_diff() -> DiffIndex:
        return _pr_index(DiffIndex.from_patch(reader.diff(base_sha, head_sha)), head_sha)

    print(f"{label}: {len(truth)} files in GitHub's diff, {len(probes)} probe findings")
    print("setting | wrong before | wrong after | wrong --pr")
    total_before = total_after = total_pr = 0
    with tempfile.TemporaryDirectory() as scratch:
        fake = _serve(git_dir, base_sha, head_sha, Path(scratch))
        try:
            for n, (name, config) in enumerate(SETTINGS.items()):
                home = Path(scratch) / f"home{n}"
                before_text = _under(config, home, old_diff)
                after_text = _under(config, home, lambda: reader.diff(base_sha, head_sha))
                pr_index = _under(config, home, pr_diff)  # the whole --pr path, this config
                before = _wrong(probes, DiffIndex.from_patch(str(before_text)), truth)
                after = _wrong(probes, DiffIndex.from_patch(str(after_text)), truth)
                on_pr = _wrong(probes, pr_index, truth)  # type: ignore[arg-type]
                total_before += before
                total_after += after
                total_pr += on_pr
                print(f"{name} | {before}/{len(probes)} | {after}/{len(probes)} | "
                      f"{on_pr}/{len(probes)}")  # fmt: skip
            hidden = frozenset({HIDDEN})
            fake.set_pull_state(PR.owner, PR.repo, PR.number, too_large=hidden)
            local = DiffIndex.from_patch(reader.diff(base_sha, head_sha))
            local_wrong = _wrong(probes, local, truth, hidden)
            pr_wrong = _wrong(probes, _pr_index(local, head_sha), truth, hidden)
            print(f"GitHub shows no diff of {HIDDEN} (no user config) | - | "
                  f"{local_wrong}/{len(probes)} | {pr_wrong}/{len(probes)}")  # fmt: skip
            lists = len(fake.requests("GET", r"/pulls/1/files"))
        finally:
            fake.stop()
    probes_all = len(probes) * len(SETTINGS)
    print(f"GET /pulls/1/files: {lists} requests for {len(SETTINGS) + 1} listings")
    print(f"wrong placements before: {total_before}/{probes_all}")
    print(f"wrong placements after (goal 0): {total_after}/{probes_all}")
    print(f"wrong placements on the --pr path (goal 0): {total_pr}/{probes_all}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
