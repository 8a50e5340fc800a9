"""A parser whose module takes seconds to import, as a cold worker on a busy machine does.

Imported only inside parse worker processes (by :mod:`tests.analysis.test_parse_workers`).
"""

from __future__ import annotations

import time

IMPORT_SECONDS = 3.0
time.sleep(IMPORT_SECONDS)


def parse(text: str, path: str) -> bytes:
    if path.startswith("slow/"):
        time.sleep(30)  # far over any budget the tests give
    return f"{path}:{len(text)}".encode()
