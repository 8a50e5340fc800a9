"""Refactor targets computed by rope: rename a function, a method, a class or a parameter, or
move a function to a new module, as a change set (path -> new text, None: deleted).

rope computes the change first and touches no file (the change set is a value), so the
target is what a careful engineer with a refactoring tool would commit. Candidates are
the package's public top-level functions and classes, its classes' public methods, and
its functions' keyword parameters, each used outside its own module; a seeded draw picks
among them, and the caller keeps a case only when the library's suite stays green on it.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KINDS = ("function", "method", "class", "parameter", "move")


@dataclass(frozen=True)
class Candidate:
    kind: str
    path: str
    name: str
    offset: int
    owner: str = ""  # a method's class, a parameter's function


@dataclass
class Target:
    """One refactor case: what to ask for, and the files as rope leaves them."""

    kind: str
    directive: str
    old: str
    new: str
    changes: dict[str, str | None] = field(default_factory=dict)


def _python_files(root: Path, package: str) -> list[Path]:
    return sorted(p for p in (root / package).rglob("*.py") if "__pycache__" not in p.parts)


def _offset(text: str, node: ast.AST, name: str) -> int:
    lines = text.splitlines(keepends=True)
    lineno: int = getattr(node, "lineno", 1)
    column: int = getattr(node, "col_offset", 0)
    start = sum(len(line) for line in lines[: lineno - 1]) + column
    return text.index(name, start)


def candidates(root: Path, package: str) -> Iterator[Candidate]:
    """Public definitions of ``package`` (a folder under ``root``) that rope can refactor."""
    for path in _python_files(root, package):
        rel = str(path.relative_to(root))
        text = path.read_text(encoding="utf-8")
        try:
            module = ast.parse(text)
        except SyntaxError:
            continue
        for node in module.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _public(node.name):
                yield Candidate("function", rel, node.name, _offset(text, node, node.name))
                yield Candidate("move", rel, node.name, _offset(text, node, node.name))
                for arg in node.args.args + node.args.kwonlyargs:
                    if _public(arg.arg) and arg.arg not in ("self", "cls") and len(arg.arg) > 2:
                        yield Candidate(
                            "parameter", rel, arg.arg, _offset(text, arg, arg.arg), node.name
                        )
            elif isinstance(node, ast.ClassDef) and _public(node.name):
                yield Candidate("class", rel, node.name, _offset(text, node, node.name))
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and _public(item.name):
                        yield Candidate(
                            "method", rel, item.name, _offset(text, item, item.name), node.name
                        )


def _public(name: str) -> bool:
    return not name.startswith("_")


def new_name(candidate: Candidate) -> str:
    if candidate.kind == "class":
        return f"{candidate.name}Renamed"
    return f"{candidate.name}_renamed"


def used_elsewhere(root: Path, package: str, candidate: Candidate) -> int:
    """Files other than the definition's that mention the name (a crude filter rope refines)."""
    count = 0
    for path in [*_python_files(root, package), *sorted((root / "tests").rglob("*.py"))]:
        rel = str(path.relative_to(root))
        if rel != candidate.path and candidate.name in path.read_text(encoding="utf-8"):
            count += 1
    return count


def compute(root: Path, candidate: Candidate) -> Target | None:
    """rope's change set for ``candidate`` in the project at ``root`` (no file is written)."""
    from rope.base import libutils
    from rope.base.fscommands import FileSystemCommands
    from rope.base.project import Project
    from rope.refactor.move import create_move
    from rope.refactor.rename import Rename

    # plain file operations: rope's git integration would stage files in the library's repo
    project = Project(
        str(root), ropefolder=None, ignore_syntax_errors=True, fscommands=FileSystemCommands()
    )
    try:
        resource = libutils.path_to_resource(project, str(root / candidate.path))
        new = new_name(candidate)
        if candidate.kind == "move":
            module = candidate.path.rsplit("/", 1)[0] + f"/{candidate.name}_moved.py"
            dest = project.root.create_file(module)  # rope needs the module to exist
            try:
                mover = create_move(project, resource, candidate.offset)
                changes = mover.get_changes(dest)
            finally:
                dest.remove()
            created = {module: ""}
            directive = (
                f"Move the function {candidate.name} from {candidate.path} to a new module "
                f"{module}, and update every import of it across the package and its tests"
            )
            new = module
        else:
            changes = Rename(project, resource, candidate.offset).get_changes(new)
            created = {}
            what = {
                "function": "function",
                "class": "class",
                "method": f"method of {candidate.owner}",
                "parameter": f"parameter of {candidate.owner}()",
            }[candidate.kind]
            directive = (
                f"Rename the {what} {candidate.name} (defined in {candidate.path}) to {new} "
                "everywhere: its definition, every caller, re-export and test"
            )
        result: dict[str, str | None] = {}
        for change in _flatten(changes):
            path = change.resource.path
            result[path] = _as_written(root / path, change.new_contents)
        for path in created:
            result.setdefault(path, "")
        originals = {
            p: (root / p).read_bytes().decode("utf-8") for p in result if (root / p).exists()
        }
        changed = {p: t for p, t in result.items() if originals.get(p) != t}
        if not changed:
            return None
        return Target(candidate.kind, directive, candidate.name, new, changed)
    except Exception:  # rope refuses what it cannot refactor: not a case
        return None
    finally:
        project.close()


def _as_written(path: Path, contents: str) -> str:
    """``contents`` with the line ends rope writes: it reads a file's lines as LF and writes
    them back in the file's own ends, so a CRLF file's target is CRLF."""
    if not path.is_file():
        return contents
    data = path.read_bytes()
    if b"\r\n" in data and data.count(b"\n") == data.count(b"\r\n"):
        return contents.replace("\r\n", "\n").replace("\n", "\r\n")
    return contents


def _flatten(changes: Any) -> Iterator[Any]:
    """rope's ``ChangeContents`` leaves of a (nested) change set: each has ``resource`` and
    ``new_contents`` (rope ships no type information)."""
    inner = getattr(changes, "changes", None)
    if inner is None:
        if hasattr(changes, "new_contents"):
            yield changes
        return
    for change in inner:
        yield from _flatten(change)


def draw(root: Path, package: str, rng: random.Random, count: int) -> list[Candidate]:
    """Up to ``count`` candidates, kinds spread, used outside their module, in seeded order."""
    by_kind: dict[str, list[Candidate]] = {k: [] for k in KINDS}
    for candidate in candidates(root, package):
        by_kind[candidate.kind].append(candidate)
    for pool in by_kind.values():
        rng.shuffle(pool)
    picked: list[Candidate] = []
    kinds = list(KINDS)
    rng.shuffle(kinds)
    while len(picked) < count and any(by_kind.values()):
        for kind in kinds:
            pool = by_kind[kind]
            while pool:
                candidate = pool.pop()
                if used_elsewhere(root, package, candidate) >= 1:
                    picked.append(candidate)
                    break
            if len(picked) >= count:
                break
    return picked
