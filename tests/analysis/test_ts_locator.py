"""Which TypeScript judges: the repository's, a global one, or one prflow installs once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from prflow.analysis.breaking_js import find_js_breaking_changes
from prflow.analysis.ts_compiler import TYPESCRIPT_RANGE, CompilerLocator, CompilerUnavailable
from prflow.changes import ChangedFile, FileStatus
from tests.analysis.test_ts_compiler import release

BEFORE = {"index.d.ts": "export declare function send(to: string, body: string): void;\n"}
AFTER = {"index.d.ts": "export declare function send(to: string): void;\n"}


def _only_node_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH with ``node`` and without ``npm``."""
    node = shutil.which("node")
    assert node is not None, "node is needed"
    bin_dir = tmp_path / "bin-node-only"
    bin_dir.mkdir()
    (bin_dir / "node").symlink_to(node)
    monkeypatch.setenv("PATH", str(bin_dir))


def _install_into(folder: Path, typescript_package: Path) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.symlink_to(typescript_package)


def test_the_repositorys_own_compiler_answers_and_the_report_names_it(
    tmp_path: Path, typescript_package: Path
) -> None:
    repo = tmp_path / "repo"
    _install_into(repo / "node_modules" / "typescript", typescript_package)
    base, head = release(tmp_path / "base", BEFORE), release(tmp_path / "head", AFTER)
    changed = [ChangedFile(path="index.d.ts", status=FileStatus.modified)]

    locator = CompilerLocator(repo, tmp_path / "cache")
    diff = find_js_breaking_changes(changed, base, head, compiler=locator)

    assert diff.judge == "TypeScript 5.6.3 (the repository's node_modules)"
    assert [c.symbol for c in diff.changes] == ["send"]
    assert not (tmp_path / "cache").exists()


def test_a_global_typescript_answers_when_the_repository_has_none(
    tmp_path: Path, typescript_package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = tmp_path / "global"
    _install_into(prefix / "lib" / "node_modules" / "typescript", typescript_package)
    monkeypatch.setenv("npm_config_prefix", str(prefix))

    compiler = CompilerLocator(tmp_path / "repo", tmp_path / "cache").locate()

    assert compiler.describe() == "TypeScript 5.6.3 (global install)"


def test_prflows_own_install_is_used_and_without_npm_none_is_made(
    tmp_path: Path, typescript_package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _only_node_on_path(tmp_path, monkeypatch)
    cache = tmp_path / "cache"

    with pytest.raises(CompilerUnavailable, match="`npm` is not on the PATH"):
        CompilerLocator(tmp_path / "repo", cache).locate()

    _install_into(cache / "typescript" / "node_modules" / "typescript", typescript_package)
    compiler = CompilerLocator(tmp_path / "repo", cache).locate()
    assert compiler.describe().startswith(
        f"TypeScript 5.6.3 (installed by prflow ({TYPESCRIPT_RANGE})"
    )


def test_without_any_compiler_tree_sitter_answers_and_the_report_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _only_node_on_path(tmp_path, monkeypatch)
    base, head = release(tmp_path / "base", BEFORE), release(tmp_path / "head", AFTER)
    changed = [ChangedFile(path="index.d.ts", status=FileStatus.modified)]

    locator = CompilerLocator(None, tmp_path / "cache")
    diff = find_js_breaking_changes(changed, base, head, compiler=locator)

    assert [c.detail for c in diff.changes] == ["parameter `body` was removed"]
    assert diff.judge is not None and diff.judge.startswith("tree-sitter alone (no TypeScript")


def test_npm_installs_a_compiler_once_into_prflows_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real ``npm install`` from the registry (the pinned range), then reused as it is."""
    if shutil.which("npm") is None:
        pytest.fail("npm is needed for this test", pytrace=False)
    monkeypatch.setenv("npm_config_prefix", str(tmp_path / "empty-global"))
    cache = tmp_path / "cache"

    first = CompilerLocator(None, cache).locate()

    assert first.typescript_dir == cache / "typescript" / "node_modules" / "typescript"
    version = first.describe().split()[1]
    major, minor = (int(part) for part in version.split(".")[:2])
    assert (major, minor) >= (5, 4) and (major, minor) < (5, 7)
    assert sorted(p.name for p in cache.iterdir()) == ["typescript"]  # no scratch left behind
    _only_node_on_path(tmp_path, monkeypatch)
    assert CompilerLocator(None, cache).locate().typescript_dir == first.typescript_dir
