"""Shared pytest configuration: each area keeps its fixtures in tests/support/."""

pytest_plugins = [
    "tests.support.fixtures_temporal",
    "tests.support.fixtures_store",
    "tests.support.fixtures_llm",
    "tests.support.fixtures_github",
    "tests.support.fixtures_git",
    "tests.support.fixtures_impact",
]
