"""What a change altered that docs name: symbols, paths, CLI options, config keys, env vars.

Symbols come from impact's API surface diff (:mod:`prflow.analysis.breaking`),
so a rename or a changed signature is judged once for both kinds; a module that
impact reports removed also removes the public functions and classes it defined,
unless the head still defines them elsewhere in the package (they moved); a function
whose return type changed carries what changed (:mod:`prflow.docsync.results`). The rest is
read from the changed files' removed and added lines: an option, key or
variable that was in the base and is gone from the head's changed files is
removed; one on a line that changed but still exists is modified.
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from typing import Any

from prflow.analysis.categories import is_test_file
from prflow.analysis.findings import STILL_DEFINED, BreakingChange, BreakingKind
from prflow.analysis.stale_docs import _python_module
from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.docsync.inherited import kept_members
from prflow.docsync.mentions import changed_params, is_vague, names_its_module
from prflow.docsync.models import Change, Target, TargetKind
from prflow.docsync.results import return_change
from prflow.source_tree import SourceTree

WEIGHTS = {
    Change.removed: 1.0,
    Change.renamed: 1.0,
    Change.signature: 0.9,
    Change.modified: 0.35,
}
"""A changed type or base class alone (``modified``) leaves most prose true: probably fine."""
MODIFIED_PATH_WEIGHT = 0.3
"""A doc naming a file that merely changed is probably fine unless other evidence adds up."""
MODIFIED_NAME_WEIGHT = 0.35
"""An option or variable still there on a changed line (its help text, its default) is
probably fine alone; removed ones are what leaves docs wrong."""

_CLI_OPTION = re.compile(r"""(?<![\w-])(--[a-z][a-z0-9]*(?:-[a-z0-9]+)+|--[a-z]{3,})(?![\w-])""")
_ENV_VAR = re.compile(
    r"""(?:environ(?:\.get)?\s*[\[(]\s*|getenv\s*\(\s*|env(?:var)?\s*=\s*|process\.env\.|"""
    r"""process\.env\[\s*)["']?([A-Z][A-Z0-9]*_[A-Z0-9_]+)"""
)
_CONFIG_SUFFIXES = (".toml", ".yaml", ".yml", ".json", ".ini", ".cfg")
_NOT_USER_CONFIG = ("package-lock.json", "poetry.lock", "tsconfig", "pyproject.toml", ".github/")


def find_targets(
    changed: list[ChangedFile],
    breaking: list[BreakingChange],
    base: SourceTree,
    head: SourceTree,
) -> list[Target]:
    """Every target, de-duplicated by (kind, name) keeping the strongest change."""
    found: dict[tuple[TargetKind, str], Target] = {}
    breaking = _with_lost_members(_without_script_changes(breaking, base))
    breaking = _without_inherited(breaking, head)
    returns = _return_changes(breaking)
    for target in [
        *_symbol_targets(breaking, _defined_elsewhere(breaking, head)),
        *_removed_module_members(changed, breaking, base, head),
        *_path_targets(changed),
        *_line_targets(changed, base, head),
        *_config_key_targets(changed, base, head),
    ]:
        key = (target.kind, target.name)
        if key not in found or target.weight > found[key].weight:
            found[key] = target
    for (kind, name), target in found.items():
        if kind == TargetKind.symbol and name in returns and target.returns is None:
            found[(kind, name)] = target.model_copy(update={"returns": returns[name]})
    return sorted(found.values(), key=lambda t: (-t.weight, t.kind, t.name))


def _without_script_changes(
    breaking: list[BreakingChange], base: SourceTree
) -> list[BreakingChange]:
    """Impact's report without what changed in scripts. Nobody imports a script's names:
    - under a top-level docs, examples or tools folder, none of its names is the library's:
      a README's ``r`` is no removed ``tools/validate_runtests_log.r``, pyparsing's
      ``MatchFirst`` no name its examples package stopped re-exporting. A removed module
      stays (flask's tutorial walks through ``examples/flaskr``; a call of its name is
      no use of it either way);
    - in any other folder that is no package, the names it no longer re-exports though they
      are still defined where they came from (matplotlib 2.0's example scripts: ``plot`` is
      still ``matplotlib.pyplot.plot``). Its own definitions stay: a namespace package has
      no ``__init__.py`` either.
    A doc naming the script's file still has the file's own target."""
    return [
        b
        for b in breaking
        if b.language != "python"
        or not (
            (_NOT_SHIPPED.match(b.file) and not names_its_module(b.symbol, b.file))
            or (
                b.kind == BreakingKind.removed_export
                and STILL_DEFINED in b.detail
                and _in_a_script_folder(b.file, base)
            )
        )
    ]


_FOR_READERS = "docs?|examples?|demos?|samples?|tutorials?|benchmarks?"
_EXAMPLE_CODE = re.compile(rf"(?:{_FOR_READERS})/", re.IGNORECASE)
"""Top-level folders of code written for readers: an example's ``--count`` option is its
own (click 6.0 dropped one that five docs also define for themselves)."""
_NOT_SHIPPED = re.compile(rf"(?:{_FOR_READERS}|tools|scripts)/", re.IGNORECASE)
"""Top-level folders whose code is not the library, with an ``__init__.py`` or not
(pyparsing 3's ``examples`` package). Its names are no targets; an installed script's
options still are, being the project's command line."""


def _in_a_script_folder(path: str, base: SourceTree) -> bool:
    """``doc/pyplots/boxplot_demo.py``: in a folder that is no package (a single-module
    project's ``six.py`` or ``src/six.py`` is importable)."""
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    if folder in ("", "src", "lib"):
        return False
    return base.read_text(f"{folder}/__init__.py") is None


_LOST_MEMBER = re.compile(r"no longer inherits `([\w$]+)` from ")


def _with_lost_members(breaking: list[BreakingChange]) -> list[BreakingChange]:
    """Impact's report with a class that stopped inheriting a member reported as that
    member removed: altair 4's ``Chart`` lost ``savechart``, and ``alt.Chart(data)`` is as
    right as before, while ``chart.savechart(...)`` fails."""
    return [_as_lost_member(b) for b in breaking]


def _as_lost_member(item: BreakingChange) -> BreakingChange:
    lost = _LOST_MEMBER.match(item.detail) if item.kind == BreakingKind.removed_export else None
    if lost is None or item.language != "python":
        return item
    return item.model_copy(update={"symbol": f"{item.symbol}.{lost.group(1)}"})


def _without_inherited(breaking: list[BreakingChange], head: SourceTree) -> list[BreakingChange]:
    """Impact's report without the removed members the head's class still has, defined or
    inherited from a base class of the package (pexpect 4.0 moved ``spawn.expect`` into
    ``SpawnBase``: ``child.expect(...)`` still works)."""
    members = {
        b.symbol: (b.symbol.split(".")[0], b.symbol.split(".")[1])
        for b in breaking
        if b.kind == BreakingKind.removed_export
        and b.symbol.count(".") == 1  # ``Class.member``; a nested class's name says too little
        and _python_module(b.file) != b.symbol
        and b.language == "python"
    }
    if not members:
        return breaking
    roots = {_package_root(b.file) for b in breaking if b.symbol in members}
    kept = kept_members(head, roots, set(members.values()))
    return [b for b in breaking if members.get(b.symbol) not in kept]


def _return_changes(breaking: Iterable[BreakingChange]) -> dict[str, str]:
    """Symbol -> what changed in its return type, from a ``changed_type`` detail or the
    renderings of any report on it (a changed signature may change the return type too;
    whichever target wins for the symbol carries it)."""
    found: dict[str, str] = {}
    for item in breaking:
        if item.kind not in (BreakingKind.changed_type, BreakingKind.changed_signature):
            continue
        change = return_change(item.before, item.after, item.detail)
        if change is not None:
            found.setdefault(item.symbol, change)
    return found


_WAS_READ = ("changed from property to function", "changed from attribute to function")
"""Impact's detail for a value callers read that is now a function (arrow 1.0's
``Arrow.timestamp``: ``a.timestamp`` is a bound method now). An attribute that became a
class is not one: ``Token = ...`` -> ``class Token`` may still be used as it was."""


def _defined_elsewhere(breaking: list[BreakingChange], head: SourceTree) -> set[str]:
    """Removed names the package still defines elsewhere, so a bare mention cannot tell
    which one a doc means:
    - a top-level function or class another module still defines at its top level:
      testfixtures 12 dropped ``testfixtures.django.compare``, and a doc's ``compare(...)``
      is the ``testfixtures.compare`` that stays; only a line reaching the name through the
      module it left uses the removed one;
    - a class's method another class still defines: altair 4 dropped Vega-Lite 2's
      ``TopLevelMixin.add_selection``, and ``alt.Chart(data).add_selection(...)`` calls
      version 4's; only a receiver naming the old class uses the removed one."""
    removed = [
        b
        for b in breaking
        if b.kind == BreakingKind.removed_export
        and b.language == "python"
        and re.fullmatch(r"\w+(?:\.\w+)?", b.symbol)
        and _python_module(b.file) not in (None, b.symbol)
        and STILL_DEFINED not in b.detail
        and not b.symbol.rsplit(".", 1)[-1].startswith("__")
    ]
    if not removed:
        return set()
    top_level = {b.symbol: b.file for b in removed if "." not in b.symbol}
    members = {b.symbol.split(".")[1]: b.symbol for b in removed if "." in b.symbol}
    roots = {_package_root(b.file) for b in removed}
    found: set[str] = set()
    for path, name in _definitions(head, roots, set(top_level), indented=False):
        if path != top_level[name]:
            found.add(name)
    for _, name in _definitions(head, roots, set(members), indented=True):
        found.add(members[name])
    return found


def _symbol_targets(
    breaking: Iterable[BreakingChange], defined_elsewhere: Collection[str] = ()
) -> Iterator[Target]:
    """``defined_elsewhere``: removed names another module still defines (moved, as far as
    a doc's bare mention can tell)."""
    for item in breaking:
        if item.symbol == "default" or not re.fullmatch(r"[\w$]+(\.[\w$]+)*", item.symbol):
            continue
        change = {
            BreakingKind.removed_export: Change.removed,
            BreakingKind.renamed_export: Change.renamed,
            BreakingKind.changed_signature: Change.signature,
        }.get(item.kind, Change.modified)
        detail = item.detail
        if item.before and item.after:
            detail = f"{item.before} -> {item.after}"
        yield Target(
            kind=TargetKind.symbol,
            name=item.symbol,
            change=change,
            weight=WEIGHTS[change],
            detail=detail,
            replacement=item.new_name,
            source=item.file,
            params=changed_params(item.before, item.after) if change == Change.signature else [],
            before=item.before if change == Change.signature else None,
            after=item.after if change == Change.signature else None,
            reads_break=change == Change.signature and item.detail.startswith(_WAS_READ),
            moved=change == Change.removed
            and (STILL_DEFINED in item.detail or item.symbol in defined_elsewhere),
        )


def _removed_module_members(
    changed: Iterable[ChangedFile],
    breaking: Iterable[BreakingChange],
    base: SourceTree,
    head: SourceTree,
) -> Iterator[Target]:
    """The public functions and classes of each module impact reports removed whose file is
    gone (``jit_data`` of a removed ``json_graph/jit.py``: docs name the function, not the
    module), except those the head still defines in the same top-level package (moved) and
    plain-word names (a doc's ``main()`` is its own). Only modules of a package count."""
    deleted = {c.path for c in changed if c.status is FileStatus.deleted}
    modules = [
        b
        for b in breaking
        if b.kind == BreakingKind.removed_export
        and b.file in deleted
        and _python_module(b.file) == b.symbol
        and "." in b.symbol  # a module of a package, not a top-level script
        and not is_test_file(b.file)
    ]
    members: dict[str, BreakingChange] = {}
    for module in modules:
        for name in _public_definitions(base.read_text(module.file) or ""):
            if not is_vague(name):  # a bare ``main()`` in a doc is the doc's own
                members.setdefault(name, module)
    if not members:
        return
    roots = {_package_root(m.file) for m in members.values()}
    still = _defined_in(head, roots, set(members))
    for name, module in sorted(members.items()):
        if name in still:
            continue
        yield Target(
            kind=TargetKind.symbol,
            name=name,
            change=Change.removed,
            weight=WEIGHTS[Change.removed],
            detail=f"removed with module {module.symbol}",
            source=module.file,
        )


def _public_definitions(source: str) -> list[str]:
    """Top-level public functions and classes of a module (those of ``__all__`` when the
    module lists it); none when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    defined = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and not node.name.startswith("_")
    ]
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.List | ast.Tuple):
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            listed = {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
            return [name for name in defined if name in listed]
    return defined


def _package_root(path: str) -> str:
    parts = path.split("/")
    return "/".join(parts[:2]) if parts[0] in ("src", "lib") and len(parts) > 2 else parts[0]


def _defined_in(head: SourceTree, roots: set[str], names: set[str]) -> set[str]:
    """Which of ``names`` a Python file of the head under ``roots`` defines or assigns."""
    pattern = re.compile(
        r"^[ \t]*(?:(?:async[ \t]+)?def|class)[ \t]+(" + "|".join(map(re.escape, names)) + r")\b"
        r"|^(" + "|".join(map(re.escape, names)) + r")[ \t]*=",
        re.MULTILINE,
    )
    found: set[str] = set()
    for path in head.paths():
        if not path.endswith(".py") or not any(path.startswith(r + "/") for r in roots):
            continue
        for match in pattern.finditer(head.read_text(path) or ""):
            found.add(match.group(1) or match.group(2))
        if found == names:
            break
    return found


def _definitions(
    head: SourceTree, roots: set[str], names: set[str], *, indented: bool
) -> Iterator[tuple[str, str]]:
    """``(path, name)`` for each of ``names`` a Python file of the head under ``roots``
    defines: at its top level (a function, a class or an assignment; a method of the same
    name is another object), or ``indented``, as a method."""
    if not names:
        return
    alternatives = "|".join(map(re.escape, sorted(names)))
    definition = rf"(?:(?:async[ \t]+)?def|class)[ \t]+({alternatives})\b"
    pattern = (
        re.compile(rf"^[ \t]+(?:async[ \t]+)?def[ \t]+({alternatives})\b", re.MULTILINE)
        if indented
        else re.compile(rf"^{definition}|^({alternatives})[ \t]*=", re.MULTILINE)
    )
    for path in head.paths():
        if path.endswith(".py") and any(path.startswith(r + "/") for r in roots):
            for match in pattern.finditer(head.read_text(path) or ""):
                yield path, match.group(1) or match.group(2)


def _path_targets(changed: Iterable[ChangedFile]) -> Iterator[Target]:
    for item in changed:
        if item.category == FileCategory.doc:
            continue
        if item.status is FileStatus.deleted:
            yield Target(kind=TargetKind.path, name=item.path, change=Change.removed, weight=1.0)
        elif item.status is FileStatus.renamed and item.old_path and item.old_path != item.path:
            yield Target(
                kind=TargetKind.path,
                name=item.old_path,
                change=Change.renamed,
                weight=1.0,
                replacement=item.path,
            )
        elif item.status is FileStatus.modified and item.category == FileCategory.source:
            yield Target(
                kind=TargetKind.path,
                name=item.path,
                change=Change.modified,
                weight=MODIFIED_PATH_WEIGHT,
            )


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """The removed and the added lines between two texts: each line one side has more often
    than the other, in order. A moved line is no change, and the cost stays linear: a line
    diff of a large generated file (scipy's) is quadratic and took minutes."""
    old, new = before.splitlines(), after.splitlines()
    return _beyond(old, new), _beyond(new, old)


def _beyond(lines: list[str], other: list[str]) -> list[str]:
    """The lines of ``lines`` left over once each line of ``other`` has cancelled one."""
    left = Counter(other)
    extra: list[str] = []
    for line in lines:
        if left[line]:
            left[line] -= 1
        else:
            extra.append(line)
    return extra


def _line_targets(
    changed: Iterable[ChangedFile], base: SourceTree, head: SourceTree
) -> Iterator[Target]:
    """CLI options and environment variables on the changed lines of source files."""
    removed_text: list[str] = []
    added_text: list[str] = []
    head_text: list[str] = []
    sources: dict[str, str] = {}
    for item in changed:
        if item.category != FileCategory.source or item.binary or _EXAMPLE_CODE.match(item.path):
            continue
        before = base.read_text(item.old_path or item.path) or ""
        after = head.read_text(item.path) or "" if item.status is not FileStatus.deleted else ""
        removed, added = changed_lines(before, after)
        removed_text += removed
        added_text += added
        head_text.append(after)
        for line in removed:
            for name in _names(line):
                sources.setdefault(name, item.path)
    still_there = "\n".join(head_text)
    added_names = {name for line in added_text for name in _names(line)}
    for line in removed_text:
        for pattern, kind in ((_CLI_OPTION, TargetKind.cli_option), (_ENV_VAR, TargetKind.env_var)):
            for match in pattern.finditer(line):
                name = match.group(1)
                gone = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", still_there) is None
                if not gone and name not in added_names:
                    continue
                change = Change.removed if gone else Change.modified
                yield Target(
                    kind=kind,
                    name=name,
                    change=change,
                    weight=WEIGHTS[change] if gone else MODIFIED_NAME_WEIGHT,
                    detail=line.strip()[:160],
                    source=sources.get(name),
                )


def _names(line: str) -> set[str]:
    return {m.group(1) for p in (_CLI_OPTION, _ENV_VAR) for m in p.finditer(line)}


def _config_key_targets(
    changed: Iterable[ChangedFile], base: SourceTree, head: SourceTree
) -> Iterator[Target]:
    """Keys of a changed configuration file that the head no longer has. A test's fixture is
    no user's configuration (pymdown-extensions 7.0 dropped ``tests/extensions/extrarawhtml/
    tests.yml``, whose ``extensions`` key every ``markdown.Markdown(extensions=[...])``
    example would match)."""
    for item in changed:
        path = item.old_path or item.path
        if not path.endswith(_CONFIG_SUFFIXES) or any(n in path for n in _NOT_USER_CONFIG):
            continue
        if is_test_file(path):
            continue
        before = _config_keys(path, base.read_text(path))
        after = (
            set()
            if item.status is FileStatus.deleted
            else _config_keys(item.path, head.read_text(item.path))
        )
        leaves = {key.rsplit(".", 1)[-1] for key in after}
        for key in sorted(before - after):
            yield Target(
                kind=TargetKind.config_key,
                name=key,
                change=Change.removed,
                weight=WEIGHTS[Change.removed],
                detail=f"gone from {item.path}",
                source=item.path,
                leaf_alive=key.rsplit(".", 1)[-1] in leaves,
            )


def _config_keys(path: str, text: str | None) -> set[str]:
    """Dotted keys of a TOML, YAML or JSON document (empty when it does not parse)."""
    if not text:
        return set()
    import yaml  # loaded for the first config document, not when the worker starts

    data: Any
    try:
        if path.endswith(".toml"):
            data = tomllib.loads(text)
        elif path.endswith(".json"):
            data = json.loads(text)
        elif path.endswith((".yaml", ".yml")):
            data = yaml.safe_load(text)
        else:
            return set()
    except (ValueError, yaml.YAMLError):
        return set()
    if _is_json_schema(data):
        return set()
    keys: set[str] = set()
    _walk(data, "", keys, depth=0)
    return keys


_SCHEMA_WORDS = frozenset(
    {"definitions", "$defs", "defs", "properties", "$ref", "allOf", "anyOf", "oneOf"}
)
"""Top-level words of a schema document (Vega's own schema keeps its parts under ``defs``)."""


def _is_json_schema(data: Any) -> bool:
    """A JSON Schema document: its keys (``definitions.BarConfig.properties.color``) are the
    shape of a schema, not settings anyone writes (altair 4 dropped Vega-Lite 2's). A config
    file that only names its schema (``"$schema": ".../renovate-schema.json"``) is none."""
    return isinstance(data, dict) and "$schema" in data and bool(_SCHEMA_WORDS & data.keys())


def _walk(data: Any, prefix: str, keys: set[str], depth: int) -> None:
    if not isinstance(data, dict) or depth > 4:
        return
    for key, value in data.items():
        if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z_][\w-]*", key):
            continue
        dotted = f"{prefix}.{key}" if prefix else key
        keys.add(dotted)
        _walk(value, dotted, keys, depth + 1)
