"""The review prompts, package data shared by every surface that runs a review."""

from __future__ import annotations

from importlib import resources


def load_prompt(name: str) -> str:
    """The text of ``prflow/prompts/review_<name>.md``."""
    path = resources.files("prflow").joinpath(f"prompts/review_{name}.md")
    return path.read_text("utf-8")
