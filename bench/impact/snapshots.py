"""The two refs of a pair's repository as directories and as the changed-file list prflow reads.

The in-process measurements call prflow's domain functions directly, so they
need what the impact activity would hand them: a directory tree per commit
(``git archive``, extracted once) and the categorised changed files.
"""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from pathlib import Path

from bench.impact.errors import BenchError
from bench.impact.repos import BASE_REF, HEAD_REF
from prflow.analysis.categories import categorize
from prflow.changes import ChangedFile, FileStatus

_STATUS = {"A": FileStatus.added, "D": FileStatus.deleted, "M": FileStatus.modified}


def export_ref(repo: Path, ref: str, dest: Path) -> Path:
    """The files of ``ref`` under ``dest`` (reused when already extracted)."""
    marker = dest / ".bench-complete"
    if marker.is_file():
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", ref], capture_output=True, check=False
    )
    if done.returncode != 0:
        raise BenchError(f"git archive {ref} failed in {repo}: {done.stderr.decode().strip()}")
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        tar.extractall(dest, filter="data")
    marker.touch()
    return dest


def snapshot_pair(repo: Path, scratch: Path) -> tuple[Path, Path]:
    return export_ref(repo, BASE_REF, scratch / "base"), export_ref(
        repo, HEAD_REF, scratch / "head"
    )


def changed_files(repo: Path, base: str = BASE_REF, head: str = HEAD_REF) -> list[ChangedFile]:
    """``git diff -M base head`` as prflow's changed-file list, categorised."""
    done = subprocess.run(
        ["git", "-C", str(repo), "diff", "--no-color", "-M", "--name-status", "-z", base, head],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise BenchError(f"git diff failed in {repo}: {done.stderr.decode().strip()}")
    tokens = [os.fsdecode(t) for t in done.stdout.split(b"\0")]
    files: list[ChangedFile] = []
    index = 0
    while index < len(tokens) and tokens[index]:
        letter = tokens[index][0]
        if letter in "RC":
            old, new = tokens[index + 1], tokens[index + 2]
            status = FileStatus.renamed if letter == "R" else FileStatus.added
            files.append(
                ChangedFile(path=new, old_path=old if letter == "R" else None, status=status)
            )
            index += 3
        else:
            path = tokens[index + 1]
            files.append(ChangedFile(path=path, status=_STATUS.get(letter, FileStatus.modified)))
            index += 2
    return [f.model_copy(update={"category": categorize(f.path)}) for f in files]
