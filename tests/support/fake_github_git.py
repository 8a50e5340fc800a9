"""The Git Data API of the fake GitHub (blobs, trees, commits, refs) on a real bare repository.

Each endpoint writes real git objects with git plumbing, so a test can check
what a client pushed with ``git`` itself. Shapes follow GitHub's REST
description (``short-blob``, ``git-tree``, ``git-commit``, ``git-ref``);
errors follow GitHub's: 422 for a reference that already exists or a tree
entry deleting a missing file, 404 for unknown objects.
"""

from __future__ import annotations

import base64
import os
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

Json = Any
ZERO = "0" * 40


class GitDataError(Exception):
    """A request GitHub would refuse: ``status`` and GitHub's message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _git(
    git_dir: Path,
    *args: str,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    ok: tuple[int, ...] = (0,),
) -> str:
    full = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | (env or {})
    full["GIT_CONFIG_GLOBAL"] = os.devnull
    done = subprocess.run(
        ["git", f"--git-dir={git_dir}", *args],
        input=stdin,
        capture_output=True,
        env=full,
        check=False,
    )
    if done.returncode not in ok:
        raise GitDataError(422, done.stderr.decode(errors="replace").strip() or "git failed")
    return done.stdout.decode("utf-8", errors="replace").strip()


def _object_type(git_dir: Path, sha: str) -> str | None:
    kind = _git(git_dir, "cat-file", "-t", sha, ok=(0, 1, 128))
    return kind or None


@dataclass
class GitData:
    """The Git Data endpoints of one repository: ``api`` is its REST URL, ``web`` its page."""

    git_dir: Path
    api: str
    web: str

    def blob(self, body: Json) -> Json:
        content = body.get("content") if isinstance(body, dict) else None
        if not isinstance(content, str):
            raise GitDataError(422, 'Invalid request.\n\n"content" wasn\'t supplied.')
        encoding = body.get("encoding", "utf-8")
        if encoding not in ("utf-8", "base64"):
            raise GitDataError(422, f"encoding {encoding!r} is not supported")
        data = base64.b64decode(content) if encoding == "base64" else content.encode("utf-8")
        sha = _git(self.git_dir, "hash-object", "-w", "--stdin", stdin=data)
        return {"url": f"{self.api}/git/blobs/{sha}", "sha": sha}

    def tree(self, body: Json) -> Json:
        entries = body.get("tree") if isinstance(body, dict) else None
        if not isinstance(entries, list):
            raise GitDataError(422, 'Invalid request.\n\n"tree" wasn\'t supplied.')
        with tempfile.TemporaryDirectory() as scratch:
            # A private index (and an empty work tree, which ls-files insists on).
            env = {"GIT_INDEX_FILE": str(Path(scratch) / "index"), "GIT_WORK_TREE": scratch}
            base = body.get("base_tree")
            if base:
                if _object_type(self.git_dir, base) != "tree":
                    raise GitDataError(422, "base_tree is not a valid tree oid")
                _git(self.git_dir, "read-tree", base, env=env)
            else:
                _git(self.git_dir, "read-tree", "--empty", env=env)
            for entry in entries:
                path, mode, sha = entry.get("path"), entry.get("mode"), entry.get("sha", ZERO)
                if "content" in entry:
                    sha = self.blob({"content": entry["content"]})["sha"]
                if sha is None:
                    present = _git(self.git_dir, "ls-files", "--", path, env=env)
                    if not present:
                        raise GitDataError(422, f"GitRPC::BadObjectState: {path} does not exist")
                    _git(self.git_dir, "update-index", "--force-remove", "--", path, env=env)
                    continue
                if _object_type(self.git_dir, sha) != "blob":
                    raise GitDataError(422, f"tree.sha {sha} is not a valid blob")
                _git(
                    self.git_dir,
                    "update-index",
                    "--add",
                    "--cacheinfo",
                    f"{mode},{sha},{path}",
                    env=env,
                )
            sha = _git(self.git_dir, "write-tree", env=env)
        return self.tree_json(sha)

    def tree_json(self, sha: str) -> Json:
        listing = _git(self.git_dir, "ls-tree", "-l", sha)
        items = []
        for line in filter(None, listing.split("\n")):
            meta, path = line.split("\t", 1)
            mode, kind, oid, size = meta.split()
            item: dict[str, str | int] = {
                "path": path,
                "mode": mode,
                "type": kind,
                "sha": oid,
                "url": f"{self.api}/git/{kind}s/{oid}",
            }
            if kind == "blob":
                item["size"] = int(size)
            items.append(item)
        return {"sha": sha, "url": f"{self.api}/git/trees/{sha}", "truncated": False, "tree": items}

    def commit(self, body: Json, login: str) -> Json:
        tree, parents = body.get("tree"), body.get("parents", [])
        message = body.get("message")
        if not isinstance(message, str) or not isinstance(tree, str):
            raise GitDataError(422, "Invalid request: message and tree are required")
        if _object_type(self.git_dir, tree) != "tree":
            raise GitDataError(422, "Tree SHA does not exist")
        for parent in parents:
            if _object_type(self.git_dir, parent) != "commit":
                raise GitDataError(422, "Parent SHA does not exist or is not a commit object")
        when = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        env = {
            "GIT_AUTHOR_NAME": login,
            "GIT_AUTHOR_EMAIL": f"{login}@users.noreply.github.com",
            "GIT_COMMITTER_NAME": "GitHub",
            "GIT_COMMITTER_EMAIL": "noreply@github.com",
            "GIT_AUTHOR_DATE": when,
            "GIT_COMMITTER_DATE": when,
        }
        args = ["commit-tree", tree]
        for parent in parents:
            args += ["-p", parent]
        sha = _git(self.git_dir, *args, stdin=message.encode(), env=env)
        return self.commit_json(sha)

    def commit_json(self, sha: str) -> Json:
        if _object_type(self.git_dir, sha) != "commit":
            raise GitDataError(404, "Not Found")
        fields = _git(
            self.git_dir, "show", "-s", "--format=%T%n%P%n%an%n%ae%n%aI%n%cn%n%ce%n%cI", sha
        ).split("\n")
        tree, parents, an, ae, ad, cn, ce, cd = fields
        message = _git(self.git_dir, "show", "-s", "--format=%B", sha)

        def zulu(stamp: str) -> str:
            return datetime.fromisoformat(stamp).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

        return {
            "sha": sha,
            "node_id": f"C_kwDO{sha[:16]}",
            "url": f"{self.api}/git/commits/{sha}",
            "html_url": f"{self.web}/commit/{sha}",
            "author": {"name": an, "email": ae, "date": zulu(ad)},
            "committer": {"name": cn, "email": ce, "date": zulu(cd)},
            "message": message,
            "tree": {"sha": tree, "url": f"{self.api}/git/trees/{tree}"},
            "parents": [
                {
                    "sha": p,
                    "url": f"{self.api}/git/commits/{p}",
                    "html_url": f"{self.web}/commit/{p}",
                }
                for p in parents.split()
            ],
            "verification": {
                "verified": False,
                "reason": "unsigned",
                "signature": None,
                "payload": None,
                "verified_at": None,
            },
        }

    def ref_json(self, ref: str) -> Json:
        sha = _git(self.git_dir, "rev-parse", "--verify", "-q", ref, ok=(0, 1))
        if not sha:
            raise GitDataError(404, "Not Found")
        return {
            "ref": ref,
            "node_id": f"REF_kwDO{sha[:12]}",
            "url": f"{self.api}/git/{ref}",
            "object": {"type": "commit", "sha": sha, "url": f"{self.api}/git/commits/{sha}"},
        }

    def create_ref(self, body: Json) -> Json:
        ref, sha = body.get("ref"), body.get("sha")
        if not isinstance(ref, str) or not ref.startswith("refs/") or ref.count("/") < 2:
            raise GitDataError(422, "Reference name must start with 'refs/' and have two slashes")
        if not isinstance(sha, str) or _object_type(self.git_dir, sha) != "commit":
            raise GitDataError(422, "Object does not exist")
        if _git(self.git_dir, "rev-parse", "--verify", "-q", ref, ok=(0, 1)):
            raise GitDataError(422, "Reference already exists")
        _git(self.git_dir, "update-ref", ref, sha, ZERO)
        return self.ref_json(ref)

    def update_ref(self, ref: str, body: Json) -> Json:
        """``PATCH .../git/refs/{ref}``: move an existing reference; a move that is not a fast
        forward needs ``force``, as GitHub requires."""
        sha = body.get("sha") if isinstance(body, dict) else None
        if not isinstance(sha, str) or _object_type(self.git_dir, sha) != "commit":
            raise GitDataError(422, "Object does not exist")
        old = _git(self.git_dir, "rev-parse", "--verify", "-q", ref, ok=(0, 1))
        if not old:
            raise GitDataError(422, "Reference does not exist")
        forward = (
            _git(self.git_dir, "rev-list", "--count", f"{sha}..{old}", ok=(0,)) == "0"
        )  # nothing of the old tip is left behind
        if not forward and not body.get("force"):
            raise GitDataError(422, "Update is not a fast forward")
        _git(self.git_dir, "update-ref", ref, sha, old)
        return self.ref_json(ref)

    def head_of(self, branch: str) -> str | None:
        return (
            _git(self.git_dir, "rev-parse", "--verify", "-q", f"refs/heads/{branch}", ok=(0, 1))
            or None
        )
