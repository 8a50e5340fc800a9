"""The pure rules behind the resolution tools: conflict parsing, rebase plans, permissions."""

from __future__ import annotations

from prflow.pr_tools import conflicts
from prflow.pr_tools.conflicts import conflict_hunks, parse_merge_tree
from prflow.pr_tools.rebase_plan import PlannedCommit, rebase_plan
from prflow.pr_tools.review_threads import ReviewThread, ThreadComment
from prflow.pr_tools.thread_resolution import is_prflow_thread, outdated_prflow_threads
from prflow.pr_tools.token_permissions import RepoAccess, permission_report


def test_merge_tree_output_names_files_and_conflict_kinds() -> None:
    output = (
        b"f1e0\0f.txt\0g.txt\0\0"
        b"1\0f.txt\0Auto-merging\0Auto-merging f.txt\n\0"
        b"1\0f.txt\0CONFLICT (contents)\0CONFLICT (content): Merge conflict in f.txt\n\0"
        b"1\0g.txt\0CONFLICT (modify/delete)\0CONFLICT (modify/delete): g.txt deleted\n\0"
    )
    trial = parse_merge_tree(output, clean=False)
    assert (trial.tree, trial.paths) == ("f1e0", ["f.txt", "g.txt"])
    assert [kind for kind, _ in trial.messages["f.txt"]] == ["Auto-merging", "CONFLICT (contents)"]
    assert parse_merge_tree(b"abcd\0\0", clean=True).paths == []


def test_hunks_in_merge_and_diff3_style_with_limits() -> None:
    text = "a\n<<<<<<< ours\nx\n||||||| base\nold\n=======\ny\n>>>>>>> theirs\nb\n"
    (hunk,), more = conflict_hunks(text)
    assert (hunk.base_side, hunk.head_side, hunk.start_line, hunk.end_line, more) == (
        ["x"],
        ["y"],
        2,
        8,
        0,
    )
    many = "<<<<<<< a\n" + "l\n" * 50 + "=======\nr\n>>>>>>> b\n"
    (long,), _ = conflict_hunks(many)
    assert long.truncated and len(long.base_side) == conflicts.MAX_LINES_PER_SIDE
    _, extra = conflict_hunks("<<<<<<< a\nx\n=======\ny\n>>>>>>> b\n" * 25)
    assert extra == 25 - conflicts.MAX_HUNKS_PER_FILE


def test_a_rebase_with_the_base_pr_still_open_is_a_plain_rebase() -> None:
    plan = rebase_plan(
        pr="o/r#2", number=2, branch="child", base_ref="parent", onto="parent",
        upstream="p" * 40, parent=1, parent_merged=False,
        commits=[PlannedCommit(sha="c" * 40, subject="x", in_new_base=False)], fork_remote=True,
    )  # fmt: skip
    assert plan.squash_merged_base is None
    assert plan.commands == [
        "git fetch origin",
        "git rebase origin/parent child",
        "git push --force-with-lease <fork-remote> child",
    ]
    assert "still open: rebase again after it merges" in plan.message


def _thread(author: str, kind: str, body: str, **state: bool) -> ReviewThread:
    comment = ThreadComment(
        id=1, author=author, author_type=kind, author_association="NONE", body=body, url="u",
        created_at="t",
    )  # fmt: skip
    return ReviewThread(
        id="T", path="a.py", line=None, start_line=None, side=None, comments=[comment],
        is_resolved=state.get("resolved", False), is_outdated=state.get("outdated", True),
    )  # fmt: skip


def test_prflow_threads_are_its_account_with_a_fingerprint() -> None:
    marked = "finding\n<!-- prflow:finding 0123456789abcdef -->"
    assert is_prflow_thread(_thread("prflow-app", "Bot", marked), "prflow-app[bot]")
    assert is_prflow_thread(_thread("any-bot", "Bot", marked), None)  # an App token
    assert not is_prflow_thread(_thread("alice", "User", marked), "prflow-bot")  # a quote
    assert not is_prflow_thread(_thread("prflow-bot", "User", "no marker"), "prflow-bot")
    threads = [
        _thread("prflow-bot", "User", marked),
        _thread("prflow-bot", "User", marked, resolved=True),
        _thread("prflow-bot", "User", marked, outdated=False),
    ]
    assert outdated_prflow_threads(threads, "prflow-bot") == threads[:1]


def test_the_author_may_resolve_without_write_access_and_unknown_stays_unknown() -> None:
    report = permission_report(
        pr="o/r#1", login="dev", author="dev", repository="o/r",
        access=RepoAccess(pull=True, push=False), head_repository=None, head_access=None,
        maintainer_can_modify=False,
    )  # fmt: skip
    allowed = {t.tool: t.allowed for t in report.tools}
    assert (allowed["resolve"], allowed["push"], allowed["reply"]) == (True, False, True)
    app = permission_report(
        pr="o/r#1", login=None, author="dev", repository="o/r", access=RepoAccess(),
        head_repository=None, head_access=None, maintainer_can_modify=False,
    )  # fmt: skip
    assert {t.tool: t.allowed for t in app.tools}["reply"] is None
