"""The official SARIF 2.1.0 JSON schema, cached under tests/.cache for offline reruns.

The schema ships inside the npm package ``@microsoft/jest-sarif``.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.npm_files import cached_npm_file

SCHEMA_FILE = "sarif-2.1.0-rtm.5.json"
NPM_PACKAGE = "@microsoft/jest-sarif@1.0.0-beta.0"
MEMBER = f"package/lib/schemas/{SCHEMA_FILE}"


def sarif_schema() -> dict[str, Any]:
    """The schema as a dict, downloading it once if the cache is empty."""
    path = cached_npm_file(NPM_PACKAGE, MEMBER, SCHEMA_FILE)
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded
