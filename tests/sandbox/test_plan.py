"""The sandbox's pure planning: which sandbox, its command line, environment and output bound."""

from __future__ import annotations

import pytest

from prflow.errors import UserError
from prflow.sandbox.choice import NO_BWRAP, NO_SANDBOX, SandboxChoice, Tools, choose
from prflow.sandbox.environment import sandbox_env
from prflow.sandbox.layout import Bind, Host, bwrap_argv
from prflow.sandbox.models import Isolation, ResourceLimits, SandboxKind, SandboxMode
from prflow.sandbox.output import BoundedOutput

HOST = Host(
    bwrap="/usr/bin/bwrap",
    prlimit="/usr/bin/prlimit",
    setpriv="/usr/bin/setpriv",
    root=True,
    host_uid=65534,
    system={"/bin": "usr/bin", "/lib": "usr/lib"},
    etc=("ld.so.cache", "ssl/certs", "resolv.conf", "hosts"),
    open_files_hard=1024,
)
FULL = Tools(host=HOST, bwrap="/usr/bin/bwrap", unshare="/usr/bin/unshare", ip=None, root=True)
NOTHING = Tools(host=None, bwrap=None, unshare=None, ip=None, root=True)


def test_the_full_sandbox_is_refused_in_one_line_unless_a_weaker_one_was_asked_for() -> None:
    assert choose(SandboxMode.bwrap, FULL, allow_unsandboxed=False).full
    net_only = Tools(host=None, bwrap="/usr/bin/bwrap", unshare=None, ip=None, root=True)
    with pytest.raises(UserError) as refused:
        choose(SandboxMode.bwrap, net_only, allow_unsandboxed=False)
    assert str(refused.value) == NO_BWRAP and "\n" not in NO_BWRAP
    assert "apt-get install bubblewrap" in NO_BWRAP
    denied = Tools(
        host=None,
        bwrap=None,
        unshare=None,
        ip=None,
        root=True,
        problem="bwrap: No permissions to create new namespace\n",
    )
    with pytest.raises(UserError) as said:
        choose(SandboxMode.bwrap, denied, allow_unsandboxed=False)
    assert str(said.value) == f"{NO_BWRAP} (bwrap: No permissions to create new namespace)"
    weaker = choose(SandboxMode.network_only, net_only, allow_unsandboxed=False)
    assert (weaker.kind, weaker.full) == (SandboxKind.bwrap, False)
    assert choose(SandboxMode.bwrap, net_only, allow_unsandboxed=True).kind == SandboxKind.bwrap
    with pytest.raises(UserError, match="no network sandbox"):
        choose(SandboxMode.network_only, NOTHING, allow_unsandboxed=False)
    assert NO_SANDBOX.count("\n") == 0
    allowed = choose(SandboxMode.bwrap, NOTHING, allow_unsandboxed=True)
    assert allowed.kind == SandboxKind.none
    assert choose(SandboxMode.none, FULL, allow_unsandboxed=False).kind == SandboxKind.none


def test_the_report_says_what_held() -> None:
    limits = ResourceLimits()
    full = SandboxChoice(SandboxMode.bwrap, SandboxKind.bwrap, full=True)
    report = full.report(FULL, limits, network=False)
    assert Isolation.host_uid in report.isolated and report.process_limit
    assert report.summary().startswith("bwrap: network, pid, ipc, uts, filesystem")
    weak = SandboxChoice(SandboxMode.network_only, SandboxKind.unshare).report(
        NOTHING, limits, network=False
    )
    assert weak.isolated == [Isolation.network, Isolation.environment]
    assert weak.limits is None and weak.summary() == "unshare (network only): network, environment"


def test_a_root_worker_drops_to_the_host_uid_between_two_layers() -> None:
    argv = bwrap_argv(
        HOST,
        ["python", "-m", "pytest"],
        cwd="/tmp/run/tree",
        binds=[Bind("/tmp/run/tree", "/tmp/run/tree", writable=True), Bind("/opt/py", "/opt/py")],
        etc_dir="/tmp/etc",
        limits=ResourceLimits(open_files=4096),
        network=False,
    )
    drop = argv.index("/usr/bin/setpriv")
    outer, inner = argv[:drop], argv[drop:]
    assert argv[drop + 1 : drop + 3] == ["--reuid=65534", "--regid=65534"]
    assert "--unshare-net" in outer and "--unshare-pid" in outer and "--unshare-user" not in outer
    assert {"--unshare-user", "--disable-userns", "--new-session", "--die-with-parent"} <= set(
        inner
    )
    assert outer[outer.index("--ro-bind") :][:3] == ["--ro-bind", "/usr", "/usr"]
    assert "/etc/resolv.conf" not in outer, "the tests get no resolver"
    # The inner layer's private /tmp comes first, then the work tree over it.
    assert inner.index("/tmp/run/tree") > inner.index("/tmp")
    assert "--nofile=1024:1024" in inner, "never above the worker's own hard limit"
    assert inner[-4:] == ["--", "python", "-m", "pytest"]
    installing = bwrap_argv(
        HOST, ["npm", "ci"], cwd="/", binds=(), etc_dir="/e", limits=ResourceLimits(), network=True
    )
    assert "--unshare-net" not in installing and "/etc/resolv.conf" in installing


def test_the_environment_is_an_allow_list() -> None:
    worker = {
        "PATH": "/root/.pyenv/shims:/usr/bin",
        "LANG": "en_US.UTF-8",
        "CI": "true",
        "GITHUB_TOKEN": "ghp_x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "SHOP_MODE": "kept",
        "HTTPS_PROXY": "http://proxy:3128",
    }
    env = sandbox_env(
        worker=worker,
        runner={"VIRTUAL_ENV": "/env", "PYTEST_ADDOPTS": "--junitxml=/out/r.xml"},
        path_prefix=["/env/bin"],
        home="/home/sandbox",
        tmp="/tmp",
        pass_env=["SHOP_MODE"],
    )
    assert env == {
        "PATH": "/env/bin:/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
        "HOME": "/home/sandbox",
        "TMPDIR": "/tmp",
        "LANG": "en_US.UTF-8",
        "CI": "true",
        "SHOP_MODE": "kept",
        "VIRTUAL_ENV": "/env",
        "PYTEST_ADDOPTS": "--junitxml=/out/r.xml",
    }
    installer = sandbox_env(
        worker=worker, runner={}, path_prefix=[], home="/h", tmp="/t", installing=True
    )
    assert installer["HTTPS_PROXY"] == "http://proxy:3128" and "GITHUB_TOKEN" not in installer


def test_output_keeps_its_start_and_end_within_the_bound() -> None:
    out = BoundedOutput(100)
    out.write(b"START" + b"a" * 20)
    for _ in range(1000):
        out.write(b"b" * 97)
    out.write(b"x" * 70 + b"1 failed, 3 passed")
    text = out.text()
    assert text.startswith("START") and text.endswith("1 failed, 3 passed")
    assert "bytes of output left out here" in text
    assert out.total == 25 + 97_000 + 88
    assert len(text) < 100 + 80
    small = BoundedOutput(100)
    small.write(b"all of it")
    assert small.text() == "all of it"
