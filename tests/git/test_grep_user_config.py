"""``git grep`` as prflow's tools run it reads the same whatever the user's git config."""

from __future__ import annotations

from pathlib import Path

import pytest

from prflow.git.repo import GitRepoReader, open_local
from tests.support.sample_repos import commit_all, init_repo, write_files


@pytest.mark.parametrize(
    "config",
    ["[grep]\n\tcolumn = true\n", "[color]\n\tui = always\n", "[grep]\n\tpatternType = fixed\n"],
)
def test_grep_hits_are_file_line_and_text_under_any_user_config(
    config: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prflow_cache: object
) -> None:
    repo = init_repo(tmp_path / "repo")
    write_files(repo, {"app/x.py": "a = 1\ndef fetch_all():\n    pass\n"})
    head = commit_all(repo, "one")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(config)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    hits = GitRepoReader(open_local(str(repo))).grep(head, r"def \w+_all")
    assert [(h.file, h.line, h.match) for h in hits] == [("app/x.py", 2, "def fetch_all():")]
