"""Where the benchmark keeps downloads, generated repositories, tools and prflow state.

Everything lives under ``bench/.work`` (gitignored) so a run never touches the
user's prflow data directory and reruns reuse the downloads.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from bench.impact.pairs import Pair

DEFAULT_ROOT = Path(__file__).resolve().parents[1] / ".work"


@dataclass(frozen=True)
class WorkDir:
    root: Path

    @property
    def downloads(self) -> Path:
        return self.root / "downloads"

    @property
    def tools(self) -> Path:
        return self.root / "tools"

    def repo(self, pair: Pair) -> Path:
        return self.root / "repos" / pair.slug

    def reports(self, pair: Pair) -> Path:
        return self.root / "reports" / pair.slug

    def anchor(self, pair: Pair) -> Path:
        return self.root / "anchor" / pair.slug

    def prflow_state(self, pair: Pair) -> Path:
        """Private ``PRFLOW_DATA_DIR``/``PRFLOW_CACHE_DIR`` parent for this pair."""
        return self.root / "state" / pair.slug


def fresh_dir(path: Path) -> Path:
    """Empty ``path`` (creating it) so a step starts from nothing."""
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path
