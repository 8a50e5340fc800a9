"""A repository whose tests each assert one isolation property, as an attacker would try it.

Built by the sandbox tests and by ``bench/sandbox``: the facts an attacker
would aim at (the worker's canary secret, its home with a GitHub CLI token and
an SSH key, prflow's data and cache directories, the user's ``.git``, a
sibling directory, a server on the worker's loopback) are written into the
probe, whose test ``test_<property>`` tries to reach each. A property holds
when its probe test passed and nothing it tried to write reached the host
(:func:`host_breaches`, checked by the worker after the run).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

from tests.support.sample_repos import commit_all, init_repo, write_files

PROPERTIES = {
    "secrets_in_proc": "the worker's secrets are not in any /proc/<pid>/environ or cmdline",
    "secrets_in_home": "the user's GitHub CLI token and SSH key are out of reach",
    "data_dir": "prflow's data directory (ledger, history) is out of reach",
    "cache_dir": "prflow's cache (workspaces, mirrors, other envs) is out of reach",
    "shared_environment": "the cached test environment and the interpreter are read-only",
    "outside_writes": "nothing outside the work tree, /tmp and $HOME is writable",
    "network": "no network: not the worker's loopback, not the internet, no DNS",
    "privilege": "not root, no capabilities, no new user namespaces, limits cannot be raised",
    "memory": "a 50 GB allocation fails in the test, not on the worker",
    "processes": "a process flood stops at the limit",
    "git_metadata": "the repository's .git (hooks, config) is out of reach",
}

PROBE = r'''
import json
import mmap
import os
import resource
import socket
import subprocess
import sys
import time

import pytest

FACTS = json.loads(__FACTS__)
CANARY = FACTS["canary"]
NAME = "prflow-probe-" + CANARY  # every file it may write outside: found and removed after


def cannot_write(path):
    try:
        with open(path, "w") as handle:
            handle.write(CANARY)
    except OSError:
        return True
    return False


def plant(path):
    """Try to leave a marker; the worker checks afterwards that it never reached the host."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write(CANARY)
    except OSError:
        pass


def test_control():
    with open("written-by-the-tests.txt", "w") as handle:
        handle.write("the work tree is writable")
    assert not os.path.exists(".git")


def test_secrets_in_proc():
    assert CANARY not in json.dumps(dict(os.environ))
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    leaks = []
    for pid in pids:
        for name in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{name}", "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            if CANARY.encode() in data:
                leaks.append(f"{pid}/{name}")
    assert not leaks
    assert len(pids) < 50, "its own PID namespace"


def test_secrets_in_home():
    home = os.environ["HOME"]
    assert home != FACTS["worker_home"]
    for base in (home, FACTS["worker_home"]):
        for rel in (".config/gh/hosts.yml", ".ssh/id_rsa"):
            try:
                with open(os.path.join(base, rel)) as handle:
                    data = handle.read()
            except OSError:
                continue
            assert CANARY not in data


def test_data_dir():
    assert not os.path.exists(FACTS["ledger"])
    assert not os.listdir(FACTS["data_dir"]) if os.path.isdir(FACTS["data_dir"]) else True
    plant(os.path.join(FACTS["data_dir"], "forged.db"))


def test_cache_dir():
    cache = FACTS["cache_dir"]
    assert not os.path.exists(os.path.join(cache, "workspaces"))
    envs = os.path.join(cache, "test-envs")
    assert os.listdir(envs) == [FACTS["env_name"]], "no other environment visible"
    plant(os.path.join(envs, "poison", ".complete"))
    plant(os.path.join(cache, "poison"))


def test_shared_environment():
    site = next(p for p in sys.path if p.endswith("site-packages"))
    assert sys.prefix != sys.base_prefix, "ran in the cached venv"
    assert cannot_write(os.path.join(site, NAME + ".pth"))
    assert cannot_write(os.path.join(sys.prefix, "bin", NAME))
    assert cannot_write(os.path.join(os.path.dirname(os.__file__), NAME + ".py"))
    assert cannot_write(os.path.join(sys.base_prefix, NAME))


def test_outside_writes():
    for directory in ("/", "/etc", "/usr", "/usr/local/bin"):
        assert cannot_write(os.path.join(directory, NAME)), directory
    for path in (FACTS["sibling"], FACTS["worker_home"]):
        plant(os.path.join(path, "poison"))
    for path in (".", "/tmp", os.environ["HOME"]):
        assert not cannot_write(os.path.join(path, "allowed")), path


def test_network():
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", FACTS["port"]), timeout=3).close()
    with pytest.raises(OSError):
        socket.create_connection(("1.1.1.1", 53), timeout=3).close()
    with pytest.raises(OSError):
        socket.getaddrinfo("pypi.org", 443)


def test_privilege():
    assert os.getuid() != 0 and os.geteuid() != 0
    with open("/proc/self/status") as handle:
        status = handle.read()
    assert "CapEff:\t0000000000000000" in status
    assert "CapPrm:\t0000000000000000" in status
    assert subprocess.run(["unshare", "--user", "true"], capture_output=True).returncode != 0
    _soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    with pytest.raises((ValueError, OSError)):
        resource.setrlimit(resource.RLIMIT_NPROC, (hard + 1, hard + 1))


def test_memory():
    with pytest.raises(MemoryError):
        bytearray(50 * 2**30)
    with pytest.raises(OSError):
        mmap.mmap(-1, 50 * 2**30)


def test_processes():
    children = []
    try:
        for _ in range(4 * FACTS["processes"]):
            pid = os.fork()
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            children.append(pid)
    except OSError:
        pass
    finally:
        for pid in children:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    assert len(children) < FACTS["processes"]


def test_git_metadata():
    git_dir = FACTS["repo_git"]
    assert not os.path.exists(os.path.join(git_dir, "config"))
    plant(os.path.join(git_dir, "hooks", "post-checkout"))
    plant(os.path.join(git_dir, "config"))
    done = subprocess.run(["git", "-C", FACTS["repo"], "status"], capture_output=True)
    assert done.returncode != 0
'''


@dataclass(frozen=True)
class ProbeFacts:
    canary: str
    worker_home: str
    data_dir: str
    ledger: str
    cache_dir: str
    env_name: str
    repo: str
    repo_git: str
    sibling: str
    port: int
    processes: int


def plant_secrets(home: Path, canary: str) -> None:
    """What a developer's home holds: a GitHub CLI token and an SSH key."""
    (home / ".config" / "gh").mkdir(parents=True, exist_ok=True)
    (home / ".config" / "gh" / "hosts.yml").write_text(f"github.com:\n  oauth_token: {canary}\n")
    (home / ".ssh").mkdir(parents=True, exist_ok=True)
    (home / ".ssh" / "id_rsa").write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{canary}\n")


def build_probe_repo(path: Path, facts: ProbeFacts) -> str:
    """The probe repository at ``path``; returns its commit."""
    init_repo(path)
    source = PROBE.replace("__FACTS__", repr(json.dumps(asdict(facts))))
    write_files(path, {"requirements.txt": "pytest\n", "tests/test_isolation.py": source})
    return commit_all(path, "isolation probe")


def stage_probe(
    root: Path, *, data_dir: Path, cache_dir: Path, ledger: Path, port: int, processes: int
) -> ProbeFacts:
    """Everything an attacker aims at, planted under ``root``, and the probe repository.

    The caller points ``HOME`` at ``facts.worker_home`` and puts ``facts.canary`` in the
    worker's secret variables."""
    canary = f"canary-{uuid.uuid4().hex}"
    home = root / "worker-home"
    plant_secrets(home, canary)
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "history.db").write_text("the worker's history")
    (root / "sibling").mkdir()
    repo = root / "probe"
    facts = ProbeFacts(
        canary=canary,
        worker_home=str(home),
        data_dir=str(data_dir),
        ledger=str(ledger),
        cache_dir=str(cache_dir),
        env_name=env_name(),
        repo=str(repo),
        repo_git=str(repo / ".git"),
        sibling=str(root / "sibling"),
        port=port,
        processes=processes,
    )
    build_probe_repo(repo, facts)
    return facts


def env_name() -> str:
    """The cache name of the probe's environment (its spec is ``requirements.txt``: pytest)."""
    from prflow.test_runs.environment import detect

    spec = detect(lambda name: b"pytest\n" if name == "requirements.txt" else None, sys.executable)
    assert spec is not None
    return spec.hash


def _digest(path: Path) -> str:
    if not path.exists():
        return ""
    hasher = hashlib.sha256()
    for item in sorted(path.rglob("*")):
        hasher.update(str(item.relative_to(path)).encode())
        if item.is_file() and not item.is_symlink():
            hasher.update(item.read_bytes())
    return hasher.hexdigest()


def _env(facts: ProbeFacts) -> Path:
    return Path(facts.cache_dir) / "test-envs" / facts.env_name


def snapshot(facts: ProbeFacts) -> dict[str, str]:
    """Digests of what the probe must not change on the host (take it once the env is built)."""
    return {"git": _digest(Path(facts.repo_git)), "env": _digest(_env(facts))}


def _outside_files(facts: ProbeFacts) -> dict[str, list[Path]]:
    """Where a probe that broke out would have written (system and interpreter files)."""
    name = f"prflow-probe-{facts.canary}"
    stdlib = Path(os.__file__).parent
    return {
        "outside_writes": [Path(d, name) for d in ("/", "/etc", "/usr", "/usr/local/bin")],
        "shared_environment": [stdlib / f"{name}.py", Path(sys.base_prefix, name)],
    }


def host_breaches(facts: ProbeFacts, before: dict[str, str]) -> dict[str, list[str]]:
    """Per property, what the probe changed on the host (empty lists: nothing). Files it
    wrote outside its reach are removed once counted (a weaker mode lets it write them)."""
    found: dict[str, list[str]] = {name: [] for name in PROPERTIES}
    for prop, paths in _outside_files(facts).items():
        for path in paths:
            if path.exists():
                found[prop].append(str(path))
                path.unlink()

    def marked(prop: str, path: Path) -> None:
        if path.exists() and facts.canary in path.read_text(errors="replace"):
            found[prop].append(str(path))

    marked("data_dir", Path(facts.data_dir) / "forged.db")
    marked("cache_dir", Path(facts.cache_dir) / "test-envs" / "poison" / ".complete")
    marked("cache_dir", Path(facts.cache_dir) / "poison")
    marked("outside_writes", Path(facts.sibling) / "poison")
    marked("outside_writes", Path(facts.worker_home) / "poison")
    marked("git_metadata", Path(facts.repo_git) / "hooks" / "post-checkout")
    if snapshot(facts)["git"] != before["git"]:
        found["git_metadata"].append(facts.repo_git)
    if _digest(_env(facts)) != before["env"]:
        found["shared_environment"].append(str(_env(facts)))
    return found
