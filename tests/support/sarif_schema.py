"""The official SARIF 2.1.0 JSON schema, cached under tests/.cache for offline reruns.

The schema ships inside the npm package ``@microsoft/jest-sarif``; ``npm pack``
fetches the tarball through the npm registry without installing anything.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

SCHEMA_FILE = "sarif-2.1.0-rtm.5.json"
NPM_PACKAGE = "@microsoft/jest-sarif@1.0.0-beta.0"
MEMBER = f"package/lib/schemas/{SCHEMA_FILE}"
CACHE_DIR = Path(__file__).resolve().parent.parent / ".cache"


def sarif_schema() -> dict[str, Any]:
    """The schema as a dict, downloading it once if the cache is empty."""
    cached = CACHE_DIR / SCHEMA_FILE
    if not cached.is_file():
        _fetch_into(cached)
    loaded: dict[str, Any] = json.loads(cached.read_text(encoding="utf-8"))
    return loaded


def _fetch_into(target: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError(
            f"npm is needed once to fetch the SARIF schema ({NPM_PACKAGE}); install Node.js "
            f"or place {SCHEMA_FILE} in {CACHE_DIR}"
        )
    with tempfile.TemporaryDirectory() as scratch:
        completed = subprocess.run(
            [npm, "pack", NPM_PACKAGE, "--silent"],
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        if completed.returncode != 0:
            raise RuntimeError(f"npm pack {NPM_PACKAGE} failed: {completed.stderr.strip()}")
        tarball = Path(scratch) / completed.stdout.strip().splitlines()[-1]
        with tarfile.open(tarball) as archive:
            source = archive.extractfile(MEMBER)
            if source is None:
                raise RuntimeError(f"{MEMBER} missing from {tarball.name}")
            data = source.read()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(target)
