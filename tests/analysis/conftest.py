"""Fixtures for the analysis tests: a real TypeScript compiler, fetched once with ``npm pack``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.npm_files import cached_npm_package

TYPESCRIPT_VERSION = "5.6.3"


@pytest.fixture(scope="session")
def typescript_package() -> Path:
    """The unpacked ``typescript`` npm package (no dependencies), cached under tests/.cache."""
    try:
        return cached_npm_package(
            f"typescript@{TYPESCRIPT_VERSION}", f"typescript-{TYPESCRIPT_VERSION}"
        )
    except RuntimeError as err:
        pytest.fail(f"the TypeScript compiler is needed: {err}", pytrace=False)
