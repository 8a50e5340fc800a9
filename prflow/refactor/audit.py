"""The consistency auditor, in code: what one task's edits broke around them.

It compares the tree before and after a task and reports only what the task
introduced: imports of names or modules that no longer exist (orphaned
imports), calls whose arguments no longer fit the callee's signature or that
drop a coroutine (a sync-to-async change that missed a caller), new import
cycles, cross-layer imports (production code importing tests, or a lower
declared layer importing a higher one), and anti-patterns of the active React
rules of categories 1-3 (:mod:`prflow.refactor.react_audit`). Errors fail the
task's attempt; warnings go to the report.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from prflow.analysis.categories import is_test_file
from prflow.imports import ImportEdge, ImportGraph, build_import_graph
from prflow.imports.python_imports import (
    PythonModuleIndex,
    imports_of_module,
    is_python_file,
    resolve_python_imports,
)
from prflow.refactor.audit_finding import AuditFinding
from prflow.refactor.react_audit import react_findings
from prflow.source_tree import SourceTree

REEXPORT_HOPS = 3

Parses = dict[tuple[str, str], ast.Module | None]
"""(path, text) -> its syntax tree: a file the change left alone is parsed once for both
trees of an audit (and for both audits of a step, when the caller shares it)."""


class AuditReport(BaseModel):
    findings: list[AuditFinding] = Field(default_factory=list)
    checked_files: list[str] = Field(default_factory=list)

    @property
    def errors(self) -> list[AuditFinding]:
        return [f for f in self.findings if f.error]


def audit(
    changed: Sequence[str],
    before: SourceTree,
    after: SourceTree,
    *,
    active_rules: Sequence[str] = (),
    layers: Sequence[str] = (),
    extra_scope: Sequence[str] = (),
    graphs: tuple[ImportGraph, ImportGraph] | None = None,
    parses: Parses | None = None,
) -> AuditReport:
    """What the change from ``before`` to ``after`` (touching ``changed``) introduced, in the
    changed files, their importers and ``extra_scope``.

    ``graphs``: the import graphs of ``before`` and ``after`` when the caller has them
    (:mod:`prflow.refactor.graphs` derives them from the base commit's); else both are
    built whole, which parses every file of the tree. ``parses``: syntax trees to share
    with other audits of the same step.
    """
    parses = {} if parses is None else parses
    if graphs is None:
        graphs = build_import_graph(before), build_import_graph(after)
    graph_before, graph_after = graphs
    scope = sorted(
        {
            *changed,
            *extra_scope,
            *[imp for p in changed for imp in graph_after.importers_of(p)],
            *[imp for p in changed for imp in graph_before.importers_of(p)],
        }
    )
    scope = [p for p in scope if after.read_text(p) is not None]
    findings: list[AuditFinding] = []
    index_before = PythonModuleIndex.from_paths(before.paths())
    index_after = PythonModuleIndex.from_paths(after.paths())
    findings += _new_only(
        _python_findings(scope, after, parses, index_after, index_before),
        _python_findings(scope, before, parses, index_before, index_after),
    )
    findings += _cycles(changed, graph_before, graph_after)
    findings += _layers(changed, graph_before, graph_after, layers)
    for path in changed:
        findings += react_findings(
            path, before.read_text(path), after.read_text(path), after, active_rules
        )
    return AuditReport(findings=findings, checked_files=scope)


def _new_only(after: list[AuditFinding], before: list[AuditFinding]) -> list[AuditFinding]:
    seen = {(f.check, f.path, f.message) for f in before}
    return [f for f in after if (f.check, f.path, f.message) not in seen]


# ---------------------------------------------------------------- Python: imports and calls


@dataclass(frozen=True)
class Signature:
    name: str
    positional: tuple[str, ...]
    required_positional: int
    keyword_only: tuple[str, ...]
    required_keyword: tuple[str, ...]
    var_args: bool
    var_kwargs: bool
    is_async: bool

    @classmethod
    def of(cls, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Signature:
        args = node.args
        positional = tuple(a.arg for a in [*args.posonlyargs, *args.args])
        defaults = len(args.defaults)
        required_kw = tuple(
            a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None
        )
        return cls(
            name=node.name,
            positional=positional,
            required_positional=len(positional) - defaults,
            keyword_only=tuple(a.arg for a in args.kwonlyargs),
            required_keyword=required_kw,
            var_args=args.vararg is not None,
            var_kwargs=args.kwarg is not None,
            is_async=isinstance(node, ast.AsyncFunctionDef),
        )

    def misfit(self, call: ast.Call) -> str | None:
        """Why ``call`` does not fit this signature, or None."""
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords
        ):
            return None  # *args / **kwargs at the call site: cannot tell statically
        given = len(call.args)
        if given > len(self.positional) and not self.var_args:
            return (
                f"{self.name}() takes {len(self.positional)} positional arguments, "
                f"call gives {given}"
            )
        names = {k.arg for k in call.keywords if k.arg}
        known = {*self.positional, *self.keyword_only}
        unknown = sorted(n for n in names if n not in known)
        if unknown and not self.var_kwargs:
            return f"{self.name}() has no parameter {', '.join(unknown)}"
        filled = {*self.positional[:given], *names}
        missing = [p for p in self.positional[: self.required_positional] if p not in filled]
        missing += [k for k in self.required_keyword if k not in names]
        if missing:
            return f"{self.name}() call is missing {', '.join(missing)}"
        return None


def _parse(tree: SourceTree, path: str, parses: Parses | None = None) -> ast.Module | None:
    text = tree.read_text(path)
    if text is None:
        return None
    if parses is not None and (path, text) in parses:
        return parses[path, text]
    try:
        module: ast.Module | None = ast.parse(text, filename=path)
    except (SyntaxError, ValueError):
        module = None
    if parses is not None:
        parses[path, text] = module
    return module


def _top_level(module: ast.Module) -> tuple[set[str], dict[str, Signature], bool]:
    """Names a module defines, its top-level function signatures, and whether it has a
    module ``__getattr__`` (any name may then exist)."""
    names: set[str] = set()
    sigs: dict[str, Signature] = {}
    dynamic = False
    for node in module.body:
        for sub in _flatten(node):
            if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(sub.name)
                sigs[sub.name] = Signature.of(sub)
                dynamic |= sub.name == "__getattr__"
            elif isinstance(sub, ast.ClassDef):
                names.add(sub.name)
            elif isinstance(sub, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                for target in targets:
                    names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
            elif isinstance(sub, ast.Import | ast.ImportFrom):
                for alias in sub.names:
                    names.add((alias.asname or alias.name).split(".")[0])
    return names, sigs, dynamic


def _flatten(node: ast.stmt) -> Iterable[ast.stmt]:
    """A top-level statement, and those nested in its if/try/with blocks."""
    yield node
    if isinstance(node, ast.If | ast.Try | ast.With):
        for field in ("body", "orelse", "finalbody", "handlers"):
            for child in getattr(node, field, []):
                if isinstance(child, ast.ExceptHandler):
                    for inner in child.body:
                        yield from _flatten(inner)
                elif isinstance(child, ast.stmt):
                    yield from _flatten(child)


def _python_findings(
    scope: Sequence[str],
    tree: SourceTree,
    parses: Parses | None = None,
    index: PythonModuleIndex | None = None,
    other: PythonModuleIndex | None = None,
) -> list[AuditFinding]:
    """``other``: the module index of the tree on the other side of the change, so an
    absolute import of a project module one side no longer has is recognised as ours."""
    if index is None:
        index = PythonModuleIndex.from_paths(tree.paths())
    # Each file is parsed once per audit: every importer of a module asks for the names
    # and signatures it defines or re-exports.
    trees: dict[str, ast.Module | None] = {}
    modules: dict[str, tuple[set[str], dict[str, Signature], bool] | None] = {}
    edges: dict[str, list[ImportEdge]] = {}

    def parsed(path: str) -> ast.Module | None:
        if path not in trees:
            trees[path] = _parse(tree, path, parses)
        return trees[path]

    def facts(path: str) -> tuple[set[str], dict[str, Signature], bool] | None:
        if path not in modules:
            module = parsed(path)
            modules[path] = _top_level(module) if module is not None else None
        return modules[path]

    def edges_of(path: str) -> list[ImportEdge]:
        if path not in edges:
            module = parsed(path)
            imports = (
                imports_of_module(module, tree.read_text(path) or "")
                if module is not None
                else None
            )
            edges[path] = [] if imports is None else resolve_python_imports(path, imports, index)
        return edges[path]

    def signature(path: str, name: str, hops: int = 0) -> tuple[Signature, str] | None:
        """The signature ``name`` has in ``path``, following re-exports (``from .core
        import f`` in a package's ``__init__``) a few hops down."""
        found = facts(path)
        if found is None:
            return None
        if name in found[1]:
            return found[1][name], path
        if hops >= REEXPORT_HOPS:
            return None
        for edge in edges_of(path):
            if edge.names is not None and name in edge.names:
                return signature(edge.target, name, hops + 1)
        return None

    findings: list[AuditFinding] = []
    for path in scope:
        if not is_python_file(path):
            continue
        module = parsed(path)
        if module is None:
            findings.append(AuditFinding(check="syntax", path=path, message="does not parse"))
            continue
        nodes = list(ast.walk(module))  # walked once, read by each check below
        callees: dict[str, Signature] = dict(_top_level(module)[1])
        origin: dict[str, str] = {name: path for name in callees}
        local = _local_names(nodes)
        for edge in edges_of(path):
            target = facts(edge.target)
            if target is None or edge.names is None:
                continue
            defined, _, dynamic = target
            for name in edge.names:
                if name not in defined and not dynamic:
                    findings.append(
                        AuditFinding(
                            check="orphaned_import",
                            path=path,
                            message=f"imports {name} from {edge.target}, "
                            "which no longer defines it",
                            target=edge.target,
                        )
                    )
                else:
                    known = signature(edge.target, name)
                    if known is not None:
                        callees[local.get(name, name)], origin[local.get(name, name)] = known
        findings += _call_findings(path, nodes, callees, origin)
        findings += _unresolved_relative(path, nodes, index)
        findings += _unresolved_absolute(path, nodes, index, other or index)
        findings += _attribute_findings(path, module, nodes, index, facts)
    return findings


def _module_aliases(path: str, module: ast.Module, index: PythonModuleIndex) -> dict[str, str]:
    """Local names bound to a project module (not a package): ``from . import mod``,
    ``from pkg import mod as m``, ``import pkg.mod as m``."""
    import posixpath

    out: dict[str, str] = {}
    for statement in module.body:
        for node in _flatten(statement):
            if isinstance(node, ast.ImportFrom):
                parts = node.module.split(".") if node.module else []
                if node.level:
                    package = posixpath.dirname(path)
                    for _ in range(node.level - 1):
                        package = posixpath.dirname(package)
                    bases = [posixpath.join(package, *parts)]
                else:
                    bases = [posixpath.join(r, *parts) for r in index.search_dirs(path)]
                for alias in node.names:
                    for base in bases:
                        found = index.module_file(posixpath.join(base, alias.name))
                        if found is not None and not found.endswith("__init__.py"):
                            out[alias.asname or alias.name] = found
                            break
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname is None:
                        continue
                    for root in index.search_dirs(path):
                        found = index.module_file(posixpath.join(root, *alias.name.split(".")))
                        if found is not None and not found.endswith("__init__.py"):
                            out[alias.asname] = found
                            break
    return out


def _attribute_findings(
    path: str,
    module: ast.Module,
    nodes: Sequence[ast.AST],
    index: PythonModuleIndex,
    facts: Callable[[str], tuple[set[str], dict[str, Signature], bool] | None],
) -> list[AuditFinding]:
    """``mod.name`` where ``mod`` is a project module that does not define ``name``: a call
    through the module that a rename or a move left behind (``_fork_pty.fork_pty()``)."""
    aliases = _module_aliases(path, module, index)
    out: list[AuditFinding] = []
    seen: set[tuple[str, str]] = set()
    for node in nodes:
        if not isinstance(node, ast.Attribute) or not isinstance(node.value, ast.Name):
            continue
        target = aliases.get(node.value.id)
        known = facts(target) if target is not None else None
        if target is None or known is None or (node.value.id, node.attr) in seen:
            continue
        defined, _, dynamic = known
        if node.attr in defined or dynamic or node.attr.startswith("__"):
            continue
        seen.add((node.value.id, node.attr))
        out.append(
            AuditFinding(
                check="orphaned_attribute",
                path=path,
                line=node.lineno,
                message=f"uses {node.value.id}.{node.attr}, which {target} no longer defines",
                target=target,
            )
        )
    return out


def _local_names(nodes: Sequence[ast.AST]) -> dict[str, str]:
    """Each name ``from … import``-ed by the module, and the local name its first such
    import binds (``from m import f as g``: f -> g)."""
    out: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                out.setdefault(alias.name, alias.asname or alias.name)
    return out


def _unresolved_relative(
    path: str, nodes: Sequence[ast.AST], index: PythonModuleIndex
) -> list[AuditFinding]:
    """``from .gone import x`` where ``gone`` is no longer a module of the package."""
    import posixpath

    out: list[AuditFinding] = []
    for node in nodes:
        if not isinstance(node, ast.ImportFrom) or node.level == 0 or not node.module:
            continue
        package = posixpath.dirname(path)
        for _ in range(node.level - 1):
            package = posixpath.dirname(package)
        base = posixpath.join(package, *node.module.split("."))
        if index.module_file(base) is None:
            out.append(
                AuditFinding(
                    check="orphaned_import",
                    path=path,
                    line=node.lineno,
                    message=f"imports from .{node.module}, which is not a module any more",
                    target=base + ".py",
                )
            )
    return out


def _unresolved_absolute(
    path: str, nodes: Sequence[ast.AST], index: PythonModuleIndex, other: PythonModuleIndex
) -> list[AuditFinding]:
    """``from pkg.gone import x`` or ``import pkg.gone`` where ``pkg`` is a project package
    (or module) on either side of the change and ``pkg.gone`` is not a module of this tree:
    a move or a deletion that left an importer behind. Outside modules (``os``, installed
    packages) are never the project's, so they are never flagged; a project module neither
    side resolves (a C extension) is flagged on both sides and :func:`_new_only` drops it."""
    import posixpath

    out: list[AuditFinding] = []
    dirs = index.search_dirs(path)
    other_dirs = other.search_dirs(path)

    def resolves(ix: PythonModuleIndex, roots: Sequence[str], parts: list[str]) -> str | None:
        for root in roots:
            found = ix.module_file(posixpath.join(root, *parts))
            if found is not None:
                return found
        return None

    def namespace(parts: list[str]) -> bool:
        prefixes = tuple(posixpath.join(root, *parts) + "/" for root in dirs)
        return any(f.startswith(prefixes) for f in index.files)

    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            dotted = [node.module]
        elif isinstance(node, ast.Import):
            dotted = [alias.name for alias in node.names]
        else:
            continue
        for name in dotted:
            parts = name.split(".")
            if resolves(index, dirs, parts) is not None:
                continue
            ours = resolves(index, dirs, parts[:1]) or resolves(other, other_dirs, parts[:1])
            if ours is None or namespace(parts):
                continue
            target = resolves(other, other_dirs, parts) or posixpath.join(*parts) + ".py"
            out.append(
                AuditFinding(
                    check="orphaned_import",
                    path=path,
                    line=node.lineno,
                    message=f"imports {name}, which is not a module any more",
                    target=target,
                )
            )
    return out


def _call_findings(
    path: str, nodes: Sequence[ast.AST], callees: dict[str, Signature], origin: dict[str, str]
) -> list[AuditFinding]:
    parents: dict[ast.AST, ast.AST] = {}
    if any(sig.is_async for sig in callees.values()):  # only a coroutine needs the parents
        for node in nodes:
            for child in ast.iter_child_nodes(node):
                parents[child] = node
    out: list[AuditFinding] = []
    for node in nodes:
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        sig = callees.get(node.func.id)
        if sig is None:
            continue
        problem = sig.misfit(node)
        source = origin.get(node.func.id, "")
        if problem is not None:
            out.append(AuditFinding(check="signature", path=path, message=problem, target=source))
        if sig.is_async and _drops_coroutine(node, parents):
            out.append(
                AuditFinding(
                    check="unawaited",
                    path=path,
                    message=f"{sig.name}() is async now; a caller uses it without await",
                    target=source,
                )
            )
    return out


COROUTINE_CONSUMERS = frozenset(
    {
        "gather",
        "run",
        "create_task",
        "ensure_future",
        "wait_for",
        "shield",
        "wait",
        "run_until_complete",
        "as_completed",
        "start_soon",
        "run_coroutine_threadsafe",
    }
)


def _drops_coroutine(call: ast.Call, parents: dict[ast.AST, ast.AST]) -> bool:
    """A coroutine that is neither awaited nor handed to something that runs it."""
    parent = parents.get(call)
    while isinstance(parent, ast.keyword | ast.Starred | ast.List | ast.Tuple):
        parent = parents.get(parent)
    if isinstance(parent, ast.Await | ast.Return | ast.Lambda | ast.ListComp | ast.GeneratorExp):
        return False
    if isinstance(parent, ast.Call):
        func = parent.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name not in COROUTINE_CONSUMERS
    return True


# ---------------------------------------------------------------- graph: cycles and layers


def _sccs(graph: ImportGraph) -> list[frozenset[str]]:
    """Strongly connected components with more than one file (import cycles)."""
    succ: dict[str, set[str]] = {}
    for edge in graph.edges:
        if edge.importer != edge.target:
            succ.setdefault(edge.importer, set()).add(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[frozenset[str]] = []
    counter = 0
    for root in sorted(succ):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(succ.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, sorted(succ.get(nxt, ()))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp: set[str] = set()
                while True:
                    top = stack.pop()
                    on.discard(top)
                    comp.add(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    out.append(frozenset(comp))
    return out


def _cycles(changed: Sequence[str], before: ImportGraph, after: ImportGraph) -> list[AuditFinding]:
    old = _sccs(before)
    touched = set(changed)
    out: list[AuditFinding] = []
    for comp in _sccs(after):
        if not comp & touched or any(comp <= o for o in old):
            continue
        members = sorted(comp)
        out.append(
            AuditFinding(
                check="cycle",
                path=sorted(comp & touched)[0],
                message=f"new import cycle: {' -> '.join(members)}",
            )
        )
    return out


def _layer_of(path: str, layers: Sequence[str]) -> int | None:
    for n, prefix in enumerate(layers):
        if path.startswith(prefix.rstrip("/") + "/"):
            return n
    return None


def _layers(
    changed: Sequence[str], before: ImportGraph, after: ImportGraph, layers: Sequence[str]
) -> list[AuditFinding]:
    old = {(e.importer, e.target) for e in before.edges}
    touched = set(changed)
    out: list[AuditFinding] = []
    for edge in after.edges:
        if edge.importer not in touched or (edge.importer, edge.target) in old:
            continue
        if is_test_file(edge.target) and not is_test_file(edge.importer):
            out.append(
                AuditFinding(
                    check="layer",
                    path=edge.importer,
                    message=f"production code now imports test code ({edge.target})",
                )
            )
            continue
        low, high = _layer_of(edge.importer, layers), _layer_of(edge.target, layers)
        if low is not None and high is not None and high > low:
            out.append(
                AuditFinding(
                    check="layer",
                    path=edge.importer,
                    message=f"{layers[low]} must not import the higher layer {layers[high]} "
                    f"({edge.target})",
                )
            )
    return out


@dataclass
class Judgement:
    """One step's audit, judged by what it owns: errors fail the attempt, warnings are
    reported, and ``waits_for`` names the later steps the step's edits need (a finding
    it left in their files, or one in its own files that depends on theirs): if one of
    them does not land, this step cannot either."""

    errors: list[AuditFinding] = field(default_factory=list)
    warnings: list[AuditFinding] = field(default_factory=list)
    waits_for: list[str] = field(default_factory=list)


def judge(
    in_task: Sequence[AuditFinding],
    in_run: Sequence[AuditFinding],
    *,
    own: Sequence[str],
    later: Mapping[str, str],
) -> Judgement:
    """What one step answers for, from two audits: what the step introduced (``in_task``)
    and what the run introduced so far (``in_run``). ``later`` maps each file a step that
    has not finished yet will change to that step's id.

    A step of a multi-step refactor leaves work for the steps after it: a finding in a
    file a later step owns is a warning, left for that step; so is a finding in the step's
    own file that depends on a file a later step changes (it imports a name the next step
    defines). The step answers for everything else new in its own files since the run
    began, even when an earlier step caused it, and for anything it introduced elsewhere.
    The final validation of the whole change decides what is left.
    """
    mine = set(own)
    out = Judgement()
    waits: set[str] = set()
    seen: set[tuple[str, str, str]] = set()
    for finding in [*in_run, *in_task]:
        key = (finding.check, finding.path, finding.message)
        if key in seen:
            continue
        seen.add(key)
        from_run = finding in in_run and finding not in in_task
        owner = later.get(finding.path) if finding.path not in mine else None
        waits_on = later.get(finding.target) if finding.target not in mine else None
        if owner is not None:
            out.warnings.append(_left_for(finding, owner))
            if not from_run:
                waits.add(owner)  # this step broke that file: it needs that step to land
        elif waits_on is not None and (finding.path in mine or not from_run):
            out.warnings.append(_left_for(finding, waits_on))
            waits.add(waits_on)
        elif finding.path in mine or not from_run:
            (out.errors if finding.error else out.warnings).append(finding)
    out.waits_for = sorted(waits)
    return out


def _left_for(finding: AuditFinding, step: str) -> AuditFinding:
    return finding.model_copy(
        update={"error": False, "message": f"{finding.message} (left for step {step})"}
    )
