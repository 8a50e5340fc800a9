"""The TypeScript compiler as the judge of JS/TS API changes: the repository's own ``typescript``.

tree-sitter sees what changed in a declaration's text; only the compiler knows
whether old code still compiles (``string | number`` -> ``DateArg`` is fine,
``{}`` leaving ``ReactNode`` is not). When ``node`` is on the PATH and the
repository has ``node_modules/typescript``, the names tree-sitter flags as
changed are handed to ``ts_check.cjs`` (package data next to this module) with
the two releases on disk; its verdicts replace tree-sitter's guesses for those
names. Anything that stops the compiler from answering (no ``node``, a crash,
the time limit) is a :class:`CompilerUnavailable`, and the analysis falls back
to tree-sitter alone.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

CHECK_SCRIPT = Path(__file__).with_name("ts_check.cjs")


class CompilerUnavailable(RuntimeError):
    """The compiler gave no verdicts; the message says why, in one line."""


@dataclass(frozen=True)
class CheckRequest:
    """Both releases of one package: its root and entry files on disk, and the names to judge."""

    old_root: Path
    new_root: Path
    entries: dict[str, tuple[Path, Path]]
    """Entry label ("" for the main entry, else the subpath) to (old file, new file)."""
    names: list[str] = field(default_factory=list)
    """``name`` for the main entry, ``label:name`` for the others."""


@dataclass(frozen=True)
class TypeScriptCompiler:
    """A ``typescript`` package directory and how to run it."""

    typescript_dir: Path
    node: str = "node"
    timeout_seconds: float = 180.0

    @classmethod
    def discover(cls, repo_dir: Path) -> TypeScriptCompiler | None:
        """The repository's own compiler, when it and ``node`` are installed."""
        node = shutil.which("node")
        found = find_typescript(repo_dir)
        if node is None or found is None:
            return None
        return cls(found, node)

    def check(self, request: CheckRequest) -> dict[str, str | None]:
        """Per name: None when old code still compiles, else the compiler's reason."""
        if not request.names:
            return {}
        payload = {
            "typescript": str(self.typescript_dir),
            "old_root": str(request.old_root),
            "new_root": str(request.new_root),
            "entries": {k: [str(old), str(new)] for k, (old, new) in request.entries.items()},
            "names": request.names,
        }
        try:
            done = subprocess.run(
                [self.node, str(CHECK_SCRIPT)],
                input=json.dumps(payload),
                capture_output=True,
                text=True,
                timeout=self.timeout_seconds,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise CompilerUnavailable(
                f"the TypeScript compiler took longer than {self.timeout_seconds:g} s"
            ) from None
        except OSError as err:
            raise CompilerUnavailable(f"cannot run {self.node}: {err.strerror or err}") from None
        try:
            answer = json.loads(done.stdout or "{}")
        except ValueError:
            answer = {}
        if not isinstance(answer, dict) or "verdicts" not in answer:
            reason = answer.get("error") if isinstance(answer, dict) else None
            detail = str(reason or done.stderr or f"exit status {done.returncode}").strip()
            raise CompilerUnavailable(
                f"the TypeScript compiler failed: {detail.splitlines()[0][:300]}"
            )
        verdicts = answer["verdicts"]
        return {str(k): (str(v) if v else None) for k, v in verdicts.items()}


def find_typescript(start: Path) -> Path | None:
    """``node_modules/typescript`` in ``start`` or the nearest parent that has one."""
    for folder in (start, *start.parents):
        candidate = folder / "node_modules" / "typescript"
        if (candidate / "package.json").is_file() and (candidate / "lib").is_dir():
            return candidate
    return None
