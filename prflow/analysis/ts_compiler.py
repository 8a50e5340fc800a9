"""The TypeScript compiler as the judge of JS/TS API changes, found wherever it can be.

tree-sitter sees what changed in a declaration's text; only the compiler knows
whether old code still compiles (``string | number`` -> ``DateArg`` is fine,
``{}`` leaving ``ReactNode`` is not). When ``node`` is on the PATH, the names
tree-sitter flags as changed are handed to ``ts_check.cjs`` (package data next
to this module) with the two releases on disk; its verdicts replace
tree-sitter's guesses for those names.

Which ``typescript`` (:class:`CompilerLocator`, looked up only when a
TypeScript package changed): the repository's own ``node_modules``; else a
global install (``npm root -g``); else one prflow installs once into its cache
directory with ``npm`` (:data:`TYPESCRIPT_RANGE`). Anything that stops the
compiler from answering (no ``node``, no ``npm``, a crash, the time limit) is
a :class:`CompilerUnavailable`, and the analysis falls back to tree-sitter alone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

CHECK_SCRIPT = Path(__file__).with_name("ts_check.cjs")
TYPESCRIPT_RANGE = ">=5.4 <5.7"
"""What prflow installs when no ``typescript`` is found (ts_check.cjs is tested with 5.6)."""
INSTALL_TIMEOUT_SECONDS = 300.0


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


class TypeJudge(Protocol):
    """What the JS/TS analysis asks: verdicts per name, and who gave them."""

    def check(self, request: CheckRequest) -> dict[str, str | None]: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class TypeScriptCompiler:
    """A ``typescript`` package directory and how to run it."""

    typescript_dir: Path
    node: str = "node"
    timeout_seconds: float = 180.0
    origin: str = "given"
    recheck_share: float = 0.4
    """Share of the time limit for checking each failing name again on its own (which places
    its break exactly); past it, names keep the explanation of the one program that found them."""
    """Where it was found: the repository, a global install, prflow's cache, or given."""

    def describe(self) -> str:
        return f"TypeScript {_version(self.typescript_dir)} ({self.origin})"

    @classmethod
    def discover(cls, repo_dir: Path) -> TypeScriptCompiler | None:
        """The repository's own compiler, when it and ``node`` are installed."""
        node = shutil.which("node")
        found = find_typescript(repo_dir)
        if node is None or found is None:
            return None
        return cls(found, node, origin="the repository's node_modules")

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
            "recheck_seconds": self.timeout_seconds * self.recheck_share,
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


def _version(typescript_dir: Path) -> str:
    try:
        data = json.loads((typescript_dir / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "(unknown version)"
    version = data.get("version") if isinstance(data, dict) else None
    return str(version) if version else "(unknown version)"


@dataclass
class CompilerLocator:
    """Finds a compiler the first time one is needed, so Python-only changes never run npm.

    ``cache_root`` is where prflow keeps its own install (``<cache>/typescript``);
    without ``install`` that install is used when present but never made.
    """

    repo_dir: Path | None
    cache_root: Path
    install: bool = True
    _found: TypeScriptCompiler | None = None
    _failure: str | None = None

    def check(self, request: CheckRequest) -> dict[str, str | None]:
        return self.locate().check(request)

    def describe(self) -> str:
        return self._found.describe() if self._found is not None else "no TypeScript compiler"

    def locate(self) -> TypeScriptCompiler:
        """The compiler, looked up once; :class:`CompilerUnavailable` says why there is none."""
        if self._found is not None:
            return self._found
        if self._failure is not None:
            raise CompilerUnavailable(self._failure)
        try:
            self._found = self._lookup()
        except CompilerUnavailable as err:
            self._failure = str(err)
            raise
        return self._found

    def _lookup(self) -> TypeScriptCompiler:
        node = shutil.which("node")
        if node is None:
            raise CompilerUnavailable("no TypeScript compiler: `node` is not on the PATH")
        if self.repo_dir is not None:
            own = find_typescript(self.repo_dir)
            if own is not None:
                return TypeScriptCompiler(own, node, origin="the repository's node_modules")
        npm = shutil.which("npm")
        if npm is not None:
            found = _global_typescript(npm)
            if found is not None:
                return TypeScriptCompiler(found, node, origin="global install")
        cached = self.cache_root / "typescript" / "node_modules" / "typescript"
        if not _usable(cached):
            if npm is None or not self.install:
                raise CompilerUnavailable(
                    "no TypeScript compiler: none in the repository or installed globally, "
                    "and `npm` is not on the PATH to install one"
                )
            _install(npm, self.cache_root / "typescript")
        return TypeScriptCompiler(
            cached,
            node,
            origin=f"installed by prflow ({TYPESCRIPT_RANGE}) in {cached.parent.parent}",
        )


def _usable(candidate: Path) -> bool:
    return (candidate / "package.json").is_file() and (candidate / "lib").is_dir()


def _global_typescript(npm: str) -> Path | None:
    try:
        done = subprocess.run(
            [npm, "root", "-g"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    root = done.stdout.strip()
    candidate = Path(root) / "typescript" if done.returncode == 0 and root else None
    return candidate if candidate is not None and _usable(candidate) else None


def _install(npm: str, target: Path) -> None:
    """``npm install typescript@<range>`` into a scratch folder, then moved into place.

    The move is atomic, so two workers installing at once both end with one
    complete install (the loser's copy is discarded).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="typescript-", dir=target.parent))
    command = [npm, "install", "--no-audit", "--no-fund", "--loglevel", "error"]
    command += ["--prefix", str(scratch), f"typescript@{TYPESCRIPT_RANGE}"]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        shutil.rmtree(scratch, ignore_errors=True)
        raise CompilerUnavailable(f"installing TypeScript with npm failed: {err}") from None
    if done.returncode != 0 or not _usable(scratch / "node_modules" / "typescript"):
        shutil.rmtree(scratch, ignore_errors=True)
        reason = (done.stderr or done.stdout or f"exit status {done.returncode}").strip()
        raise CompilerUnavailable(
            f"installing TypeScript with npm failed: {reason.splitlines()[-1][:200]}"
        )
    try:
        os.rename(scratch, target)
    except OSError:  # another process installed it first
        shutil.rmtree(scratch, ignore_errors=True)
