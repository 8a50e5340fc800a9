"""A run's writable workspace: exact-unique edits, patch records, and the reference to it.

The write path shared by the refactor and doc-sync kinds. This docstring is the
final API (the contract the other kinds code against).

Pure domain (this package, no I/O)
----------------------------------
``prflow.workspace.edits``
    ``ReplaceEdit(path, old_string, new_string, reason)``, ``CreateFile(path, content,
    reason)``, ``DeleteFile(path, reason)``, ``MoveFile(path, new_path, reason)``;
    ``FileEdit`` is their union, discriminated by ``op`` ("replace" | "create" |
    "delete" | "move").
    ``apply_batch(read, edits, *, may_edit=lambda p: True, actor="agent", scope_hint="")
    -> BatchOutcome`` where ``read(path) -> str | None`` (None: absent; may raise
    ``UnreadableFile``). Semantics: old_string must occur exactly once (overlapping
    occurrences count); edits apply in order to the updated text; the batch is atomic;
    empty reason / empty old_string / old == new / bad path / ``.git`` / outside
    ``may_edit`` are refused. Lines are counted on "\\n" only.
    ``BatchOutcome(ok, errors: list[EditError], contents: dict[path, str | None],
    patches: list[PatchRecord], regions: list[ChangedRegion])``; ``.feedback_text()``
    is what the model reads back (numbered snippets of each changed region, or the
    errors). ``EditError(edit_index, path, kind: ErrorKind, message, hint,
    occurrences: list[int], preview: str | None, nearest_lines: list[str])``:
    not_found carries the first 500 chars and the nearest real lines; not_unique
    the count and the line numbers.
``prflow.workspace.patches``
    ``PatchRecord(path, old_path, diff, reason, edit_index, actor)``;
    ``file_diff(old_path, new_path, old, new)`` (git-style, a/ b/ prefixes).
``prflow.workspace.scope``
    ``may_edit(patterns) -> Callable[[str], bool]`` (exact path, directory prefix, or
    fnmatch glob where ``*`` crosses ``/``; no patterns: anything), ``scope_hint``.
``prflow.workspace.merge``
    ``merge_states(base_files, [branch_files...]) -> (merged, conflicts)``: the union of
    the changes of tasks that ran side by side; a path two changed differently conflicts.
``prflow.workspace.tools``
    The agent's tools: ``WORKSPACE_TOOL_SPECS`` / ``WORKSPACE_TOOL_NAMES`` =
    read_file, search_code, list_files, edit_file(path, edits[{old_string,
    new_string, reason}]), create_file, delete_file, move_file. Put the specs in an
    ``AgentPrompt.tools`` list.
``prflow.workspace.models``
    ``WorkspaceRef(repo, base_sha, state_key, patch_log_key, run_id, revision)``: keys
    only. ``WorkspaceState(files: dict[path, content_key | None])``,
    ``PatchLogEntry(previous, patch_keys)`` (a chain, newest first).
    Activity I/O: ``WorkspaceOpenInput(repo, base="HEAD", run_id)``,
    ``WorkspaceEditInput(workspace, edits, editable, actor)`` ->
    ``WorkspaceEditResult(ok, workspace, errors, patch_keys, feedback_text,
    feedback_key)``; ``WorkspaceToolInput``/``WorkspaceToolOutput``;
    ``WorkspaceFileInput(workspace, path)`` -> ``WorkspaceFile(path, content_key)``;
    ``WorkspaceExport(base_sha, tree_sha, files: list[ExportedPatch(path, old_path,
    status, file_name, patch_key)], combined_key)``; ``WorkspaceApplyInput(workspace,
    path)`` -> ``WorkspaceApplyResult(written)``; ``WorkspaceBranchInput(workspace,
    branch, message)`` -> ``WorkspaceBranch(branch, commit_sha, tree_sha)``;
    ``DraftPullRequestInput(workspace, repository, branch, base_branch, title,
    body_key, commit_message)`` -> ``DraftPullRequest(number, html_url, branch,
    commit_sha, created)``.

Activities (all registered on the platform's queues by worker/registry.py; kinds may
also list them)
--------------------------------------------------------------------------------
``activities.workspace`` (main queue; ``WORKSPACE_ACTIVITIES``)
    ``workspace_open(WorkspaceOpenInput) -> WorkspaceRef``;
    ``workspace_edit(WorkspaceEditInput) -> WorkspaceEditResult`` (a refused batch
    returns ok=False and the unchanged ref, it does not fail the activity);
    ``workspace_tool(WorkspaceToolInput) -> WorkspaceToolOutput`` (what the agent loop
    calls); ``workspace_read_file(WorkspaceFileInput) -> WorkspaceFile``;
    ``workspace_merge(WorkspaceMergeInput(base, branches)) -> WorkspaceMergeResult(ok,
    workspace, conflicts)`` (joins concurrent tasks' refs and their patch logs; on a
    conflict ok=False and the base ref, nothing combined);
    ``workspace_export(WorkspaceRef) -> WorkspaceExport`` (each patch ``git apply
    --check`` clean on base); ``workspace_apply(WorkspaceApplyInput)`` (one-line
    UserError unless the checkout is clean at base_sha; tree untouched on refusal);
    ``workspace_branch(WorkspaceBranchInput)`` (plumbing; working tree, index and HEAD
    untouched; a retry finds its own branch). Plain functions for non-Temporal callers:
    ``open_workspace``, ``edit_workspace(db_url, inp)``, ``merge_workspace(db_url, inp)``,
    ``call_workspace_tool``, ``copy_worktree(db_url, ref, dest)`` (a private copy taken
    under the run's lock),
    ``materialise(db_url, ref) -> Path`` (worker-local writable tree, rebuilt from base
    + state on a worker that never saw the run), ``patch_log(db_url, ref) ->
    list[PatchRecord]``; in ``activities.workspace_git``: ``load_state``,
    ``export_workspace``, ``apply_workspace``, ``branch_workspace``.
``activities.github.draft_pr`` (GitHub queue; ``DRAFT_PR_ACTIVITIES``)
    ``open_draft_pr(DraftPullRequestInput) -> DraftPullRequest``: Git Data API, one PR
    per run (a retry finds the PR on ``branch``, else reuses the branch).
``activities.test_runs`` (main queue; ``TEST_RUN_ACTIVITIES``) with ``prflow.test_runs``
    ``run_tests(TestRunInput(workspace, command, selection, timeout_seconds,
    install_timeout_seconds, allow_unsandboxed)) -> TestRunResult(sandbox, command,
    exit_code, timed_out, counts, outcomes_key, output_key, env_hash, seconds, basis,
    summary, tests_found, output_tail, selection_applied)``; ``command`` is run by
    ``sh -c`` from the root (None: detected), ``basis`` says whether outcomes came from a
    JUnit report, the runner's summary line or the exit status only; schedule it with a
    heartbeat timeout and start_to_close > timeout_seconds + install_timeout_seconds.
    ``compare_test_runs(CompareInput(before_outcomes_key, after_outcomes_key)) ->
    TestComparison(regressions, new_failures, fixed, still_failing, missing,
    pass_rate_after, files)``; pure ``prflow.test_runs.compare.compare`` and, without
    reports, ``compare_counts``.

The agent
---------
``prflow.agent.state.WorkspaceToolBackend(workspace, editable, task_queue)`` as
``AgentSpec.tool_backend``: tool calls go to ``workspace_tool`` one at a time in the
model's order; ``AgentState.workspace`` is the current ref (moved on by every applied
edit, carried through continue-as-new) and ``AgentOutcome.workspace`` the final one.

Limits: a local ``repo`` path must be readable by the worker (same machine or shared
filesystem); a clone URL works anywhere through the worker's mirror cache. Edited files
are UTF-8 text; new files get mode 100644, edited ones keep theirs.
"""
