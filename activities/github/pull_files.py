"""GitHub's own per-file patches of a pull request (``GET /pulls/{n}/files``) via PyGithub."""

from __future__ import annotations

from github.PullRequest import PullRequest

from prflow.review.diff_map import DiffIndex
from prflow.review.github_diff import GITHUB_FILES_LIMIT, GitHubFile, github_diff_index


def github_diff(pull: PullRequest) -> DiffIndex | None:
    """The PR diff GitHub shows, or None when its file list is cut (3,000 files or more)."""
    files = []
    for entry in pull.get_files():
        files.append(
            GitHubFile(
                path=entry.filename,
                previous_path=entry.previous_filename or None,
                patch=entry.patch,
            )
        )
        if len(files) >= GITHUB_FILES_LIMIT:
            return None
    return github_diff_index(files)
