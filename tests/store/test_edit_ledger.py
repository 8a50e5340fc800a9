"""The edit ledger on SQLite and Postgres: every edit once, in order, with its reason."""

from __future__ import annotations

from prflow.store.edit_ledger import LedgerEdit, edits_of_run, record_edits


def _edit(run: str, key: str, index: int, reason: str) -> LedgerEdit:
    return LedgerEdit(
        workflow_id=run,
        workflow_kind="docsync",
        phase="docsync",
        path="docs/usage.md",
        edit_index=index,
        actor="docsync:docs/usage.md",
        reason=reason,
        patch_key=key,
    )


def test_edits_are_recorded_once_and_read_back_by_run(db_url: str) -> None:
    first = [
        _edit("run-1", "sha256:a", 0, "timeout is keyword-only"),
        _edit("run-1", "sha256:b", 1, "tls added"),
    ]
    assert record_edits(db_url, first) == 2
    assert record_edits(db_url, first) == 0  # a retried report step writes nothing twice
    record_edits(db_url, [_edit("run-2", "sha256:a", 0, "other run")])
    shown = edits_of_run(db_url, "run-1")
    assert [(e.patch_key, e.reason) for e in shown] == [
        ("sha256:a", "timeout is keyword-only"),
        ("sha256:b", "tls added"),
    ]
    assert {e.phase for e in shown} == {"docsync"}
    assert edits_of_run(db_url, "run-3") == []
