"""Turn two release archives into a two-commit git repository: the benchmark's "PR".

The base release is committed and tagged ``base``; the ``head`` branch holds
the newer release on top of it, so ``base..head`` is exactly the change
between the two releases. The archives' top directory (``httpx-0.27.2/``,
``package/``) is stripped so paths match across versions. Commit dates are
fixed, which keeps the SHAs (and so prflow's workflow ids) stable across reruns.
"""

from __future__ import annotations

import os
import subprocess
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

from bench.impact.errors import BenchError
from bench.impact.layout import fresh_dir

BASE_REF = "base"
HEAD_REF = "head"

MemberFilter = Callable[[str], bool]

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+00:00",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_SYSTEM": os.devnull,
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **_GIT_ENV},
        check=False,
    )
    if done.returncode != 0:
        raise BenchError(f"git {' '.join(args)} failed in {repo}: {done.stderr.strip()}")
    return done.stdout.strip()


def every_file(path: str) -> bool:
    return True


def type_declarations(path: str) -> bool:
    """``.d.ts`` files and the root ``package.json``: what a types-only consumer sees."""
    return path.endswith(".d.ts") or path == "package.json"


def archive_members(archive: Path) -> Iterator[tuple[str, Callable[[], bytes]]]:
    """An archive's regular files as (path, reader): a tarball's paths without their top
    directory (``httpx-0.27.2/``, ``package/``), a wheel's as they are (it has none)."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            for info in wheel.infolist():
                if not info.is_dir():
                    yield info.filename, lambda info=info: wheel.read(info)  # type: ignore[misc]
        return
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts[1:]
            if not member.isfile() or not parts:
                continue
            yield "/".join(parts), lambda member=member: _tar_read(tar, member)  # type: ignore[misc]


def _tar_read(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    source = tar.extractfile(member)
    return source.read() if source is not None else b""


def unpack_release(archive: Path, dest: Path, keep: MemberFilter) -> int:
    """Write the archive's regular files under ``dest`` (see :func:`archive_members`)."""
    written = 0
    for relative, read in archive_members(archive):
        parts = PurePosixPath(relative).parts
        if ".." in parts or relative.startswith("/") or not keep(relative):
            continue
        target = dest.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(read())
        written += 1
    if written == 0:
        raise BenchError(f"{archive.name} holds no files to commit")
    return written


def _is_built(repo: Path) -> bool:
    if not (repo / ".git").is_dir():
        return False
    try:
        git(repo, "rev-parse", "--verify", "--quiet", f"refs/tags/{BASE_REF}")
        git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{HEAD_REF}")
    except BenchError:
        return False
    return True


def release_pair_repo(
    repo: Path, base_archive: Path, head_archive: Path, keep: MemberFilter, label: str
) -> Path:
    """The repository for one pair, reused when a previous run already built it."""
    if _is_built(repo):
        return repo
    fresh_dir(repo)
    git(repo, "init", "-q", "-b", "main")
    unpack_release(base_archive, repo, keep)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{label}: base release")
    git(repo, "tag", BASE_REF)
    git(repo, "checkout", "-q", "-b", HEAD_REF)
    git(repo, "rm", "-r", "-q", ".")
    unpack_release(head_archive, repo, keep)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{label}: head release")
    return repo
