"""Exact-unique edit semantics (seed 004): applied once, refused with teaching errors, atomic."""

from __future__ import annotations

import subprocess
from pathlib import Path

from prflow.workspace.edits import (
    PREVIEW_CHARS,
    CreateFile,
    DeleteFile,
    ErrorKind,
    MoveFile,
    ReplaceEdit,
    apply_batch,
)
from prflow.workspace.scope import may_edit, scope_hint

FILES = {
    "app/core.py": "def helper(x):\n    return x + 1\n\n\ndef other(x):\n    return x + 1\n",
    "README.md": "# Demo\n\nUse helper.\n",
}


def read(path: str) -> str | None:
    return FILES.get(path)


def test_a_unique_edit_is_applied_and_shows_the_numbered_region() -> None:
    edit = ReplaceEdit(
        path="app/core.py",
        old_string="def helper(x):\n    return x + 1",
        new_string="def helper(x, y=0):\n    return x + y + 1",
        reason="helper takes an offset",
    )
    outcome = apply_batch(read, [edit])
    assert outcome.ok
    assert str(outcome.contents["app/core.py"]).startswith(
        "def helper(x, y=0):\n    return x + y + 1\n"
    )
    region = outcome.regions[0]
    assert "     1\tdef helper(x, y=0):" in region.snippet
    assert "     2\t    return x + y + 1" in region.snippet
    assert outcome.patches[0].reason == "helper takes an offset"
    diff = outcome.patches[0].diff
    assert "-def helper(x):\n-    return x + 1\n+def helper(x, y=0):\n" in diff
    assert "Applied 1 edit." in outcome.feedback_text()


def test_absent_text_returns_a_500_char_preview_and_the_nearest_real_lines() -> None:
    long_file = "def helper(x):\n    return x + 1\n" + "# filler\n" * 200
    outcome = apply_batch(
        lambda _p: long_file,
        [ReplaceEdit(path="a.py", old_string="def helper(x) :", new_string="y", reason="r")],
    )
    assert not outcome.ok
    error = outcome.errors[0]
    assert error.kind == ErrorKind.not_found
    assert error.preview == long_file[:PREVIEW_CHARS] + "..."
    assert error.nearest_lines[0] == "     1\tdef helper(x):"
    text = outcome.feedback_text()
    assert "Text not found in file" in text and "No edit in this batch was applied" in text


def test_repeated_text_reports_the_count_line_numbers_and_a_hint() -> None:
    outcome = apply_batch(
        read,
        [ReplaceEdit(path="app/core.py", old_string="return x + 1", new_string="", reason="r")],
    )
    error = outcome.errors[0]
    assert error.kind == ErrorKind.not_unique
    assert error.occurrences == [2, 6]
    assert "appears 2 times" in error.message and error.hint


def test_overlapping_occurrences_count_as_not_unique() -> None:
    outcome = apply_batch(
        lambda _p: "aaa\n", [ReplaceEdit(path="x", old_string="aa", new_string="b", reason="r")]
    )
    assert outcome.errors[0].kind == ErrorKind.not_unique


def test_a_later_failure_undoes_the_whole_batch() -> None:
    outcome = apply_batch(
        read,
        [
            ReplaceEdit(
                path="README.md", old_string="# Demo", new_string="# Shop", reason="rename"
            ),
            ReplaceEdit(path="README.md", old_string="missing", new_string="x", reason="r"),
        ],
    )
    assert not outcome.ok
    assert outcome.contents == {} and outcome.patches == []
    assert outcome.errors[0].edit_index == 1


def test_edits_apply_in_order_to_the_updated_text() -> None:
    outcome = apply_batch(
        read,
        [
            ReplaceEdit(
                path="README.md", old_string="Use helper.", new_string="Use A.", reason="1"
            ),
            ReplaceEdit(path="README.md", old_string="Use A.", new_string="Use B.", reason="2"),
        ],
    )
    assert outcome.contents["README.md"] == "# Demo\n\nUse B.\n"
    assert [p.edit_index for p in outcome.patches] == [0, 1]


def test_empty_reason_and_paths_outside_the_scope_are_refused() -> None:
    no_reason = apply_batch(read, [DeleteFile(path="README.md", reason="  ")])
    assert no_reason.errors[0].kind == ErrorKind.empty_reason
    scoped = apply_batch(
        read,
        [DeleteFile(path="README.md", reason="gone")],
        may_edit=may_edit(["app/"]),
        scope_hint=scope_hint(["app/"]),
    )
    assert scoped.errors[0].kind == ErrorKind.not_editable
    assert "app/" in scoped.errors[0].hint
    escape = apply_batch(read, [CreateFile(path="../x.py", content="", reason="r")])
    assert escape.errors[0].kind == ErrorKind.bad_path
    git_dir = apply_batch(read, [CreateFile(path=".git/config", content="", reason="r")])
    assert git_dir.errors[0].kind == ErrorKind.bad_path


def test_create_delete_and_move_track_the_overlay() -> None:
    outcome = apply_batch(
        read,
        [
            CreateFile(path="app/new.py", content="X = 1\n", reason="new module"),
            MoveFile(path="app/new.py", new_path="app/moved.py", reason="better name"),
            ReplaceEdit(path="app/moved.py", old_string="X = 1", new_string="X = 2", reason="2"),
            DeleteFile(path="README.md", reason="obsolete"),
        ],
    )
    assert outcome.ok, outcome.feedback_text()
    assert outcome.contents == {"app/new.py": None, "app/moved.py": "X = 2\n", "README.md": None}
    assert outcome.patches[1].old_path == "app/new.py"
    clash = apply_batch(read, [CreateFile(path="README.md", content="", reason="r")])
    assert clash.errors[0].kind == ErrorKind.file_exists
    absent = apply_batch(read, [DeleteFile(path="nope.md", reason="r")])
    assert absent.errors[0].kind == ErrorKind.no_such_file


def test_line_numbers_count_newlines_only() -> None:
    text = "a\x0cb\u2028c\nneedle\n"
    outcome = apply_batch(
        lambda _p: text + text,
        [ReplaceEdit(path="x", old_string="needle", new_string="pin", reason="r")],
    )
    assert outcome.errors[0].occurrences == [2, 4]


def _git(cwd: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, check=False)


def test_patch_records_apply_with_real_git(tmp_path: Path) -> None:
    _git(tmp_path, "init", "--quiet")
    for path, content in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(content + "tail without newline")
    current = {p: c + "tail without newline" for p, c in FILES.items()}
    outcome = apply_batch(
        current.get,
        [
            ReplaceEdit(path="README.md", old_string="newline", new_string="NL\n", reason="r"),
            MoveFile(path="app/core.py", new_path="lib/core.py", reason="move"),
            CreateFile(path="docs/new.md", content="one\ntwo", reason="new"),
        ],
    )
    assert outcome.ok
    for patch in outcome.patches:
        done = _git(tmp_path, "apply", "-", stdin=patch.diff.encode())
        assert done.returncode == 0, (patch.diff, done.stderr)
    assert (tmp_path / "README.md").read_text().endswith("tail without NL\n")
    assert (tmp_path / "lib/core.py").read_text() == current["app/core.py"]
    assert (tmp_path / "docs/new.md").read_text() == "one\ntwo"


def test_an_edit_written_with_lf_applies_to_a_crlf_file_in_its_own_line_ends() -> None:
    crlf = "def helper(x):\r\n    return x + 1\r\n\r\n\r\ndef other(x):\r\n    return x + 2\r\n"
    edit = ReplaceEdit(
        path="win.py",
        old_string="def helper(x):\n    return x + 1",
        new_string="def helper(x, y=0):\n    # offset\n    return x + y + 1",
        reason="helper takes an offset",
    )
    outcome = apply_batch(lambda _p: crlf, [edit])
    assert outcome.ok, outcome.feedback_text()
    after = str(outcome.contents["win.py"])
    assert after.startswith("def helper(x, y=0):\r\n    # offset\r\n    return x + y + 1\r\n")
    assert after.count("\n") == after.count("\r\n"), "every line keeps the file's CRLF"


def test_a_lf_edit_to_a_crlf_file_must_still_be_unique_and_a_mixed_file_is_matched_as_is() -> None:
    twice = "x = 1\r\ny = 2\r\nx = 1\r\ny = 2\r\n"
    edit = ReplaceEdit(path="a.py", old_string="x = 1\ny = 2", new_string="z = 3", reason="r")
    refused = apply_batch(lambda _p: twice, [edit])
    assert not refused.ok and refused.errors[0].kind == ErrorKind.not_unique
    mixed = "x = 1\r\ny = 2\nz = 3\r\n"
    lf = ReplaceEdit(path="a.py", old_string="x = 1\ny = 2", new_string="w = 0", reason="r")
    outcome = apply_batch(lambda _p: mixed, [lf])
    assert not outcome.ok and outcome.errors[0].kind == ErrorKind.not_found
    assert "CRLF" in outcome.errors[0].hint
