"""The variables repository code sees: built from an allow-list, never the worker's minus some.

The worker's environment holds API keys, tokens and database URLs; a deny-list
of name patterns misses the one nobody thought of. So the sandbox starts empty
and adds: a ``PATH`` of system directories (after the runner's own), its
private ``HOME`` and ``TMPDIR``, the locale and ``CI`` as the worker has them,
the variables the runner sets for its tool (``VIRTUAL_ENV``,
``PYTEST_ADDOPTS``, ``JEST_JUNIT_OUTPUT_FILE``, ...), and the names the
operator lists in ``[sandbox] pass_env``. Installers also get what they need to
reach a package index (proxy, CA bundle, index URL), listed in
:data:`INSTALL_PASS`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin")
FROM_WORKER = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "CI", "TERM")
INSTALL_PASS = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_EXTRA_INDEX_URL",
    "UV_INDEX",
    "UV_NATIVE_TLS",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "NPM_CONFIG_REGISTRY",
    "npm_config_registry",
)


def sandbox_env(
    *,
    worker: Mapping[str, str],
    runner: Mapping[str, str],
    path_prefix: Sequence[str],
    home: str,
    tmp: str,
    pass_env: Sequence[str] = (),
    installing: bool = False,
    host_path: bool = False,
) -> dict[str, str]:
    """The whole environment of a sandboxed command.

    ``host_path`` keeps the worker's ``PATH`` after the system directories: only
    for the weaker modes, where the host's tools are what the command sees.
    """
    path = [*path_prefix, *SYSTEM_PATH]
    if host_path:
        path += [p for p in worker.get("PATH", "").split(":") if p and p not in path]
    env = {"PATH": ":".join(path), "HOME": home, "TMPDIR": tmp, "LANG": "C.UTF-8"}
    names = [*FROM_WORKER, *pass_env, *(INSTALL_PASS if installing else ())]
    env |= {name: worker[name] for name in names if name in worker}
    env |= dict(runner)
    return env
