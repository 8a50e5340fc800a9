"""Git-backed repository access: locate a repo, resolve refs, mirror remotes, snapshot commits.

Everything goes through the git CLI with list arguments (never a shell).
File names leave this module as display names (``prflow.file_names``): any
bytes git stores, never a string JSON cannot encode.
Local repositories are read in place; remote ones through a bare mirror under
``cache_dir()/mirrors``. Reads of file contents come from per-commit snapshots
under ``cache_dir()/snapshots/<repo_key>/<sha>``, built once and shared by every
worker on the machine. Mistakes the user can fix raise
:class:`~prflow.errors.UserError`; anything else is a :class:`GitError` that
Temporal may retry (:class:`RemoteUnreachable` when a remote does not
answer). Secrets in URLs are refused before git runs, and scrubbed from
anything git prints.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import threading
import uuid
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from prflow.changes import ChangedFile, FileStatus
from prflow.config import cached_settings
from prflow.credentials import redact, refuse_credentials
from prflow.errors import Unreachable, UserError
from prflow.file_lock import exclusive_lock
from prflow.file_names import display_fs, display_name, fs_candidates
from prflow.repo_models import RepoSpec, ResolvedRange
from prflow.state_dirs import cache_dir

if TYPE_CHECKING:  # loaded where used: the CLI's ref checks import this module, not these
    from prflow.imports import ImportGraph
    from prflow.source_tree import DirectoryTree, SourceTree
    from prflow.tools.reader import GrepHit

LOCAL_TIMEOUT = 300.0
ANY_EXIT = tuple(range(256))
"""``ok_codes`` for a caller that reads git's exit code itself."""
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
NETWORK_TIMEOUT = 1_800.0

_SCRUBBED_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
    # These change what `git diff` prints (GIT_DIFF_OPTS=-u5 beats -U3 on the command line).
    "GIT_DIFF_OPTS",
    "GIT_EXTERNAL_DIFF",
)
# Settings a repository's own config could use to make the worker's git run a program:
# hooks (a commit or checkout would run them) and the file-system monitor (status, diff).
# Given as GIT_CONFIG_* variables they outrank every config file, whoever wrote it.
_UNTRUSTED_CONFIG = (("core.hooksPath", "/dev/null"), ("core.fsmonitor", "false"))
_SCP_LIKE = re.compile(r"^[\w.-]+@[\w.-]+:")
_REMOTE_NOT_FOUND = (
    "repository not found",
    "does not appear to be a git repository",
    "authentication failed",
    "could not read from remote repository",
    "could not read username",
    "permission denied",
    "not found",
    "does not exist",
    "returned error: 401",
    "returned error: 403",
    "returned error: 404",
)
_REMOTE_DOWN = (
    "could not resolve host",
    "could not resolve hostname",
    "failed to connect",
    "connection refused",
    "connection timed out",
    "connection reset",
    "network is unreachable",
    "no route to host",
    "operation timed out",
    "ssl certificate problem",
    "ssl connect error",
    "server certificate verification failed",
    "gnutls_handshake",
    "the remote end hung up unexpectedly",
)


class GitError(RuntimeError):
    """git failed for a reason the user did not cause; retrying may help."""


class RemoteUnreachable(GitError, Unreachable):
    """The remote did not answer (DNS, refused connection, TLS, timeout); Temporal retries it."""


# --------------------------------------------------------------------------- running git


def _git_env(own_config: bool = False) -> dict[str, str]:
    """The caller's environment minus variables that would redirect git, never prompting,
    with :data:`_UNTRUSTED_CONFIG` on top of whatever the repository's config says.

    ``own_config``: no user's or system's config file either (a trial merge must not use
    the user's merge driver, conflict style or rerere)."""
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED_ENV}
    if own_config:
        env["GIT_CONFIG_GLOBAL"] = os.devnull
        env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["LC_ALL"] = "C"
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    count = int(env.get("GIT_CONFIG_COUNT", "0") or "0")
    for key, value in _UNTRUSTED_CONFIG:
        env[f"GIT_CONFIG_KEY_{count}"] = key
        env[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    env["GIT_CONFIG_COUNT"] = str(count)
    return env


def run_git(
    args: Sequence[str],
    *,
    git_dir: Path | None = None,
    cwd: Path | None = None,
    stdin: bytes | None = None,
    ok_codes: tuple[int, ...] = (0,),
    timeout: float = LOCAL_TIMEOUT,
    own_config: bool = False,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git [--git-dir=...] args`` (in ``cwd``, a work tree) and return the finished process.

    Every git prflow runs goes through here, so the caller's git environment
    (``GIT_DIR``, diff options) and a repository's hooks never steer it. Exit
    codes outside ``ok_codes`` (:data:`ANY_EXIT` for all) raise :class:`GitError`
    carrying git's stderr; ``own_config``: read no user's or system's git config
    (see :func:`_git_env`); ``env``: variables set on top of that environment (a private
    index file, a commit identity).
    """
    command = ["git"]
    if git_dir is not None:
        command.append(f"--git-dir={git_dir}")
    command.extend(args)
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            cwd=cwd,
            input=stdin,
            env=_git_env(own_config) | dict(env or {}),
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git {args[0]} took longer than {timeout:.0f}s") from exc
    if done.returncode not in ok_codes:
        stderr = " ".join(done.stderr.decode("utf-8", errors="replace").split())
        raise GitError(redact(f"git {' '.join(args[:3])} failed ({done.returncode}): {stderr}"))
    return done


def _stdout(done: subprocess.CompletedProcess[bytes]) -> str:
    return done.stdout.decode("utf-8", errors="replace").strip()


# --------------------------------------------------------------------------- locating repos


@dataclass(frozen=True)
class GitRepo:
    """A repository git can read: its git directory and the key naming it in the cache."""

    git_dir: Path
    key: str
    location: str
    remote: bool


def is_remote(location: str) -> bool:
    """True for clone URLs (``scheme://`` or scp-like ``user@host:path``)."""
    return "://" in location or bool(_SCP_LIKE.match(location))


def _key_of(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _remote_url(location: str) -> str:
    """The URL as cached; credentials in it are refused so they never reach workflow history."""
    refuse_credentials(location)
    return location.strip().rstrip("/")


_OPENED_LIMIT = 256
_opened: dict[str, GitRepo] = {}
"""Checkouts this process opened, by absolute path: a warm worker's activities reopen the
same checkout for every step, and finding its git directory costs two git processes."""


def open_local(location: str) -> GitRepo:
    """A local checkout or bare repository, read in place."""
    path = Path(location).expanduser()
    known = _opened.get(str(path.absolute()))
    if known is not None and known.git_dir.is_dir():
        return known  # what git would answer again: the layout on disk decides it
    if not path.exists():
        raise UserError(
            f"repository path {location} does not exist; pass a git checkout directory or a "
            "clone URL"
        )
    # a checkout answers both in one process; a bare repository has no top level
    both = run_git(
        ["-C", str(path), "rev-parse", "--absolute-git-dir", "--show-toplevel"],
        ok_codes=(0, 128),
    )
    lines = both.stdout.decode("utf-8", errors="replace").splitlines()
    if both.returncode == 0 and len(lines) == 2 and all(lines):
        git_dir, shown = Path(lines[0]), lines[1]
    else:
        try:
            done = run_git(["-C", str(path), "rev-parse", "--absolute-git-dir"])
        except GitError:
            raise UserError(
                f"{location} is not a git repository; pass the directory of a git checkout "
                "(where `git status` works) or a clone URL"
            ) from None
        git_dir = Path(_stdout(done))
        shown = str(git_dir)
    repo = GitRepo(git_dir=git_dir, key=_key_of(str(git_dir)), location=shown, remote=False)
    if len(_opened) >= _OPENED_LIMIT:
        _opened.clear()
    _opened[str(path.absolute())] = repo
    return repo


def mirror_dir(url: str) -> Path:
    """Where the bare mirror of ``url`` lives."""
    return cache_dir() / "mirrors" / f"{_key_of(url)}.git"


def _mirror_lock(mirror: Path) -> contextlib.AbstractContextManager[None]:
    """Serialise clone/fetch of one mirror across processes on this machine."""
    return exclusive_lock(mirror.with_suffix(".lock"))


def _remote_failure(url: str, exc: GitError) -> Exception:
    """'No such repo / no access' is the user's to fix; 'no answer' may pass; else git's error."""
    text = str(exc).lower()
    if any(marker in text for marker in _REMOTE_NOT_FOUND):
        return UserError(
            f"cannot read {url}: {exc}. Check the URL, and that this machine's git "
            "credentials can access it"
        )
    if any(marker in text for marker in _REMOTE_DOWN):
        return RemoteUnreachable(
            f"cannot reach {url}: {exc}. Check the URL and this machine's network "
            "(DNS, proxy, firewall), then run the command again"
        )
    return exc


def open_remote(location: str, *, refresh: bool, pr_number: int | None = None) -> GitRepo:
    """The mirror of a remote, cloned when missing and fetched when ``refresh`` is set."""
    url = _remote_url(location)
    mirror = mirror_dir(url)
    with _mirror_lock(mirror):
        try:
            cloned = False
            if not mirror.exists():
                staging = mirror.with_name(f".tmp-{mirror.name}-{uuid.uuid4().hex}")
                try:
                    run_git(
                        ["clone", "--mirror", "--quiet", url, str(staging)],
                        timeout=NETWORK_TIMEOUT,
                    )
                    staging.rename(mirror)
                finally:
                    shutil.rmtree(staging, ignore_errors=True)
                cloned = True
            if refresh and not cloned:
                run_git(
                    ["fetch", "--prune", "--quiet", "origin"],
                    git_dir=mirror,
                    timeout=NETWORK_TIMEOUT,
                )
            if pr_number is not None:
                _fetch_pull_ref(mirror, url, pr_number)
        except GitError as exc:
            raise _remote_failure(url, exc) from exc
    return GitRepo(git_dir=mirror, key=_key_of(url), location=url, remote=True)


def check_remote(url: str) -> None:
    """Fail now (one classified error) when ``url`` cannot be reached or read."""
    try:
        run_git(["ls-remote", "--quiet", url, "HEAD"], timeout=NETWORK_TIMEOUT)
    except GitError as exc:
        raise _remote_failure(url, exc) from exc


def _fetch_pull_ref(mirror: Path, url: str, pr_number: int) -> None:
    ref = f"refs/pull/{pr_number}/head"
    try:
        run_git(
            ["fetch", "--quiet", "origin", f"+{ref}:{ref}"], git_dir=mirror, timeout=NETWORK_TIMEOUT
        )
    except GitError as exc:
        if "couldn't find remote ref" in str(exc).lower():
            raise UserError(
                f"pull request #{pr_number} was not found at {url} (no {ref}); check the number"
            ) from exc
        raise


def open_repo(location: str, *, refresh: bool = False, pr_number: int | None = None) -> GitRepo:
    """A local repository or the mirror of a remote one."""
    if is_remote(location):
        return open_remote(location, refresh=refresh, pr_number=pr_number)
    return open_local(location)


# --------------------------------------------------------------------------- refs and ranges


def commit_of(repo: GitRepo, rev: str) -> str | None:
    """The commit id ``rev`` names in ``repo``, or None."""
    if not rev or rev.startswith("-"):
        return None
    done = run_git(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
        git_dir=repo.git_dir,
        ok_codes=(0, 1, 128),
    )
    sha = _stdout(done)
    return sha if done.returncode == 0 and sha else None


def _commits_of(repo: GitRepo, base: str, head: str) -> tuple[str, str] | None:
    """Both refs' commits from one git process, or None when either does not name one
    (then each is resolved alone, for the error that says which)."""
    if base.startswith("-") or head.startswith("-"):
        return None
    done = run_git(
        ["rev-parse", "--end-of-options", f"{base}^{{commit}}", f"{head}^{{commit}}"],
        git_dir=repo.git_dir,
        ok_codes=ANY_EXIT,
    )
    shas = done.stdout.decode("ascii", errors="replace").split()
    if done.returncode != 0 or len(shas) != 2 or not all(_SHA.fullmatch(sha) for sha in shas):
        return None
    return shas[0], shas[1]


def _resolve_ref(repo: GitRepo, ref: str, role: str) -> str:
    sha = commit_of(repo, ref)
    if sha is None and repo.remote and ref.startswith("origin/"):
        sha = commit_of(repo, f"refs/heads/{ref.removeprefix('origin/')}")
    if sha is None:
        raise UserError(
            f"unknown {role} ref {ref!r} in {repo.location}: no branch, tag or commit by that "
            "name. Check the spelling, or fetch it into the repository first "
            f"(git fetch origin {ref})"
        )
    return sha


def resolve_range(spec: RepoSpec, base: str | None, head: str) -> ResolvedRange:
    """Pin ``base`` and ``head`` to commits and find where head forked from base.

    Without a base, the PR convention: ``main``, else ``master`` (local or on origin).
    """
    repo = open_repo(spec.location, refresh=True, pr_number=spec.pr_number)
    base = base or default_base(repo)
    both = _commits_of(repo, base, head)
    base_sha = both[0] if both else _resolve_ref(repo, base, "base")
    head_sha = both[1] if both else _resolve_ref(repo, head, "head")
    done = run_git(["merge-base", base_sha, head_sha], git_dir=repo.git_dir, ok_codes=(0, 1))
    if done.returncode != 0 and _is_shallow(repo):
        raise UserError(
            f"{repo.location} is a shallow clone, so the history joining {base} and {head} is "
            "missing: deepen it with `git fetch --unshallow` (or `git fetch --deepen=200`), "
            "or check out with fetch-depth: 0 in CI"
        )
    if done.returncode != 0:
        raise UserError(
            f"{base} and {head} share no history in {repo.location}, so there is no pull "
            "request diff between them; pick a base branch that head was created from"
        )
    return ResolvedRange(
        repo_key=repo.key,
        location=repo.location,
        base_ref=base,
        head_ref=head,
        base_sha=base_sha,
        head_sha=head_sha,
        merge_base_sha=_stdout(done),
    )


def _is_shallow(repo: GitRepo) -> bool:
    done = run_git(
        ["rev-parse", "--is-shallow-repository"], git_dir=repo.git_dir, ok_codes=(0, 128)
    )
    return _stdout(done) == "true"


def default_base(repo: GitRepo) -> str:
    """``main``, else ``master`` (locally or on origin), as most PRs target them."""
    for candidate in ("main", "master", "origin/main", "origin/master"):
        if commit_of(repo, candidate) is not None:
            return candidate
    raise UserError(f"{repo.location} has no main or master branch; name the base with --base REF")


def repo_for_range(r: ResolvedRange) -> GitRepo:
    """Reopen the repository of a resolved range on any worker, making sure its commits exist."""
    repo = open_repo(r.location)
    ensure_commits(repo, [r.base_sha, r.head_sha, r.merge_base_sha])
    return repo


def _missing_commits(repo: GitRepo, shas: Sequence[str]) -> list[str]:
    """Which of ``shas`` are not commits of ``repo``: one ``git cat-file --batch-check``
    for all of them (every activity checks a range's three commits before reading)."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return []
    done = run_git(
        ["cat-file", "--batch-check=%(objecttype)"],
        git_dir=repo.git_dir,
        stdin="".join(f"{sha}\n" for sha in wanted).encode(),
        ok_codes=(0, 1, 128),
    )
    kinds = done.stdout.decode("utf-8", errors="replace").splitlines()
    if done.returncode != 0 or len(kinds) != len(wanted):
        return wanted
    return [sha for sha, kind in zip(wanted, kinds, strict=True) if kind.strip() != "commit"]


def ensure_commits(repo: GitRepo, shas: Sequence[str]) -> None:
    """Fetch into the mirror when a commit another worker saw is missing here."""
    missing = _missing_commits(repo, shas)
    if missing and repo.remote:
        with _mirror_lock(repo.git_dir):
            run_git(["fetch", "--quiet", "origin"], git_dir=repo.git_dir, timeout=NETWORK_TIMEOUT)
            for sha in missing:
                if _missing_commits(repo, [sha]):
                    run_git(
                        ["fetch", "--quiet", "origin", sha],
                        git_dir=repo.git_dir,
                        ok_codes=(0, 1, 128),
                        timeout=NETWORK_TIMEOUT,
                    )
        missing = _missing_commits(repo, missing)
    if missing:
        raise UserError(
            f"commit {missing[0][:12]} is no longer in {repo.location} (history rewritten?); "
            "resolve the refs again and restart the analysis"
        )


# --------------------------------------------------------------------------- changed files, diffs

# Every diff prflow parses is the diff GitHub shows, whatever the user's or the
# repository's git config says (diff.algorithm, diff.renames, diff.external, color.ui,
# diff.indentHeuristic, diff.relative ...): each setting that changes what `git diff`
# prints is fixed on the command line, where it overrides every config file.
_DIFF_OPTIONS = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "-M",
    "--diff-algorithm=myers",
    "--indent-heuristic",
)
# The patch itself: three lines of context, hunks never joined across unchanged lines,
# a/ and b/ prefixes (diff.noprefix, diff.mnemonicPrefix), blank context lines kept as " ".
_PATCH_OPTIONS = (
    "-U3",
    "--inter-hunk-context=0",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--submodule=short",
)
_PATCH_CONFIG = ("-c", "core.quotePath=false", "-c", "diff.suppressBlankEmpty=false")
_STATUS = {
    "A": FileStatus.added,
    "M": FileStatus.modified,
    "T": FileStatus.modified,
    "D": FileStatus.deleted,
    "R": FileStatus.renamed,
    "C": FileStatus.added,
}


def _changed(repo: GitRepo, base_sha: str, head_sha: str) -> list[ChangedFile]:
    # One diff for statuses and line counts: rename detection runs once, which is most
    # of the cost on a release-sized change.
    raw = run_git(
        ["diff", *_DIFF_OPTIONS, "--raw", "--numstat", "-z", base_sha, head_sha],
        git_dir=repo.git_dir,
    ).stdout
    tokens = [display_name(t) for t in raw.split(b"\0")]
    statuses, rest = _parse_raw(tokens)
    counts = _parse_numstat(rest)
    files = []
    for status, old_path, path in statuses:
        added, deleted = counts.get(path, (0, 0))
        files.append(
            ChangedFile(
                path=path,
                status=status,
                additions=added or 0,
                deletions=deleted or 0,
                old_path=old_path,
                binary=added is None,
            )
        )
    return files


def _parse_raw(
    tokens: list[str],
) -> tuple[list[tuple[FileStatus, str | None, str]], list[str]]:
    """``--raw -z`` records (status, old path for renames, path), and the tokens after them.

    Each record is a ``:mode mode sha sha STATUS`` header, then one path, or two for a
    rename or copy; the numstat records that follow never start with a colon.
    """
    out: list[tuple[FileStatus, str | None, str]] = []
    i = 0
    while i < len(tokens) and tokens[i].startswith(":"):
        letter = tokens[i].rsplit(" ", 1)[-1][:1]
        if letter in "RC":
            old_path, path = tokens[i + 1], tokens[i + 2]
            out.append((_STATUS[letter], old_path if letter == "R" else None, path))
            i += 3
        else:
            out.append((_STATUS.get(letter, FileStatus.modified), None, tokens[i + 1]))
            i += 2
    return out, tokens[i:]


def _parse_numstat(tokens: list[str]) -> dict[str, tuple[int | None, int]]:
    """``--numstat -z`` records by (new) path; None additions mark a binary file."""
    counts: dict[str, tuple[int | None, int]] = {}
    i = 0
    while i < len(tokens) and tokens[i]:
        added, deleted, path = tokens[i].split("\t", 2)
        i += 1
        if not path:  # rename: old and new path follow as separate tokens
            path = tokens[i + 1]
            i += 2
        counts[path] = (None, 0) if added == "-" else (int(added), int(deleted))
    return counts


def changed_files(r: ResolvedRange) -> list[ChangedFile]:
    """Files the pull request changes (merge-base..head), with line counts and renames."""
    return _changed(repo_for_range(r), r.merge_base_sha, r.head_sha)


def _diff_text(
    repo: GitRepo, base_sha: str, head_sha: str, paths: Sequence[str] | None, context: int = 3
) -> str:
    options = [f"-U{context}" if o == "-U3" else o for o in _PATCH_OPTIONS]
    args = [
        "--literal-pathspecs",
        *_PATCH_CONFIG,
        "diff",
        *_DIFF_OPTIONS,
        *options,
        base_sha,
        head_sha,
    ]
    if paths is not None:
        args.extend(["--", *(name for path in paths for name in fs_candidates(path))])
    return run_git(args, git_dir=repo.git_dir).stdout.decode("utf-8", errors="replace")


# --------------------------------------------------------------------------- snapshots


def snapshot_root(repo_key: str) -> Path:
    return cache_dir() / "snapshots" / repo_key


def snapshot(repo: GitRepo, sha: str, near: str | None = None) -> Path:
    """A read-only copy of the files of commit ``sha``, built once per machine.

    The tree is written to a private temporary directory and renamed into place,
    so a directory at the final path is always complete and concurrent builders
    simply keep whichever rename won. Files are made read-only; symlinks are kept
    as symlinks (readers must confine them, see ``resolve_inside``). With ``near``
    (a commit whose snapshot exists, the PR's base most often), every file that
    commit has unchanged is hard-linked from its snapshot instead of written again.
    Beside the tree, ``<sha>.paths.json`` lists its files (see :func:`snapshot_tree`).
    """
    final = snapshot_root(repo.key) / sha
    if final.is_dir():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = final.with_name(f".tmp-{sha}-{uuid.uuid4().hex}")
    staging.mkdir()
    try:
        near_root = snapshot_root(repo.key) / near if near is not None else None
        if near_root is not None and not near_root.is_dir():
            near_root = None
        files = _write_tree(repo, sha, staging, near_root, near)
        listing = _listing_path(repo, sha)
        listing_staging = listing.with_name(f".tmp-{listing.name}-{uuid.uuid4().hex}")
        listing_staging.write_text(json.dumps(files), encoding="utf-8")
        listing_staging.replace(listing)
        try:
            staging.rename(final)
        except OSError:
            if not final.is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return final


def _listing_path(repo: GitRepo, sha: str) -> Path:
    return snapshot_root(repo.key) / f"{sha}.paths.json"


def snapshot_tree(repo: GitRepo, sha: str, near: str | None = None) -> DirectoryTree:
    """The snapshot of ``sha`` as a tree whose file list comes from its listing, not a walk."""
    from prflow.source_tree import DirectoryTree

    root = snapshot(repo, sha, near)
    listing = _listing_path(repo, sha)
    paths: list[str] | None = None
    with contextlib.suppress(OSError, ValueError):
        paths = [str(p) for p in json.loads(listing.read_text(encoding="utf-8"))]
    return DirectoryTree(root, paths)


def _tree_entries(repo: GitRepo, sha: str) -> list[tuple[str, str, str, str]]:
    """(mode, type, object id, path) of every entry of the commit, recursively."""
    raw = run_git(["ls-tree", "-r", "-z", "--full-tree", sha], git_dir=repo.git_dir).stdout
    entries = []
    for record in raw.split(b"\0"):
        if not record:
            continue
        meta, path = record.split(b"\t", 1)
        mode, kind, oid = meta.decode().split(" ")
        entries.append((mode, kind, oid, os.fsdecode(path)))
    return entries


def _safe_relative(path: str) -> bool:
    parts = path.split("/")
    return not path.startswith("/") and all(p not in ("", ".", "..", ".git") for p in parts)


def _write_tree(
    repo: GitRepo, sha: str, dest: Path, near_root: Path | None = None, near: str | None = None
) -> list[str]:
    """Write every file of the commit under ``dest``; blobs come from one ``git cat-file``.

    Blobs that commit ``near`` has at the same path with the same mode are hard-linked
    from ``near_root`` (its snapshot). Returns the display names of the regular files.
    """
    entries = _tree_entries(repo, sha)
    same: set[tuple[str, str, str]] = set()
    if near_root is not None and near is not None:
        same = {(mode, oid, path) for mode, kind, oid, path in _tree_entries(repo, near)}
    files: list[str] = []
    blobs: list[tuple[str, str, Path, str]] = []
    made: set[Path] = set()
    for mode, kind, oid, path in entries:
        if not _safe_relative(path):
            continue
        target = dest / path
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        if kind != "blob":  # a submodule: only its directory exists in this commit
            target.mkdir(exist_ok=True)
            continue
        if mode != "120000":
            files.append(display_fs(path))
            if near_root is not None and (mode, oid, path) in same:
                with contextlib.suppress(OSError):
                    os.link(near_root / path, target, follow_symlinks=False)
                    continue
        blobs.append((mode, oid, target, path))
    if blobs:
        _write_blobs(repo, sha, blobs)
    return sorted(files)


def _write_blobs(repo: GitRepo, sha: str, blobs: list[tuple[str, str, Path, str]]) -> None:
    """Stream ``(mode, object id, target, path)`` blobs out of one ``git cat-file --batch``.

    A thread sends every object id while this one reads the answers in order, so
    git never waits for a round trip per file (the pipes would fill, and both
    sides block, if one thread did both).
    """
    command = ["git", f"--git-dir={repo.git_dir}", "cat-file", "--batch"]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_git_env()
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        feeder = threading.Thread(
            target=_request_objects, args=(proc.stdin, [oid for _, oid, _, _ in blobs]), daemon=True
        )
        feeder.start()
        try:
            for mode, oid, target, path in blobs:
                header = proc.stdout.readline().split()
                if len(header) != 3 or header[1] != b"blob":
                    raise GitError(
                        f"git cat-file returned {header!r} for {oid} ({display_fs(path)})"
                    )
                data = proc.stdout.read(int(header[2]))
                proc.stdout.read(1)
                if mode == "120000":
                    os.symlink(os.fsdecode(data), target)
                else:
                    target.write_bytes(data)
                    target.chmod(0o555 if mode == "100755" else 0o444)
        except BaseException:
            proc.kill()  # the feeder's next write then fails, and it ends
            raise
        finally:
            feeder.join()
    if proc.returncode != 0:
        raise GitError(f"git cat-file --batch exited with {proc.returncode} for {sha}")


def _request_objects(stdin: IO[bytes], oids: list[str]) -> None:
    """Send ``git cat-file --batch`` every object id, then end its input."""
    with contextlib.suppress(OSError):  # git died: the reader reports why
        for oid in oids:
            stdin.write(oid.encode() + b"\n")
        stdin.close()


# --------------------------------------------------------------------------- import graphs


class _GraphCache:
    """A few recent import graphs in memory, keyed by (repo key, sha)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._graphs: OrderedDict[tuple[str, str], ImportGraph] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> ImportGraph | None:
        with self._lock:
            graph = self._graphs.get(key)
            if graph is not None:
                self._graphs.move_to_end(key)
            return graph

    def put(self, key: tuple[str, str], graph: ImportGraph) -> None:
        with self._lock:
            self._graphs[key] = graph
            self._graphs.move_to_end(key)
            while len(self._graphs) > self._size:
                self._graphs.popitem(last=False)


_GRAPHS = _GraphCache(size=8)


def import_graph(
    repo: GitRepo, sha: str, near: tuple[str, Sequence[ChangedFile]] | None = None
) -> ImportGraph:
    """The import graph of ``sha``: from memory, else from JSON beside the snapshot, else built.

    Built, it takes each Python file's imports from the parse cache (by blob SHA);
    ``near`` (a commit whose graph is known, and the files changed from it to ``sha``)
    lets files the change did not edit keep that graph's edges.
    """
    from prflow.analysis.parse_cache import ParsedFiles
    from prflow.analysis.py_summary import cached_imports, summary_parser
    from prflow.imports import ImportGraph, build_import_graph
    from prflow.imports.build import GraphReuse
    from prflow.store.parse_cache import StoreParseCache

    key = (repo.key, sha)
    cached = _GRAPHS.get(key)
    if cached is not None:
        return cached
    stored = snapshot_root(repo.key) / f"{sha}.imports.json"
    if stored.is_file():
        graph = ImportGraph.model_validate_json(stored.read_bytes())
    else:
        tree = snapshot_tree(repo, sha, near[0] if near is not None else None)
        reuse = None
        if near is not None and _known_graph(repo, near[0]):
            other = import_graph(repo, near[0])
            reuse = GraphReuse(other, snapshot_tree(repo, near[0]), near[1])
        db = cached_settings().resolved_database_url()
        parsed = ParsedFiles(summary_parser(), StoreParseCache(db))
        graph = build_import_graph(tree, cached_imports(parsed, tree), reuse)
        staging = stored.with_name(f".tmp-{stored.name}-{uuid.uuid4().hex}")
        staging.write_text(graph.model_dump_json(), encoding="utf-8")
        staging.replace(stored)
    _GRAPHS.put(key, graph)
    return graph


def parse_for_graphs(
    repo: GitRepo, wanted: Sequence[tuple[str, tuple[str, Sequence[ChangedFile]] | None]]
) -> None:
    """Parse, as one batch, the Python files :func:`import_graph` will read for each
    ``(sha, near)`` of ``wanted`` (``near`` as :func:`import_graph` takes it) whose graph is
    not known yet.

    A release pair's base and head then share one pool of parse processes instead of
    each waiting on its own (the head's edited files parse beside the base's). A ``near``
    commit's graph is taken as built by then (the activity builds the base's first); the
    results land in the parse cache the builds read.
    """
    from prflow.analysis.parse_cache import ParsedFiles
    from prflow.analysis.py_summary import summary_parser
    from prflow.imports.build import plan_reads
    from prflow.store.parse_cache import StoreParseCache

    batches: list[tuple[SourceTree, Sequence[str]]] = []
    for sha, near in wanted:
        if _known_graph(repo, sha):
            continue
        tree = snapshot_tree(repo, sha, near[0] if near is not None else None)
        reuse_tree = snapshot_tree(repo, near[0]) if near is not None else None
        changed = near[1] if near is not None else None
        batches.append((tree, plan_reads(tree, reuse_tree, changed).python_to_parse(tree)))
    db = cached_settings().resolved_database_url()
    ParsedFiles(summary_parser(), StoreParseCache(db)).prefetch(batches)


def _known_graph(repo: GitRepo, sha: str) -> bool:
    """True when the graph of ``sha`` is in memory or stored (it need not be built)."""
    if _GRAPHS.get((repo.key, sha)) is not None:
        return True
    return (snapshot_root(repo.key) / f"{sha}.imports.json").is_file()


# --------------------------------------------------------------------------- the reader


class GitRepoReader:
    """:class:`prflow.tools.reader.RepoReader` over a git repository and its snapshots."""

    def __init__(self, repo: GitRepo) -> None:
        self.repo = repo
        self._file_lists: dict[str, list[str]] = {}

    @classmethod
    def for_range(cls, r: ResolvedRange) -> GitRepoReader:
        return cls(repo_for_range(r))

    def resolve_commit(self, rev: str) -> str | None:
        return commit_of(self.repo, rev)

    def changed_files(self, base_sha: str, head_sha: str) -> list[ChangedFile]:
        return _changed(self.repo, base_sha, head_sha)

    def diff(
        self,
        base_sha: str,
        head_sha: str,
        paths: Sequence[str] | None = None,
        context: int = 3,
    ) -> str:
        """The patch, made with explicit options; ``context`` other than 3 only for showing to
        a model, never for placing comments (GitHub's diff has three lines of context)."""
        return _diff_text(self.repo, base_sha, head_sha, paths, context)

    def read_file(self, sha: str, path: str) -> bytes | None:
        from prflow.tools.paths import resolve_inside
        from prflow.tools.reader import ToolError

        root = snapshot(self.repo, sha)
        targets = [resolve_inside(root, name) for name in fs_candidates(path)]
        target = next((t for t in targets if t.exists()), targets[0])
        if target.is_dir():
            entries = sorted(
                display_fs(p.name) + ("/" if p.is_dir() else "") for p in target.iterdir()
            )
            listing = ", ".join(entries[:30]) + (" ..." if len(entries) > 30 else "")
            raise ToolError(f"{path!r} is a directory, not a file; it contains: {listing}")
        if not target.is_file():
            return None
        return target.read_bytes()

    def list_files(self, sha: str) -> list[str]:
        if sha not in self._file_lists:
            raw = run_git(
                ["ls-tree", "-r", "-z", "--name-only", "--full-tree", sha],
                git_dir=self.repo.git_dir,
            ).stdout
            self._file_lists[sha] = sorted(display_name(p) for p in raw.split(b"\0") if p)
        return list(self._file_lists[sha])

    def grep(self, sha: str, pattern: str, glob: str | None = None) -> list[GrepHit]:
        return _grep(self.repo, sha, pattern, glob)

    def tree(self, sha: str, near: str | None = None) -> SourceTree:
        """``near``: a commit whose snapshot shares most files (see :func:`snapshot`)."""
        return snapshot_tree(self.repo, sha, near)

    def import_graph(
        self, sha: str, near: tuple[str, Sequence[ChangedFile]] | None = None
    ) -> ImportGraph:
        return import_graph(self.repo, sha, near)

    def parse_for_graphs(
        self, wanted: Sequence[tuple[str, tuple[str, Sequence[ChangedFile]] | None]]
    ) -> None:
        """See :func:`parse_for_graphs`."""
        parse_for_graphs(self.repo, wanted)


def _grep(repo: GitRepo, sha: str, pattern: str, glob: str | None) -> list[GrepHit]:
    """``git grep -n -I -E`` at one commit; exit 1 (no match) is an empty list."""
    from prflow.tools.reader import MAX_GREP_HITS, GrepHit, ToolError

    command = [
        "git",
        f"--git-dir={repo.git_dir}",
        "grep",
        "-n",
        "-I",
        "-E",
        "-z",
        "--full-name",
        "--no-color",
        "--no-column",  # grep.column=true would put a column between line and text
        "-e",
        pattern,
        sha,
    ]
    if glob is not None:
        command.extend(["--", glob])
    prefix = f"{sha}:"
    hits: list[GrepHit] = []
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_git_env()
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        for raw in proc.stdout:
            name, number, text = raw.rstrip(b"\n").split(b"\0", 2)
            hits.append(
                GrepHit(
                    file=display_name(name).removeprefix(prefix),
                    line=int(number),
                    match=text.decode("utf-8", errors="replace").removesuffix("\r"),
                )
            )
            if len(hits) >= MAX_GREP_HITS:
                proc.kill()
                break
        stderr = redact(" ".join(proc.stderr.read().decode("utf-8", errors="replace").split()))
    if len(hits) >= MAX_GREP_HITS or proc.returncode in (0, 1):
        return hits
    if _PATTERN_REFUSED.search(stderr):  # git could not compile the pattern
        raise ToolError(_pattern_refused(pattern, stderr))
    raise GitError(f"git grep failed ({proc.returncode}): {stderr}")


_PATTERN_REFUSED = re.compile(
    r"^fatal: (?:-e option|command line), '|regex|unmatched|invalid", re.I
)
GREP_PATTERN_SHOWN = 80
"""Characters of a refused pattern repeated in the error: a long one is cut, not echoed."""


def _pattern_refused(pattern: str, stderr: str) -> str:
    """Why git refused ``pattern``, in a line that stays short whatever its length.

    git's message repeats the pattern and is cut at 4 KiB, so for a long pattern the
    reason after it is lost; then the length is the reason.
    """
    shown = pattern if len(pattern) <= GREP_PATTERN_SHOWN else pattern[:GREP_PATTERN_SHOWN] + "…"
    reason = stderr.partition(f"'{pattern}': ")[2]
    if reason or len(pattern) <= GREP_PATTERN_SHOWN:
        return f"invalid regular expression {shown!r}: {reason or stderr.removeprefix('fatal: ')}"
    return (
        f"git grep cannot compile the regular expression {shown!r} ({len(pattern)} "
        "characters): it is too long or too complex; search for a shorter pattern"
    )
