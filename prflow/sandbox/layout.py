"""The bubblewrap command line: what the sandbox sees, who it runs as, what it may use.

The view is built from nothing: the system read-only (``/usr`` and the
``/bin``, ``/lib*``, ``/sbin`` links or directories as the host has them), a
minimal ``/etc`` (generated ``passwd``/``group``/``hosts`` plus the few host
files programs read: the loader cache, time zone, alternatives, CA
certificates; ``resolv.conf`` and the host's ``hosts`` only for installers),
the caller's binds (the work tree writable, the test environment and the
interpreter read-only), a private ``/tmp``, ``$HOME`` and ``/dev/shm`` (sized
tmpfs), ``/proc`` of the sandbox's own PID namespace. New PID, IPC, UTS,
network (unless installing) and user namespaces; uid 1000 inside, no
capabilities, no further user namespaces, a new session, killed with its
parent. ``prlimit`` then sets the limits the code cannot raise.

A root worker must not run the code as root on the host (RLIMIT_NPROC does
not hold for uid 0, and root-owned files stay root's), but bubblewrap resolves
every bind source as the uid it runs as, which cannot read under ``/root``
(where a pyenv interpreter or the cache may live). So a root worker runs two
layers: an outer bubblewrap as root that only builds the view and the
namespaces, then ``setpriv`` to the unprivileged host uid and an inner
bubblewrap that maps it to uid 1000 in a new user namespace, mounts the
private tmpfs and re-binds the caller's binds over them. A worker that is
not root runs one layer as itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from prflow.sandbox.models import MIB, ResourceLimits

SANDBOX_UID = 1000
SANDBOX_HOME = "/home/sandbox"
SANDBOX_TMP = "/tmp"
HOSTNAME = "sandbox"
SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "alternatives",
    "nsswitch.conf",
    "host.conf",
    "gai.conf",
    "protocols",
    "services",
    "mime.types",
    "os-release",
    "ssl/certs",
    "ca-certificates",
)
ETC_NETWORK_FILES = ("resolv.conf", "hosts")
GENERATED_ETC = ("passwd", "group", "hosts", "hostname")


@dataclass(frozen=True)
class Bind:
    """``source`` on the host at ``dest`` in the sandbox."""

    source: str
    dest: str
    writable: bool = False


@dataclass(frozen=True)
class Host:
    """What the worker's machine offers, gathered once (see ``activities.sandbox``)."""

    bwrap: str
    prlimit: str | None
    setpriv: str | None
    root: bool
    host_uid: int | None = None
    system: dict[str, str | None] = field(default_factory=dict)
    """For each of :data:`SYSTEM_DIRS` that exists: its symlink target, or None for a dir."""
    etc: tuple[str, ...] = ()
    """The entries of :data:`ETC_FILES` and :data:`ETC_NETWORK_FILES` that exist on the host."""
    open_files_hard: int | None = None

    @property
    def layered(self) -> bool:
        """A root worker drops to ``host_uid`` between an outer and an inner bubblewrap."""
        return self.root and self.host_uid is not None and self.setpriv is not None


def etc_contents() -> dict[str, str]:
    """The generated ``/etc`` files: the sandbox user, and a hosts file with only loopback."""
    uid = SANDBOX_UID
    return {
        "passwd": (
            "root:x:0:0:root:/root:/usr/sbin/nologin\n"
            f"sandbox:x:{uid}:{uid}:sandbox:{SANDBOX_HOME}:/bin/sh\n"
            "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
        ),
        "group": f"root:x:0:\nsandbox:x:{uid}:\nnogroup:x:65534:\n",
        "hosts": f"127.0.0.1 localhost {HOSTNAME}\n::1 localhost ip6-localhost ip6-loopback\n",
        "hostname": f"{HOSTNAME}\n",
    }


def prlimit_argv(prlimit: str, limits: ResourceLimits, open_files_hard: int | None) -> list[str]:
    """``prlimit`` setting soft = hard for each limit, so the code cannot raise it again."""
    files = limits.open_files
    if open_files_hard is not None:
        files = min(files, open_files_hard)
    memory = limits.memory_mb * MIB
    size = limits.file_size_mb * MIB
    return [
        prlimit,
        f"--as={memory}:{memory}",
        f"--nproc={limits.processes}:{limits.processes}",
        f"--fsize={size}:{size}",
        f"--nofile={files}:{files}",
        "--core=0:0",
        "--",
    ]


def _ancestors(path: str) -> list[str]:
    parents = list(PurePosixPath(path).parents)[::-1]
    return [str(p) for p in parents if str(p) != "/"]


def _view(host: Host, etc_dir: str, network: bool) -> list[str]:
    """The read-only system, a minimal ``/etc``, ``/proc`` and ``/dev``."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in SYSTEM_DIRS:
        if name not in host.system:
            continue
        target = host.system[name]
        args += ["--symlink", target, name] if target is not None else ["--ro-bind", name, name]
    made = {"/etc"}
    args += ["--perms", "0755", "--dir", "/etc"]
    for name in GENERATED_ETC:
        if not (network and name in ETC_NETWORK_FILES):
            args += ["--ro-bind", f"{etc_dir}/{name}", f"/etc/{name}"]
    wanted = [*ETC_FILES, *(ETC_NETWORK_FILES if network else ())]
    for name in (n for n in wanted if n in host.etc):
        for parent in _ancestors(f"/etc/{name}"):
            if parent not in made:
                args += ["--perms", "0755", "--dir", parent]
                made.add(parent)
        args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    args += ["--perms", "0755", "--dir", "/home", "--perms", "0755", "--dir", SANDBOX_HOME]
    return [*args, "--proc", "/proc", "--dev", "/dev"]


def _binds(binds: Sequence[Bind], *, again: bool = False) -> list[str]:
    """The caller's binds, their missing parents made traversable (0755) first; ``again``:
    bind each from where the outer layer already put it (its ``dest``)."""
    args: list[str] = []
    made = {"/tmp", "/etc", "/usr", SANDBOX_HOME}
    for bind in binds:
        if PurePosixPath(bind.dest).is_relative_to("/usr"):
            continue  # already there, read-only
        for parent in _ancestors(bind.dest):
            if parent not in made:
                args += ["--perms", "0755", "--dir", parent]
                made.add(parent)
        source = bind.dest if again else bind.source
        args += ["--bind" if bind.writable else "--ro-bind", source, bind.dest]
        made.add(bind.dest)
    return args


def _private(limits: ResourceLimits) -> list[str]:
    size = str(limits.tmp_mb * MIB)
    return [
        *("--size", size, "--perms", "1777", "--tmpfs", SANDBOX_TMP),
        *("--size", size, "--perms", "1777", "--tmpfs", "/dev/shm"),
        *("--size", size, "--perms", "0700", "--tmpfs", SANDBOX_HOME),
    ]


def _identity() -> list[str]:
    uid = str(SANDBOX_UID)
    return [
        "--unshare-user",
        "--disable-userns",
        "--uid",
        uid,
        "--gid",
        uid,
        "--cap-drop",
        "ALL",
        "--new-session",
        "--die-with-parent",
    ]


def _namespaces(network: bool) -> list[str]:
    args = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    args += ["--hostname", HOSTNAME]
    return args if network else [*args, "--unshare-net"]


def bwrap_argv(
    host: Host,
    command: Sequence[str],
    *,
    cwd: str,
    binds: Sequence[Bind],
    etc_dir: str,
    limits: ResourceLimits,
    network: bool,
) -> list[str]:
    """The full sandbox around ``command`` (run from ``cwd``, which a bind provides)."""
    limiter = prlimit_argv(host.prlimit, limits, host.open_files_hard) if host.prlimit else []
    tail = ["--chdir", cwd, "--", *limiter, *command]
    view = _view(host, etc_dir, network)
    if not host.layered:
        return [
            host.bwrap,
            *_namespaces(network),
            *_identity(),
            *view,
            *_private(limits),
            *_binds(binds),
            *tail,
        ]
    assert host.setpriv is not None and host.host_uid is not None
    uid = str(host.host_uid)
    drop = [host.setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    outer = [host.bwrap, "--die-with-parent", *_namespaces(network), *view]
    # The outer /tmp is only the inner bubblewrap's scratch; the inner mounts its own.
    outer += ["--perms", "0755", "--tmpfs", "/tmp", *_binds(binds), "--"]
    # The outer /dev nodes are bound nodev; the inner makes its own.
    inner = [host.bwrap, *_identity(), "--bind", "/", "/", "--dev", "/dev", *_private(limits)]
    inner += _binds(binds, again=True)
    return [*outer, *drop, *inner, *tail]


def network_only_argv(bwrap: str, command: Sequence[str], limiter: Sequence[str]) -> list[str]:
    """Today's weaker mode: the host's filesystem, a new network namespace only."""
    return [
        bwrap,
        "--unshare-net",
        "--die-with-parent",
        *("--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc", "--"),
        *limiter,
        *command,
    ]


def unshare_argv(
    unshare: str, ip: str | None, root: bool, command: Sequence[str], limiter: Sequence[str]
) -> list[str]:
    """util-linux's network namespace (loopback brought up first when ``ip`` exists)."""
    argv = [unshare, "--net"] if root else [unshare, "--map-root-user", "--net"]
    if ip:
        return [
            *argv,
            "--",
            "sh",
            "-c",
            f'{ip} link set lo up && exec "$@"',
            "sh",
            *limiter,
            *command,
        ]
    return [*argv, "--", *limiter, *command]
