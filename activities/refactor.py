"""Activities of the ``refactor`` kind: index, prompts, plan check, audit, compose, artifacts.

The workspace itself (edits, read tools, test runs, export, apply, branch,
PR) belongs to the platform (:mod:`activities.workspace`,
:mod:`activities.test_runs`); these read a workspace as the base commit's
tree overlaid with the run's changed files, which is what every worker can
rebuild from a :class:`~prflow.workspace.models.WorkspaceRef` alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field
from temporalio import activity

from activities.agent_messages import prepare_prompt
from activities.heartbeats import heartbeating
from prflow.agent.messages import AgentPrompt, PreparedPrompt
from prflow.analysis.test_mapping import TestFiles, find_related_tests, is_test_file
from prflow.config import cached_settings
from prflow.git.repo import GitRepoReader, import_graph, open_repo, snapshot_tree
from prflow.imports import ImportGraph
from prflow.imports.build import is_skipped
from prflow.refactor.audit import audit, judge
from prflow.refactor.blame import FailedTest, Regression, blame
from prflow.refactor.graphs import GraphMemory, state_graph
from prflow.refactor.messages import (
    FINISH_TASK,
    SUBMIT_PLAN,
    executor_message,
    load_prompt,
    planner_message,
)
from prflow.refactor.plan import RefactorPlan, check_plan, in_scope
from prflow.refactor.react_rules import active_rules
from prflow.refactor.report import ReportFacts, pr_summary, validation_report
from prflow.refactor_index.models import RepoIndex
from prflow.refactor_index.retrieval import RetrievalSettings
from prflow.source_tree import SourceTree
from prflow.store.blobs import get_blob, get_json, put_json, put_text
from prflow.store.parse_cache import StoreParseCache
from prflow.workspace.models import WorkspaceRef, WorkspaceState, overlay_paths
from prflow.workspace.patches import file_diff
from prflow.workspace.tools import READ_TOOLS, WORKSPACE_TOOL_SPECS

if TYPE_CHECKING:  # the index builder and search load numpy: imported when an activity runs
    from prflow.refactor_index.build import IndexCaches

MAX_RELEVANT = 15
READ_SPECS = [spec for spec in WORKSPACE_TOOL_SPECS if spec.name in READ_TOOLS]
MAX_CONTEXT_FILES = 8
STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "to",
        "of",
        "in",
        "on",
        "for",
        "with",
        "across",
        "all",
        "every",
        "its",
        "their",
        "from",
        "into",
        "by",
        "as",
        "is",
        "are",
        "be",
        "update",
        "convert",
        "make",
        "use",
        "using",
        "replace",
        "callers",
        "tests",
        "test",
        "code",
        "project",
    ]
)


def _db() -> str:
    return cached_settings().resolved_database_url()


def _caches() -> IndexCaches:
    from prflow.refactor_index.build import IndexCaches
    from prflow.store.embeddings import StoreVectorCache

    db = _db()

    def beat(message: str) -> None:
        if activity.in_activity():
            activity.heartbeat(message)

    return IndexCaches(parses=StoreParseCache(db), vectors=StoreVectorCache(db), progress=beat)


# ---------------------------------------------------------------- the workspace as a tree


class OverlayTree:
    """The base commit's files with the workspace's changes laid over them."""

    def __init__(self, base: SourceTree, changes: dict[str, str | None], db: str) -> None:
        self._base = base
        self._changes = changes
        self._db = db
        self._cache: dict[str, str | None] = {}

    @property
    def root(self) -> Path | None:
        return None

    def paths(self) -> list[str]:
        return overlay_paths(self._base.paths(), self._changes)

    def read_text(self, path: str) -> str | None:
        if path not in self._changes:
            return self._base.read_text(path)
        if path not in self._cache:
            key = self._changes[path]
            self._cache[path] = (
                None if key is None else get_blob(self._db, key).decode("utf-8", "replace")
            )
        return self._cache[path]

    def size_of(self, path: str) -> int | None:
        text = self.read_text(path) if path in self._changes else None
        return len(text.encode()) if text is not None else self._base.size_of(path)


def state_of(ref: WorkspaceRef) -> dict[str, str | None]:
    if ref.state_key is None:
        return {}
    return WorkspaceState.model_validate(get_json(_db(), ref.state_key)).files


def workspace_tree(ref: WorkspaceRef) -> SourceTree:
    reader = GitRepoReader(open_repo(ref.repo))
    return OverlayTree(reader.tree(ref.base_sha), state_of(ref), _db())


_STATE_GRAPHS = GraphMemory(size=8)  # a Django-sized graph holds about 6 MB


def workspace_graph(ref: WorkspaceRef, tree: SourceTree | None = None) -> ImportGraph:
    """The import graph of a workspace state (``tree``: its :func:`workspace_tree`).

    The base commit's graph is built once per commit (kept in memory and beside the
    snapshot, :func:`prflow.git.repo.import_graph`); a state's graph re-reads only the
    files the state changed (:func:`prflow.refactor.graphs.state_graph`) and is kept in
    memory by state, so a step's "after" is often the next step's "before".
    """
    from prflow.analysis.parse_cache import ParsedFiles
    from prflow.analysis.py_summary import cached_imports, summary_parser

    repo = open_repo(ref.repo)
    base_graph = import_graph(repo, ref.base_sha)
    changes = state_of(ref)
    if not changes:
        return base_graph
    state = tree if tree is not None else workspace_tree(ref)

    def build() -> ImportGraph:
        parsed = ParsedFiles(summary_parser(), StoreParseCache(_db()))
        exists = {path: key is not None for path, key in changes.items()}
        base = snapshot_tree(repo, ref.base_sha)
        return state_graph(base_graph, base, state, exists, cached_imports(parsed, state))

    return _STATE_GRAPHS.get_or_build((repo.key, ref.base_sha, ref.state_key or ""), build)


# ---------------------------------------------------------------- index


class IndexInput(BaseModel):
    workspace: WorkspaceRef
    directive: str
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)


class IndexData(BaseModel):
    paths: list[str]
    test_paths: list[str]
    relevant: list[str]
    react_project: bool
    rule_ids: list[str]
    repo_index_key: str = Field(description="The symbol/embedding index (prflow.refactor_index)")
    bundle_key: str = Field(description="The directive's recorded retrieval bundle")


class IndexSummary(BaseModel):
    key: str
    repo_index_key: str
    files: int
    indexed: int
    test_files: int
    react_project: bool
    rule_ids: list[str]


def is_react_project(tree: SourceTree) -> bool:
    """A package.json anywhere outside vendored code that depends on react or next."""
    for path in tree.paths():
        if path.rsplit("/", 1)[-1] != "package.json" or is_skipped(path):
            continue
        try:
            data = json.loads(tree.read_text(path) or "{}")
        except ValueError:
            continue
        deps = {**data.get("dependencies", {}), **data.get("devDependencies", {})}
        if "react" in deps or "next" in deps:
            return True
    return False


def lexical_relevance(tree: SourceTree, paths: Iterable[str], directive: str) -> list[str]:
    """Files whose names and text share the directive's words, best first."""
    words = {w for w in re.findall(r"[a-z_][a-z0-9_]{2,}", directive.lower()) if w not in STOPWORDS}
    if not words:
        return []
    scored: list[tuple[float, str]] = []
    for path in paths:
        text = (tree.read_text(path) or "")[:200_000].lower()
        name = path.lower()
        score = sum(3 for w in words if w in name) + sum(min(text.count(w), 5) for w in words)
        if score:
            scored.append((-score, path))
    return [path for _, path in sorted(scored)[:MAX_RELEVANT]]


@activity.defn(name="refactor_index")
@heartbeating
def refactor_index(inp: IndexInput) -> IndexSummary:
    """The files the run may touch (in scope), the symbol and embedding index of its code,
    the directive's retrieval bundle, tests, and the active React rules."""
    from prflow.refactor_index.build import build_index
    from prflow.refactor_index.search import retrieve as retrieve_bundle

    db = _db()
    tree = workspace_tree(inp.workspace)
    paths = [p for p in tree.paths() if not is_skipped(p) and in_scope(p, inp.include, inp.exclude)]
    tests = [p for p in paths if is_test_file(p)]
    caches = _caches()
    index = build_index(tree, caches, include=inp.include, exclude=inp.exclude)
    bundle = retrieve_bundle(
        inp.directive, index, caches, RetrievalSettings(max_files=MAX_RELEVANT)
    )
    react = index.is_react_project or is_react_project(tree)
    workspace_graph(inp.workspace, tree)  # built once here, not by two side-by-side steps
    data = IndexData(
        paths=paths,
        test_paths=tests,
        relevant=bundle.paths() or lexical_relevance(tree, paths, inp.directive),
        react_project=react,
        rule_ids=active_rules(inp.directive, react_project=react),
        repo_index_key=put_json(db, index),
        bundle_key=put_json(db, bundle),
    )
    key = put_json(db, data.model_dump(mode="json"))
    return IndexSummary(
        key=key,
        repo_index_key=data.repo_index_key,
        files=len(paths),
        indexed=len(index.files),
        test_files=len(tests),
        react_project=react,
        rule_ids=data.rule_ids,
    )


class RetrieveTaskInput(BaseModel):
    repo_index_key: str
    query: str
    max_files: int = MAX_CONTEXT_FILES


class RetrievedContext(BaseModel):
    bundle_key: str
    paths: list[str]


@activity.defn(name="refactor_retrieve")
@heartbeating
def refactor_retrieve(inp: RetrieveTaskInput) -> RetrievedContext:
    """The task's retrieval bundle (hybrid: lexical, embedding, names, import graph),
    recorded in the blob store; every path is an indexed path."""
    from prflow.refactor_index.search import retrieve as retrieve_bundle

    index = RepoIndex.model_validate(get_json(_db(), inp.repo_index_key))
    bundle = retrieve_bundle(
        inp.query, index, _caches(), RetrievalSettings(max_files=inp.max_files)
    )
    return RetrievedContext(bundle_key=put_json(_db(), bundle), paths=bundle.paths())


class ReindexInput(BaseModel):
    repo_index_key: str
    workspace: WorkspaceRef
    paths: list[str]


@activity.defn(name="refactor_reindex")
@heartbeating
def refactor_reindex(inp: ReindexInput) -> str:
    """The index brought up to date for the files a task changed (only those are re-read)."""
    from prflow.refactor_index.build import update_index

    previous = RepoIndex.model_validate(get_json(_db(), inp.repo_index_key))
    index = update_index(previous, workspace_tree(inp.workspace), inp.paths, _caches())
    return put_json(_db(), index)


def _index(key: str) -> IndexData:
    return IndexData.model_validate(get_json(_db(), key))


# ---------------------------------------------------------------- planning


class PlannerPromptInput(BaseModel):
    index_key: str
    directive: str
    problems: str = ""


@activity.defn(name="refactor_planner_prompt")
@heartbeating
def refactor_planner_prompt(inp: PlannerPromptInput) -> PreparedPrompt:
    index = _index(inp.index_key)
    message = planner_message(
        inp.directive,
        paths=index.paths,
        relevant=index.relevant,
        test_paths=index.test_paths,
        rule_ids=index.rule_ids,
        problems_before=inp.problems,
    )
    prompt = AgentPrompt(
        system=load_prompt("planner"), tools=[*READ_SPECS, SUBMIT_PLAN], first_message=message
    )
    return prepare_prompt(_db(), prompt)


class CheckPlanInput(BaseModel):
    index_key: str
    submitted: dict[str, Any] | None
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)


class CheckedPlan(BaseModel):
    plan: RefactorPlan | None = None
    plan_key: str | None = None
    problems: list[str] = Field(default_factory=list)
    nothing_to_do: str = Field(default="", description="The planner's reason for no change")


@activity.defn(name="refactor_check_plan")
def refactor_check_plan(inp: CheckPlanInput) -> CheckedPlan:
    index = _index(inp.index_key)
    check = check_plan(
        inp.submitted,
        known_paths=index.paths,
        include=inp.include,
        exclude=inp.exclude,
        active_rules=index.rule_ids,
    )
    if check.nothing_to_do:
        return CheckedPlan(nothing_to_do=check.nothing_to_do)
    if check.plan is None or check.problems:
        return CheckedPlan(problems=check.problems)
    key = put_json(_db(), check.plan.model_dump(mode="json"))
    return CheckedPlan(plan=check.plan, plan_key=key)


def _plan(key: str) -> RefactorPlan:
    return RefactorPlan.model_validate(get_json(_db(), key))


# ---------------------------------------------------------------- executor


class ExecutorPromptInput(BaseModel):
    plan_key: str
    task_id: str
    directive: str
    workspace: WorkspaceRef
    focus: list[str] = Field(default_factory=list)
    feedback: str = ""
    attempt: int = 1
    retrieved: list[str] = Field(default_factory=list, description="The task's bundle paths")


def retrieve(
    tree: SourceTree, files: list[str], graph: ImportGraph, limit: int = MAX_CONTEXT_FILES
) -> list[str]:
    """The task's files, then the files importing them (dependency expansion), deduplicated
    (``graph``: the tree's)."""
    out = [f for f in files if tree.read_text(f) is not None]
    for path in files:
        for importer in graph.importers_of(path):
            if importer not in out:
                out.append(importer)
    return out[:limit]


@activity.defn(name="refactor_executor_prompt")
@heartbeating
def refactor_executor_prompt(inp: ExecutorPromptInput) -> PreparedPrompt:
    plan = _plan(inp.plan_key)
    task = plan.task(inp.task_id)
    tree = workspace_tree(inp.workspace)
    focus = inp.focus or task.all_files
    wanted = list(
        dict.fromkeys(
            [*retrieve(tree, focus, workspace_graph(inp.workspace, tree)), *inp.retrieved]
        )
    )[:MAX_CONTEXT_FILES]
    context = [(p, tree.read_text(p) or "") for p in wanted if tree.read_text(p) is not None]
    message = executor_message(
        task,
        plan,
        inp.directive,
        context=context,
        focus=focus,
        feedback=inp.feedback,
        attempt=inp.attempt,
    )
    prompt = AgentPrompt(
        system=load_prompt("executor"),
        tools=[*WORKSPACE_TOOL_SPECS, FINISH_TASK],
        first_message=message,
    )
    return prepare_prompt(_db(), prompt)


# ---------------------------------------------------------------- audit and tests


class ChangeInput(BaseModel):
    before: WorkspaceRef
    after: WorkspaceRef
    run_base: WorkspaceRef | None = Field(
        default=None, description="The run's base: own files answer for all they hold since"
    )
    own: list[str] = Field(default_factory=list, description="The task's files")
    deferred: list[str] = Field(default_factory=list, description="Files later tasks own")
    later: dict[str, str] = Field(
        default_factory=dict, description="File -> the unfinished step that will change it"
    )
    rule_ids: list[str] = Field(default_factory=list)
    layers: list[str] = Field(default_factory=list)
    must_change: list[str] = Field(
        default_factory=list, description="Existing files the step's plan says it edits"
    )
    unchanged: dict[str, str] = Field(
        default_factory=dict, description="Files the executor declared need no change: why"
    )


class ChangeFacts(BaseModel):
    changed_files: list[str]
    errors: list[str] = Field(default_factory=list)
    error_files: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    mapped_tests: list[str] = Field(default_factory=list)
    waits_for: list[str] = Field(
        default_factory=list, description="Later steps whose files the task's findings need"
    )


def changed_between(before: WorkspaceRef, after: WorkspaceRef) -> list[str]:
    old, new = state_of(before), state_of(after)
    return sorted(p for p in {*old, *new} if old.get(p, "") != new.get(p, ""))


def left_behind(inp: ChangeInput, changed: Sequence[str]) -> list[tuple[str, str]]:
    """The files the step's plan says it edits that it left unchanged, undeclared: (path,
    why it is an error). A rename whose definition or caller is skipped can be valid to
    every static check (``**kwargs`` takes the old keyword), so the plan is the evidence."""
    if not inp.must_change:
        return []
    before = workspace_tree(inp.before)
    done = set(changed)
    return [
        (
            path,
            f"{path}: the step's plan lists it to edit and the step left it unchanged "
            "(finish_task's unchanged names a file that needs no change, with the reason)",
        )
        for path in inp.must_change
        if path not in done and path not in inp.unchanged and before.read_text(path) is not None
    ]


@activity.defn(name="refactor_audit")
@heartbeating
def refactor_audit(inp: ChangeInput) -> ChangeFacts:
    """What the task changed, what the auditor says about it, and the tests it maps to."""
    changed = changed_between(inp.before, inp.after)
    left = left_behind(inp, changed)
    if not changed:
        return ChangeFacts(
            changed_files=[], errors=[m for _, m in left], error_files=[p for p, _ in left]
        )
    before, after = workspace_tree(inp.before), workspace_tree(inp.after)
    graph = workspace_graph(inp.after, after)
    own = [p for p in inp.own if after.read_text(p) is not None]
    kw: dict[str, Any] = {
        "active_rules": inp.rule_ids,
        "layers": inp.layers,
        "extra_scope": own,
        "parses": {},  # both audits read the state after: each file parsed once
    }
    graphs = (workspace_graph(inp.before, before), graph)
    in_task = audit(changed, before, after, graphs=graphs, **kw).findings
    in_run = in_task
    if inp.run_base is not None and inp.run_base.state_key != inp.before.state_key:
        run_changed = changed_between(inp.run_base, inp.after)
        run_base = workspace_tree(inp.run_base)
        graphs = (workspace_graph(inp.run_base, run_base), graph)
        in_run = audit(run_changed, run_base, after, graphs=graphs, **kw).findings
    later = inp.later or dict.fromkeys(inp.deferred, "after this one")
    verdict = judge(in_task, in_run, own=inp.own, later=later)
    errors, warnings = verdict.errors, verdict.warnings
    tests = TestFiles.of(after)
    mapped: set[str] = {p for p in changed if is_test_file(p) and after.read_text(p) is not None}
    for path in changed:
        if after.read_text(path) is not None:
            mapped.update(find_related_tests(path, after, graph, tests))
    return ChangeFacts(
        changed_files=changed,
        errors=[f.text() for f in errors] + [m for _, m in left],
        error_files=sorted({f.path for f in errors} | {p for p, _ in left}),
        warnings=[f.text() for f in warnings],
        mapped_tests=sorted(mapped),
        waits_for=[w for w in verdict.waits_for if w in inp.later.values()],
    )


class BlameInput(BaseModel):
    workspace: WorkspaceRef = Field(description="The change as validated")
    failed: list[FailedTest]
    steps: dict[str, list[str]] = Field(description="Each done step's changed files")


MAX_BLAMED = 500


def reaching_tests(
    tree: SourceTree, changed: Iterable[str], graph: ImportGraph
) -> dict[str, set[str]]:
    """For each changed file, the test files that reach it: named after it, importing it
    (through re-exports), or importing something that does (``graph``: the tree's)."""
    tests = TestFiles.of(tree)
    out: dict[str, set[str]] = {}
    for path in changed:
        reached = set(find_related_tests(path, tree, graph, tests))
        reached.update(p for p in graph.transitive_importers([path]) if is_test_file(p))
        out[path] = reached
    return out


@activity.defn(name="refactor_blame")
@heartbeating
def refactor_blame(inp: BlameInput) -> list[Regression]:
    """Each regressed test of the final validation with its file and the steps that reach
    it (for the report, and for the ladder to know what it could give up)."""
    tree = workspace_tree(inp.workspace)
    changed = sorted({f for files in inp.steps.values() for f in files})
    return blame(
        inp.failed[:MAX_BLAMED],
        paths=set(tree.paths()),
        steps=inp.steps,
        reaches=reaching_tests(tree, changed, workspace_graph(inp.workspace, tree)),
    )


# ---------------------------------------------------------------- composing the run's state


class Layer(BaseModel):
    state_key: str | None
    paths: list[str]


class ComposeInput(BaseModel):
    base: WorkspaceRef
    layers: list[Layer]
    patch_log_key: str | None = None


@activity.defn(name="refactor_compose")
def refactor_compose(inp: ComposeInput) -> WorkspaceRef:
    """The base with each layer's files taken in order: merging a finished task, or
    rebuilding the state without a rolled-back subtree."""
    files: dict[str, str | None] = {}
    for layer in inp.layers:
        source = (
            {}
            if layer.state_key is None
            else state_of(inp.base.model_copy(update={"state_key": layer.state_key}))
        )
        for path in layer.paths:
            if path in source:
                files[path] = source[path]
            else:
                files.pop(path, None)
    key = put_json(_db(), WorkspaceState(files=files).model_dump(mode="json")) if files else None
    return inp.base.model_copy(
        update={
            "state_key": key,
            "patch_log_key": inp.patch_log_key,
            "revision": inp.base.revision + len(inp.layers),
        }
    )


# ---------------------------------------------------------------- artifacts


class ArtifactsInput(BaseModel):
    facts: ReportFacts
    base: WorkspaceRef
    final: WorkspaceRef
    audit: list[dict[str, Any]] = Field(default_factory=list)
    agent_log: dict[str, Any] | None = Field(
        default=None, description="Set with --verbose: events and agents (transcripts by key)"
    )


class Artifacts(BaseModel):
    keys: dict[str, str]
    changed_files: list[str]
    line_counts: dict[str, tuple[int, int]]


def patch_name(path: str) -> str:
    return "diffs/" + path.replace("/", "__") + ".patch"


def _transcript_texts(key: str | None) -> list[dict[str, Any]]:
    if key is None:
        return []
    refs = get_json(_db(), key)
    out: list[dict[str, Any]] = []
    for ref in refs if isinstance(refs, list) else []:
        blocks = get_json(_db(), ref["blob_key"])
        out.append({"role": ref["role"], "content": blocks})
    return out


@activity.defn(name="refactor_artifacts")
@heartbeating
def refactor_artifacts(inp: ArtifactsInput) -> Artifacts:
    """diffs/ (one patch per file against the base), pr-summary.md, validation-report.json
    and, with --verbose, agent-log.json with every agent's messages."""
    db = _db()
    changed = changed_between(inp.base, inp.final)
    base_tree = workspace_tree(inp.base)
    final_tree = workspace_tree(inp.final)
    keys: dict[str, str] = {}
    counts: dict[str, tuple[int, int]] = {}
    combined: list[str] = []
    for path in changed:
        old, new = base_tree.read_text(path), final_tree.read_text(path)
        diff = file_diff(
            path if old is not None else None, path if new is not None else None, old, new
        )
        keys[patch_name(path)] = put_text(db, diff)
        combined.append(diff)
        lines = diff.splitlines()
        counts[path] = (
            sum(1 for ln in lines if ln.startswith("+") and not ln.startswith("+++")),
            sum(1 for ln in lines if ln.startswith("-") and not ln.startswith("---")),
        )
    facts = inp.facts.model_copy(update={"changed_files": changed, "line_counts": counts})
    keys["pr-summary.md"] = put_text(db, pr_summary(facts))
    report = validation_report(facts, audit=inp.audit)
    keys["validation-report.json"] = put_text(db, json.dumps(report, indent=2) + "\n")
    if combined:
        keys["combined.patch"] = put_text(db, "".join(combined))
    if inp.agent_log is not None:
        log = dict(inp.agent_log)
        for agent in log.get("agents", []):
            agent["messages"] = _transcript_texts(agent.pop("transcript_key", None))
        keys["agent-log.json"] = put_text(db, json.dumps(log, indent=2, default=str) + "\n")
    return Artifacts(keys=keys, changed_files=changed, line_counts=counts)


REFACTOR_ACTIVITIES: list[Callable[..., Any]] = [
    refactor_index,
    refactor_retrieve,
    refactor_reindex,
    refactor_planner_prompt,
    refactor_check_plan,
    refactor_executor_prompt,
    refactor_audit,
    refactor_compose,
    refactor_artifacts,
    refactor_blame,
]
