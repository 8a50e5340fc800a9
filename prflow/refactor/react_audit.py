"""Anti-patterns of the active React rules (categories 1-3) that an edit introduced.

Line-level checks over JS/TS source, counted before and after the edit so a
task is blamed only for what it added:

- ``async-parallel`` / ``async-defer-await`` (waterfalls): two awaits in a row
  where the second does not use the first's result.
- ``bundle-barrel-imports`` (bundle size): a named import from a barrel, a
  repository ``index`` file made of re-exports or a package known to be one.
- ``bundle-defer-third-party``: analytics or logging SDKs imported statically
  in a component file.
- ``server-auth-actions`` (server): an exported server action (``"use server"``)
  that never checks who is calling.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Sequence

from prflow.js_files import JS_TS_SUFFIXES, is_js_file
from prflow.refactor.audit_finding import AuditFinding
from prflow.source_tree import SourceTree

BARREL_PACKAGES = frozenset(
    {
        "lucide-react",
        "@mui/material",
        "@mui/icons-material",
        "react-icons",
        "lodash",
        "@radix-ui/react-icons",
        "date-fns",
        "rxjs",
    }
)
THIRD_PARTY = (
    "@vercel/analytics",
    "react-ga",
    "react-ga4",
    "@segment/",
    "mixpanel",
    "posthog-js",
    "@datadog/browser",
    "logrocket",
    "@amplitude/",
)
AUTH_CALLS = re.compile(
    r"\b(auth|getSession|getServerSession|currentUser|verifySession|"
    r"requireUser|requireAuth|getUser)\s*\("
)
AWAIT_DECL = re.compile(r"^\s*(?:const|let|var)\s+(\w+|\{[^}]*\}|\[[^\]]*\])\s*=\s*await\s+(.+)$")
IMPORT_FROM = re.compile(r"""^\s*import\s+(.+?)\s+from\s+['"]([^'"]+)['"]""")
SERVER_EXPORT = re.compile(r"^\s*export\s+(?:default\s+)?async\s+function\s+(\w+)")


def _names(binding: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_$][\w$]*", binding))


def waterfalls(text: str) -> Iterator[tuple[int, str]]:
    lines = text.splitlines()
    for n in range(len(lines) - 1):
        first, second = AWAIT_DECL.match(lines[n]), AWAIT_DECL.match(lines[n + 1])
        if first and second and not _names(first.group(1)) & _names(second.group(2)):
            yield n + 2, f"{second.group(1)} awaits after {first.group(1)} without needing it"


def _is_barrel(tree: SourceTree, importer: str, spec: str) -> bool:
    if not spec.startswith("."):
        parts = spec.split("/")
        root = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
        return root in BARREL_PACKAGES and spec == root
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    for suffix in JS_TS_SUFFIXES:
        text = tree.read_text(posixpath.join(base, "index" + suffix))
        if text is not None:
            code = [
                ln for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("//")
            ]
            return bool(code) and all(
                ln.lstrip().startswith("export") and " from " in ln for ln in code
            )
    return False


def barrels(path: str, text: str, tree: SourceTree) -> Iterator[tuple[int, str]]:
    for n, line in enumerate(text.splitlines(), start=1):
        match = IMPORT_FROM.match(line)
        if match and "{" in match.group(1) and _is_barrel(tree, path, match.group(2)):
            yield n, f"named import from the barrel {match.group(2)!r}; import the module directly"


def third_party(text: str) -> Iterator[tuple[int, str]]:
    for n, line in enumerate(text.splitlines(), start=1):
        match = IMPORT_FROM.match(line)
        if match and match.group(2).startswith(THIRD_PARTY):
            yield n, f"{match.group(2)} is loaded with the page; defer it until after hydration"


def unguarded_actions(text: str) -> Iterator[tuple[int, str]]:
    head = text.lstrip()[:40]
    if not (head.startswith(('"use server"', "'use server'"))):
        return
    lines = text.splitlines()
    for n, line in enumerate(lines):
        match = SERVER_EXPORT.match(line)
        if not match:
            continue
        body = "\n".join(lines[n : n + 40])
        end = re.search(r"^\}", body, re.MULTILINE)
        body = body[: end.start()] if end else body
        if not AUTH_CALLS.search(body):
            yield n + 1, f"server action {match.group(1)} does not check authentication"


CHECKS: dict[str, str] = {
    "async-parallel": "waterfall",
    "async-defer-await": "waterfall",
    "bundle-barrel-imports": "barrel",
    "bundle-defer-third-party": "third_party",
    "server-auth-actions": "auth",
}


def _hits(kind: str, path: str, text: str, tree: SourceTree) -> list[tuple[int, str]]:
    if kind == "waterfall":
        return list(waterfalls(text))
    if kind == "barrel":
        return list(barrels(path, text, tree))
    if kind == "third_party":
        return list(third_party(text))
    return list(unguarded_actions(text))


def react_findings(
    path: str,
    before: str | None,
    after: str | None,
    tree: SourceTree,
    active_rules: Sequence[str],
) -> list[AuditFinding]:
    """Violations of ``active_rules`` in ``path`` that ``after`` has and ``before`` had not."""
    if after is None or not is_js_file(path):
        return []
    out: list[AuditFinding] = []
    done: set[str] = set()
    for rule in active_rules:
        kind = CHECKS.get(rule)
        if kind is None or kind in done:
            continue
        done.add(kind)
        old = {msg for _, msg in _hits(kind, path, before or "", tree)}
        for line, message in _hits(kind, path, after, tree):
            if message not in old:
                out.append(
                    AuditFinding(check=f"react:{rule}", path=path, line=line, message=message)
                )
    return out
