"""Seed 001's review-resolution tools as a user runs them: ``prflow pr threads / reply /
resolve / unresolve / conflicts / rebase / permissions`` against the loopback GitHub, on
real git repositories these tests make."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from activities.github.resolution import reply, resolve_threads
from prflow.errors import UserError
from prflow.pr_identifier import PullRequestRef
from tests.support.cli_runs import CliRun, run_prflow
from tests.support.fake_github import FakeGitHub
from tests.support.fixtures_github import FAKE_GITHUB_LOGIN, FAKE_GITHUB_TOKEN
from tests.support.sample_repos import commit_all, git, init_repo, write_files

PR = "octo-org/service#5"
REF = PullRequestRef(owner="octo-org", repo="service", number=5)
FINDING = "Possible None here.\n\n<!-- prflow:finding 0123456789abcdef -->"


def _env(fake: FakeGitHub, home: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PRFLOW_", "GITHUB_", "GH_", "TEMPORAL_"))
    }
    return env | {
        "GITHUB_TOKEN": FAKE_GITHUB_TOKEN,
        "PRFLOW_GITHUB_API_URL": fake.api_url,
        "PRFLOW_DATA_DIR": str(home / "data"),
        "PRFLOW_CACHE_DIR": str(home / "cache"),
        "HOME": str(home),
    }


def _ok(run: CliRun, code: int = 0) -> str:
    assert run.code == code, run.describe()
    return run.stdout


def _one_error(run: CliRun) -> str:
    assert run.code == 2, run.describe()
    (line,) = run.stderr_lines
    assert line.startswith("prflow: error: ")
    return line


async def test_list_reply_resolve_and_unresolve_threads(
    fake_github_pr: FakeGitHub, tmp_path: Path
) -> None:
    fake = fake_github_pr
    fake.add_user(FAKE_GITHUB_LOGIN)
    stale = fake.add_review_thread(
        "octo-org", "service", 5, "app.py", 3, [(FAKE_GITHUB_LOGIN, FINDING)], outdated=True
    )
    current = fake.add_review_thread(
        "octo-org", "service", 5, "app.py", 9, [(FAKE_GITHUB_LOGIN, FINDING)]
    )
    human = fake.add_review_thread(
        "octo-org", "service", 5, "db.py", 2, [("alice", "why?")], outdated=True
    )
    env = _env(fake, tmp_path)

    listed = json.loads(_ok(await run_prflow("pr", "threads", PR, "--format", "json", env=env)))
    replied = await run_prflow("pr", "reply", PR, human.id, "--body", "Because of X.", env=env)
    resolved = await run_prflow("pr", "resolve", PR, "--outdated", env=env)

    rows = {row["id"]: row for row in listed["threads"]}
    assert (rows[stale.id]["prflow"], rows[human.id]["prflow"]) == (True, False)
    assert rows[human.id]["comment_id"] == human.comments[0].id
    assert "replied: " in _ok(replied)
    assert [c.body for c in human.comments] == ["why?", "Because of X."]
    assert "1 thread resolved" in _ok(resolved)
    # Only prflow's outdated thread: not the current one, not the person's outdated one.
    assert (stale.is_resolved, current.is_resolved, human.is_resolved) == (True, False, False)

    reopened = await run_prflow("pr", "unresolve", PR, stale.id, env=env)
    assert "1 thread unresolved" in _ok(reopened) and stale.is_resolved is False
    both = resolve_threads(REF, [current.id, human.id], resolve=True)
    assert both.message == "octo-org/service#5: 2 threads resolved."
    assert human.is_resolved and current.is_resolved
    table = await run_prflow("pr", "threads", PR, "--all", env=env)
    shown = _ok(table)
    assert stale.id in shown and "open, outdated" in shown and "(prflow)" in shown


async def test_thread_mistakes_are_one_line_with_exit_2(
    fake_github_pr: FakeGitHub, tmp_path: Path
) -> None:
    fake = fake_github_pr
    thread = fake.add_review_thread("octo-org", "service", 5, "a.py", 1, [("alice", "x")])
    env = _env(fake, tmp_path)

    nothing = await run_prflow("pr", "resolve", PR, env=env)
    unknown = await run_prflow("pr", "reply", PR, "PRRT_nope", "--body", "hi", env=env)
    assert "Name the threads to resolve" in _one_error(nothing)
    assert "has no review thread 'PRRT_nope'" in _one_error(unknown)

    with pytest.raises(UserError, match="The reply is empty"):
        reply(REF, thread.id, "  ")
    with pytest.raises(UserError, match="Review thread PRRT_gone was not found"):
        resolve_threads(REF, ["PRRT_gone"], resolve=True)
    with pytest.raises(UserError, match="--outdated only applies to resolve"):
        resolve_threads(REF, [], resolve=False, outdated=True)
    fake.set_role("octo-org", "service", FAKE_GITHUB_LOGIN, "read")
    refused = await run_prflow("pr", "resolve", PR, thread.id, env=env)
    assert "the token needs pull requests: write" in _one_error(refused)
    assert thread.is_resolved is False and len(thread.comments) == 1


@dataclass
class Stack:
    bare: Path
    parent_head: str
    own: list[str]  # the child's commits, oldest first; main also got the second one


def _stacked_repo(root: Path, fake: FakeGitHub) -> Stack:
    """main ← #1 parent (two commits, then squash-merged into main) ← #2 child (stacked on the
    parent's branch, two commits of its own, one of them also cherry-picked onto main);
    #3 edits the line the squash changed: it conflicts with main."""
    work = init_repo(root / "work")
    write_files(work, {"app.py": "def greet():\n    return 'hi'\n", "notes.md": "notes\n"})
    base = commit_all(work, "base")
    git(work, "checkout", "-q", "-b", "parent")
    write_files(work, {"app.py": "def greet(name):\n    return f'hi {name}'\n"})
    commit_all(work, "greet takes a name")
    write_files(work, {"docs.md": "greet(name)\n"})
    parent_head = commit_all(work, "document greet")
    git(work, "checkout", "-q", "-b", "child")
    write_files(work, {"shop.py": "from app import greet\n"})
    first = commit_all(work, "shop greets")
    write_files(work, {"notes.md": "notes\nmore\n"})
    second = commit_all(work, "more notes")
    git(work, "checkout", "-q", "-b", "conflicting", base)
    write_files(work, {"app.py": "def greet():\n    return 'hello'\n"})
    conflicting = commit_all(work, "say hello")
    git(work, "checkout", "-q", "main")
    git(work, "merge", "-q", "--squash", "parent")
    commit_all(work, "Greet by name (#1)")
    git(work, "cherry-pick", second)
    bare = root / "origin.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(bare))
    git(work, "push", "-q", str(bare), "main", "parent", "child", "conflicting")
    fake.add_pull_request(
        "octo-org", "service", 1, bare_repo_path=bare, head_ref="parent",
        base_sha=base, head_sha=parent_head, merged=True,
    )  # fmt: skip
    fake.add_pull_request(
        "octo-org", "service", 2, bare_repo_path=bare, base_ref="parent", head_ref="child",
        base_sha=parent_head, head_sha=second,
    )  # fmt: skip
    fake.add_pull_request(
        "octo-org", "service", 3, bare_repo_path=bare, head_ref="conflicting",
        base_sha=base, head_sha=conflicting,
    )  # fmt: skip
    fake.set_pull_state("octo-org", "service", 3, mergeable=False, mergeable_state="dirty")
    return Stack(bare=bare, parent_head=parent_head, own=[first, second])


async def test_rebase_after_a_squash_merged_base(fake_github: FakeGitHub, tmp_path: Path) -> None:
    stack = _stacked_repo(tmp_path / "repo", fake_github)
    env = _env(fake_github, tmp_path / "home")

    as_json = await run_prflow("pr", "rebase", "octo-org/service#2", "--format", "json", env=env)
    table = await run_prflow("pr", "rebase", "octo-org/service#2", env=env)

    plan = json.loads(_ok(as_json))
    assert (plan["squash_merged_base"], plan["onto"], plan["upstream"]) == (
        1,
        "main",
        stack.parent_head,
    )
    assert [(c["sha"], c["subject"], c["in_new_base"]) for c in plan["commits"]] == [
        (stack.own[0], "shop greets", False),
        (stack.own[1], "more notes", True),
    ]
    assert plan["commands"] == [
        "git fetch origin",
        f"git rebase --onto origin/main {stack.parent_head} child",
        "git push --force-with-lease origin child",
        "gh pr edit 2 --base main",
    ]
    shown = _ok(table)
    assert "squash-merged into main; replay 1 of its 2 commit(s)" in shown
    assert "(already on the new base: dropped)" in shown

    # The commands do what they say: replayed in a clone, the child sits on main with its
    # own change and without the parent's commits.
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(stack.bare), str(clone))
    git(clone, "branch", "-q", "child", "origin/child")
    git(clone, "rebase", "-q", "--onto", "origin/main", stack.parent_head, "child")
    log = git(clone, "log", "--format=%s", "origin/main..child").splitlines()
    assert log == ["shop greets"]


async def test_conflicts_name_files_and_hunks(fake_github: FakeGitHub, tmp_path: Path) -> None:
    _stacked_repo(tmp_path / "repo", fake_github)
    home = tmp_path / "home"
    home.mkdir()
    # A user config that would change a merge: prflow's trial merge must not read it.
    (home / ".gitconfig").write_text("[merge]\n\tconflictStyle = diff3\n")
    env = _env(fake_github, home)

    dirty = await run_prflow("pr", "conflicts", "octo-org/service#3", "--format", "json", env=env)
    table = await run_prflow("pr", "conflicts", "octo-org/service#3", env=env)
    clean = await run_prflow("pr", "conflicts", "octo-org/service#2", env=env)

    report = json.loads(_ok(dirty, code=1))
    assert (report["conflicts"], report["mergeable"], report["mergeable_state"]) == (
        True,
        False,
        "dirty",
    )
    (file,) = report["files"]
    assert (file["path"], file["kinds"]) == ("app.py", ["CONFLICT (contents)"])
    (hunk,) = file["hunks"]
    assert (hunk["base_side"], hunk["head_side"]) == (
        ["def greet(name):", "    return f'hi {name}'"],
        ["def greet():", "    return 'hello'"],
    )
    # Markers in git's own style, not the user's diff3 (which adds the ancestor's lines).
    assert (hunk["start_line"], hunk["end_line"]) == (1, 7)
    shown = _ok(table, code=1)
    assert "conflicts with main in 1 file" in shown and "git merge origin/main" in shown
    assert "merges cleanly into parent" in _ok(clean)


async def test_permissions_per_tool_for_own_and_fork_branches(
    fake_github_pr: FakeGitHub, tmp_path: Path
) -> None:
    fake = fake_github_pr
    fake.add_pull_request("octo-org", "service", 6, author="outsider", head_owner="outsider")
    env = _env(fake, tmp_path)

    own = json.loads(_ok(await run_prflow("pr", "permissions", PR, "--format", "json", env=env)))
    fork = json.loads(
        _ok(
            await run_prflow("pr", "permissions", "octo-org/service#6", "--format", "json", env=env)
        )
    )
    fake.set_role("octo-org", "service", FAKE_GITHUB_LOGIN, "read")
    reader = await run_prflow("pr", "permissions", PR, env=env)

    def allowed(report: dict[str, object]) -> dict[str, object]:
        return {t["tool"]: t["allowed"] for t in report["tools"]}  # type: ignore[attr-defined]

    assert own["login"] == FAKE_GITHUB_LOGIN
    assert allowed(own) == {
        "reply": True, "resolve": True, "conflicts": True, "rebase": True, "push": True,
    }  # fmt: skip
    assert fork["head_repository"] == "outsider/service"
    assert allowed(fork)["push"] is False and allowed(fork)["resolve"] is True
    shown = _ok(reader)
    assert "resolve" in shown and "no write access" in shown
