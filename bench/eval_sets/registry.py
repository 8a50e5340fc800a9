"""Release histories from the registries themselves, cached on disk.

PyPI's JSON API (``/pypi/<name>/json``) and the npm registry's package document
list every release with its upload time. Only releases published before
:data:`CUTOFF` count, so a seed draws the same set next year as today; yanked,
pre-release and deprecated versions never count. A cached document is never
fetched again (delete ``bench/.work/registry`` to refresh).
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from bench.eval_sets.packages import Ecosystem

CUTOFF = "2026-10-01"
"""Releases uploaded on or after this date (UTC, ISO) are ignored."""

DEFAULT_CACHE = Path(__file__).resolve().parent.parent / ".work" / "registry"
TIMEOUT_SECONDS = 30
_NPM_STABLE = re.compile(r"^\d+\.\d+\.\d+$")


class RegistryError(Exception):
    """A registry could not be reached or answered with something unusable."""


@dataclass(frozen=True)
class Release:
    """One stable release and the day it was uploaded."""

    version: str
    uploaded: str
    has_sdist: bool = True


def _document(ecosystem: Ecosystem, package: str, cache: Path) -> dict[str, object]:
    path = cache / ecosystem / (urllib.parse.quote(package, safe="") + ".json")
    if path.is_file():
        loaded: dict[str, object] = json.loads(path.read_text())
        return loaded
    if ecosystem == "pypi":
        url = f"https://pypi.org/pypi/{package}/json"
    else:
        url = "https://registry.npmjs.org/" + package.replace("/", "%2F")
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response:
            data: dict[str, object] = json.loads(response.read())
    except (urllib.error.URLError, TimeoutError, json.JSONDecodeError) as exc:
        raise RegistryError(f"cannot read {package} from {ecosystem}: {exc}") from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return data


def _pypi_releases(document: dict[str, object]) -> list[Release]:
    found: list[Release] = []
    releases = document.get("releases")
    if not isinstance(releases, dict):
        return found
    for text, files in releases.items():
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if version.is_prerelease or version.is_devrelease or not files:
            continue
        if any(f.get("yanked") for f in files):
            continue
        uploaded = min(str(f.get("upload_time_iso_8601") or "") for f in files)
        sdist = any(f.get("packagetype") == "sdist" for f in files)
        found.append(Release(text, uploaded, sdist))
    return sorted(found, key=lambda r: Version(r.version))


def _npm_releases(document: dict[str, object]) -> list[Release]:
    versions = document.get("versions")
    times = document.get("time")
    if not isinstance(versions, dict) or not isinstance(times, dict):
        return []
    found = [
        Release(text, str(times.get(text, "")), True)
        for text, manifest in versions.items()
        if _NPM_STABLE.match(text) and not (manifest or {}).get("deprecated")
    ]
    return sorted(found, key=lambda r: Version(r.version))


def releases(ecosystem: Ecosystem, package: str, cache: Path = DEFAULT_CACHE) -> list[Release]:
    """Stable releases of ``package`` uploaded before :data:`CUTOFF`, oldest first."""
    document = _document(ecosystem, package, cache)
    found = _pypi_releases(document) if ecosystem == "pypi" else _npm_releases(document)
    return [r for r in found if r.uploaded and r.uploaded < CUTOFF]


def download_sdist(
    package: str, version: str, dest: Path, cache: Path = DEFAULT_CACHE
) -> Path | None:
    """The ``.tar.gz`` sdist of ``package==version`` fetched straight from PyPI into ``dest``
    (kept there), or None when the release has none: no pip, no metadata build."""
    releases = _document("pypi", package, cache).get("releases")
    files = releases.get(version) if isinstance(releases, dict) else None
    page = f"https://pypi.org/pypi/{package}/json"  # some mirrors list URLs relative to it
    urls = [
        urllib.parse.urljoin(page, str(f["url"]))
        for f in files or []
        if f.get("packagetype") == "sdist" and str(f.get("filename", "")).endswith(".tar.gz")
    ]
    if not urls:
        return None
    target = dest / urllib.parse.unquote(urls[0].rsplit("/", 1)[-1])
    if target.is_file():
        return target
    dest.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(urls[0], timeout=TIMEOUT_SECONDS) as response:
            partial.write_bytes(response.read())
    except (urllib.error.URLError, TimeoutError) as exc:
        raise RegistryError(f"cannot fetch the sdist of {package}=={version}: {exc}") from exc
    partial.replace(target)
    return target
