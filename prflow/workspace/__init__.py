"""A run's writable workspace: exact-unique edits, patch records, and the reference to it.

The write path shared by the refactor and doc-sync kinds (final API; this
docstring is the contract the other kinds read):

Pure domain (this package, no I/O)
    ``prflow.workspace.edits``
        ``ReplaceEdit(path, old_string, new_string, reason)``, ``CreateFile(path,
        content, reason)``, ``DeleteFile(path, reason)``, ``MoveFile(path, new_path,
        reason)``; ``FileEdit`` is their union discriminated by ``op``
        ("replace" | "create" | "delete" | "move").
        ``apply_batch(read, edits, *, may_edit=..., actor="agent", scope_hint="")
        -> BatchOutcome``; ``read(path) -> str | None`` (None: absent; may raise
        ``UnreadableFile``).
        ``BatchOutcome(ok, errors: list[EditError], contents: dict[path, str | None],
        patches: list[PatchRecord], regions: list[ChangedRegion])`` and
        ``.feedback_text()`` (what the model reads back).
        ``EditError(edit_index, path, kind: ErrorKind, message, hint, occurrences,
        preview, nearest_lines)``.
    ``prflow.workspace.patches``
        ``PatchRecord(path, old_path, diff, reason, edit_index, actor)``,
        ``file_diff(old_path, new_path, old, new)`` (git-style, a/ b/ prefixes).
    ``prflow.workspace.scope``
        ``may_edit(patterns) -> Callable[[str], bool]``, ``scope_hint(patterns)``.
    ``prflow.workspace.models``
        ``WorkspaceRef(repo, base_sha, state_key, patch_log_key, run_id, revision)``,
        ``WorkspaceState(files: dict[path, content_key | None])``,
        ``PatchLogEntry(previous, patch_keys)``.
"""
