"""Merge conflicts of a pull request: what GitHub says, and what a trial merge shows.

GitHub's ``mergeable`` tells whether the PR merges cleanly (None while GitHub is still
computing it) but not where it does not. A trial merge of the base branch's tip and the
PR's head (``git merge-tree --write-tree``, run by the caller) names the conflicting files,
the kind of each conflict, and leaves the conflict markers in the merged files, from which
the hunks are read here.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

MAX_FILES = 100
MAX_HUNKS_PER_FILE = 20
MAX_LINES_PER_SIDE = 40
_OPEN, _SPLIT, _CLOSE = "<<<<<<< ", "=======", ">>>>>>> "
_BASE_SECTION = "||||||| "


class ConflictHunk(BaseModel):
    """One conflicting region of a merged file: both sides' lines."""

    start_line: int = Field(description="Line of the <<<<<<< marker in the merged file")
    end_line: int = Field(description="Line of the >>>>>>> marker")
    base_side: list[str] = Field(description="The base branch's lines")
    head_side: list[str] = Field(description="The PR head's lines")
    truncated: bool = Field(False, description="A side had more lines than shown")


class ConflictedFile(BaseModel):
    path: str
    kinds: list[str] = Field(description="git's conflict types, e.g. 'CONFLICT (contents)'")
    messages: list[str]
    hunks: list[ConflictHunk] = Field(
        description="Empty for conflicts without text markers (binary, modify/delete)"
    )
    more_hunks: int = 0


class MergeTrial(BaseModel):
    """What ``git merge-tree --write-tree -z --name-only --messages`` answered, parsed."""

    tree: str
    clean: bool
    paths: list[str]
    messages: dict[str, list[tuple[str, str]]] = Field(
        default_factory=dict, description="Per path: (conflict type, message)"
    )


class ConflictReport(BaseModel):
    pr: str
    base_ref: str
    base_sha: str = Field(description="The base branch's tip the trial merge used")
    head_sha: str
    mergeable: bool | None = Field(description="GitHub's answer; None while it computes")
    mergeable_state: str | None
    conflicts: bool = Field(description="The trial merge found conflicts")
    files: list[ConflictedFile]
    more_files: int = 0
    message: str
    commands: list[str] = Field(description="How to resolve the conflicts locally")


def parse_merge_tree(output: bytes, clean: bool) -> MergeTrial:
    """Parse ``merge-tree -z --name-only --messages`` output (``clean``: exit status 0)."""
    fields = output.decode("utf-8", errors="replace").split("\0")
    tree = fields[0].strip()
    paths: list[str] = []
    index = 1
    while index < len(fields) and fields[index] != "":
        paths.append(fields[index])
        index += 1
    index += 1  # the empty field closing the file list
    messages: dict[str, list[tuple[str, str]]] = {}
    while index < len(fields) and fields[index].isdigit():
        count = int(fields[index])
        named = fields[index + 1 : index + 1 + count]
        kind, text = fields[index + 1 + count], fields[index + 2 + count]
        for path in named:
            messages.setdefault(path, []).append((kind, text.strip()))
        index += 3 + count
    if clean:
        paths = []
    return MergeTrial(tree=tree, clean=clean, paths=paths, messages=messages)


def conflict_hunks(text: str) -> tuple[list[ConflictHunk], int]:
    """The conflict-marker regions of a merged file (``merge`` or ``diff3`` style), at most
    :data:`MAX_HUNKS_PER_FILE`; and how many more there were."""
    hunks: list[ConflictHunk] = []
    more = 0
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        if not lines[index].startswith(_OPEN):
            index += 1
            continue
        start = index
        sides: dict[str, list[str]] = {"base": [], "skip": [], "head": []}
        side = "base"
        index += 1
        while index < len(lines) and not lines[index].startswith(_CLOSE):
            line = lines[index]
            if line.startswith(_BASE_SECTION) and side == "base":
                side = "skip"  # diff3: the common ancestor's lines
            elif line == _SPLIT and side != "head":
                side = "head"
            else:
                sides[side].append(line)
            index += 1
        if len(hunks) >= MAX_HUNKS_PER_FILE:
            more += 1
        else:
            base, head = sides["base"], sides["head"]
            hunks.append(
                ConflictHunk(
                    start_line=start + 1,
                    end_line=index + 1,
                    base_side=base[:MAX_LINES_PER_SIDE],
                    head_side=head[:MAX_LINES_PER_SIDE],
                    truncated=max(len(base), len(head)) > MAX_LINES_PER_SIDE,
                )
            )
        index += 1
    return hunks, more


def conflict_report(
    *,
    pr: str,
    base_ref: str,
    base_sha: str,
    head_ref: str,
    head_sha: str,
    mergeable: bool | None,
    mergeable_state: str | None,
    trial: MergeTrial,
    merged_texts: dict[str, str | None],
) -> ConflictReport:
    """The report: GitHub's word, the trial's files with their hunks, and what to run.

    ``merged_texts``: each conflicted path's merged text (None for a binary or absent one).
    """
    files: list[ConflictedFile] = []
    for path in trial.paths[:MAX_FILES]:
        found = trial.messages.get(path, [])
        text = merged_texts.get(path)
        hunks, more = conflict_hunks(text) if text is not None else ([], 0)
        files.append(
            ConflictedFile(
                path=path,
                kinds=sorted({kind for kind, _ in found if kind.startswith("CONFLICT")}),
                messages=[message for kind, message in found if kind.startswith("CONFLICT")],
                hunks=hunks,
                more_hunks=more,
            )
        )
    conflicts = not trial.clean
    return ConflictReport(
        pr=pr,
        base_ref=base_ref,
        base_sha=base_sha,
        head_sha=head_sha,
        mergeable=mergeable,
        mergeable_state=mergeable_state,
        conflicts=conflicts,
        files=files,
        more_files=max(len(trial.paths) - MAX_FILES, 0),
        message=_message(pr, base_ref, conflicts, len(trial.paths), mergeable),
        commands=_commands(base_ref, head_ref) if conflicts else [],
    )


def _message(pr: str, base_ref: str, conflicts: bool, count: int, mergeable: bool | None) -> str:
    if mergeable is None:
        github = "GitHub: still computing mergeability"
    else:
        github = "GitHub: mergeable" if mergeable else "GitHub: not mergeable"
    if not conflicts:
        return f"{pr} merges cleanly into {base_ref} ({github})."
    noun = "file" if count == 1 else "files"
    return f"{pr} conflicts with {base_ref} in {count} {noun} ({github})."


def _commands(base_ref: str, head_ref: str) -> list[str]:
    return [
        "git fetch origin",
        f"git switch {head_ref}",
        f"git merge origin/{base_ref}",
        "# edit the conflicting files, then: git add <files> && git commit",
        f"git push origin {head_ref}",
    ]
