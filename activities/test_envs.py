"""Test environments: built once per dependency spec, in the sandbox, then read-only.

An environment (a ``uv`` venv for Python, ``node_modules`` from ``npm ci``
for JS) lives under ``cache_dir()/test-envs/<spec hash>`` and is shared by
every later run with the same spec, so whatever builds it must not be able to
touch anything else: the installer runs in the sandbox of
:mod:`activities.sandbox` with network (the only step that has it), no
secrets, the repository read-only, and writes only a staging directory, bound
at the environment's final path so the scripts it writes name that path. Its
download cache is private to the build and deleted after it. Once complete the
staging directory is handed back to the worker's uid and renamed into place;
test runs mount it read-only.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

from activities.sandbox import SandboxCommand, give_to, node_options, run_sandboxed
from prflow.errors import UserError
from prflow.file_lock import exclusive_lock
from prflow.sandbox.choice import SandboxChoice, Tools
from prflow.sandbox.layout import SANDBOX_HOME, Bind
from prflow.state_dirs import cache_dir
from prflow.test_runs.environment import EnvSpec, ProjectKind
from prflow.tools.paths import resolve_inside
from prflow.tools.reader import ToolError

UV_IN_SANDBOX = "/opt/prflow/bin/uv"
INSTALL_CACHE = f"{SANDBOX_HOME}/.cache/prflow-install"


def _uv() -> str:
    """The ``uv`` binary the PyPI package installs beside this interpreter (else on PATH)."""
    beside = Path(sys.executable).parent / "uv"
    if beside.is_file():
        return str(beside)
    found = shutil.which("uv")
    if found is None:
        raise RuntimeError("uv is not installed: reinstall prflow (it depends on the uv package)")
    return found


def base_python() -> str:
    """The interpreter the worker's own venv was made from (what test venvs are made from)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    candidate = Path(sys.base_prefix) / "bin" / version
    return str(candidate) if candidate.is_file() else sys.executable


def interpreter_binds() -> list[Bind]:
    """Exactly the interpreter's installation, read-only (never the home that holds it)."""
    prefix = str(Path(sys.base_prefix).resolve())
    return [Bind(prefix, prefix)]


def _locked(path: Path) -> contextlib.AbstractContextManager[None]:
    """Serialise building one test environment across worker processes."""
    return exclusive_lock(path.with_name(path.name + ".lock"))


class _Installer:
    """Runs the install steps of one environment in the sandbox."""

    def __init__(
        self, choice: SandboxChoice, tools: Tools, staging: Path, final: Path, timeout: float
    ) -> None:
        self.choice, self.tools, self.timeout = choice, tools, timeout
        self.full = choice.full and tools.host is not None
        self.cache = final.with_name(f".cache-{uuid.uuid4().hex}")
        self.cache.mkdir(parents=True)
        # Where the environment and the download cache are as the installer sees them.
        self.at = str(final) if self.full else str(staging)
        self.cache_at = INSTALL_CACHE if self.full else str(self.cache)
        self.binds = [Bind(str(staging), str(final), writable=True)]
        self.binds.append(Bind(str(self.cache), INSTALL_CACHE, writable=True))

    def run(
        self, argv: Sequence[str], cwd: str, extra: Sequence[Bind], env: dict[str, str]
    ) -> None:
        done = run_sandboxed(
            SandboxCommand(
                argv=argv,
                cwd=cwd,
                choice=self.choice,
                timeout_seconds=self.timeout,
                binds=[*self.binds, *extra],
                env=env,
                network=True,
                what="the installers",
            ),
            self.tools,
        )
        if done.exit_code != 0:
            tail = done.output.strip().splitlines()[-5:]
            raise UserError(
                f"installing the test dependencies failed ({' '.join(argv[:3])} ...): "
                + " | ".join(tail)
            )

    def close(self) -> None:
        shutil.rmtree(self.cache, ignore_errors=True)


def _install_python(spec: EnvSpec, tree: Path, installer: _Installer) -> None:
    uv = _uv()
    uv_at = UV_IN_SANDBOX if installer.full else uv
    extra = [Bind(uv, UV_IN_SANDBOX), Bind(str(tree), str(tree)), *interpreter_binds()]
    env = {
        "UV_CACHE_DIR": installer.cache_at,
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_LINK_MODE": "copy",
        "UV_NO_PROGRESS": "1",
    }
    at = installer.at
    installer.run([uv_at, "venv", "--quiet", "--python", base_python(), at], str(tree), extra, env)
    args = [*spec.requirements]
    copies = installer.cache / "requirements"  # the filtered copies, never the tree's files
    for path, text in spec.requirement_texts.items():
        (copies / path).parent.mkdir(parents=True, exist_ok=True)
        (copies / path).write_text(text, encoding="utf-8")
    for name in spec.requirement_files:
        args += ["-r", f"{installer.cache_at}/requirements/{name}"]
    if args:
        python = f"{at}/bin/python"
        installer.run(
            [uv_at, "pip", "install", "--quiet", "--python", python, *args], str(tree), extra, env
        )


def copy_npm_manifests(tree: Path, staging: Path) -> None:
    """What ``npm ci`` reads, copied from the tree; a link leading out of it (to the worker's
    own ``~/.npmrc`` and its tokens, say) is not followed: the worker copies on the host."""
    for name in ("package.json", "package-lock.json", ".npmrc"):
        try:
            source = resolve_inside(tree, name)
        except ToolError:
            continue
        if source.is_file():
            shutil.copy2(source, staging / name)


def _install_js(tree: Path, staging: Path, installer: _Installer) -> None:
    copy_npm_manifests(tree, staging)
    if not (staging / "package-lock.json").is_file():
        raise UserError("npm ci needs package-lock.json; commit the lockfile first")
    env = {
        "npm_config_cache": installer.cache_at,
        "npm_config_update_notifier": "false",
        **node_options(),
    }
    installer.run(["npm", "ci", "--no-audit", "--no-fund"], installer.at, [], env)


def ensure_env(
    spec: EnvSpec, tree: Path, timeout: float, choice: SandboxChoice, tools: Tools
) -> Path:
    """The cached environment for ``spec``, built once in the sandbox (the only step with
    network); every later run mounts it read-only. The path is resolved: an environment
    records where it was built, so every run must reach it by the same path."""
    final = (cache_dir() / "test-envs").resolve() / spec.hash
    if (final / ".complete").is_file():
        return final
    with _locked(final):
        if (final / ".complete").is_file():
            return final
        staging = final.with_name(f".tmp-{spec.hash}-{uuid.uuid4().hex}")
        staging.mkdir(parents=True)
        installer = _Installer(choice, tools, staging, final, timeout)
        try:
            if spec.kind == ProjectKind.python:
                _install_python(spec, tree, installer)
            else:
                _install_js(tree, staging, installer)
            give_to(staging, os.geteuid())
            (staging / ".complete").write_text(spec.hash)
            shutil.rmtree(final, ignore_errors=True)
            staging.rename(final)
        finally:
            installer.close()
            shutil.rmtree(staging, ignore_errors=True)
    return final
