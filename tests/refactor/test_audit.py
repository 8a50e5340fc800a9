"""The auditor reports what an edit introduced: orphaned imports, signature misfits, unawaited
coroutines, new import cycles, cross-layer imports and React anti-patterns (categories 1-3)."""

from __future__ import annotations

import pytest

from prflow.analysis.categories import is_test_file
from prflow.refactor.audit import audit, judge
from prflow.source_tree import MemoryTree

BASE = {
    "storage/__init__.py": "",
    "storage/files.py": (
        "def read_text(path):\n    with open(path) as fh:\n        return fh.read()\n\n\n"
        "def write_text(path, text):\n    with open(path, 'w') as fh:\n        fh.write(text)\n"
    ),
    "app/__init__.py": "",
    "app/service.py": (
        "from storage.files import read_text, write_text\n\n\n"
        "def copy(src, dst):\n    write_text(dst, read_text(src))\n"
    ),
    "tests/test_files.py": "from storage.files import read_text\n",
}


def run(changed: list[str], tree: MemoryTree, **kw: object) -> list[str]:
    report = audit(changed, MemoryTree(BASE), tree, **kw)  # type: ignore[arg-type]
    return [f"{f.check} {f.text()}" for f in report.errors]


def test_a_clean_change_has_no_findings() -> None:
    tree = MemoryTree({**BASE, "storage/files.py": BASE["storage/files.py"] + "\n# note\n"})
    assert run(["storage/files.py"], tree) == []


def test_a_removed_function_orphans_its_importers() -> None:
    text = BASE["storage/files.py"].replace("def read_text", "def load_text")
    tree = MemoryTree({**BASE, "storage/files.py": text})
    found = run(["storage/files.py"], tree)
    assert (
        "orphaned_import app/service.py: imports read_text from storage/files.py, which no "
        "longer defines it" in found
    )
    assert any(f.startswith("orphaned_import tests/test_files.py") for f in found)


def test_a_changed_signature_flags_old_callers() -> None:
    text = BASE["storage/files.py"].replace(
        "def write_text(path, text)", "def write_text(path, text, encoding)"
    )
    tree = MemoryTree({**BASE, "storage/files.py": text})
    assert run(["storage/files.py"], tree) == [
        "signature app/service.py: write_text() call is missing encoding"
    ]


def test_sync_to_async_without_updating_callers_is_caught() -> None:
    text = BASE["storage/files.py"].replace("def read_text", "async def read_text")
    tree = MemoryTree({**BASE, "storage/files.py": text})
    found = run(["storage/files.py"], tree)
    assert found == [
        "unawaited app/service.py: read_text() is async now; a caller uses it without await"
    ]
    fixed = MemoryTree(
        {
            **BASE,
            "storage/files.py": text,
            "app/service.py": (
                "from storage.files import read_text, write_text\n\n\n"
                "async def copy(src, dst):\n    write_text(dst, await read_text(src))\n"
            ),
        }
    )
    assert run(["storage/files.py", "app/service.py"], fixed) == []


def test_a_new_import_cycle_and_a_test_import_are_reported() -> None:
    files_text = "from app.service import copy\n" + BASE["storage/files.py"]
    tree = MemoryTree({**BASE, "storage/files.py": files_text})
    found = run(["storage/files.py"], tree)
    assert "cycle storage/files.py: new import cycle: app/service.py -> storage/files.py" in found
    leak = MemoryTree(
        {**BASE, "app/service.py": "import tests.test_files\n" + BASE["app/service.py"]}
    )
    assert run(["app/service.py"], leak) == [
        "layer app/service.py: production code now imports test code (tests/test_files.py)"
    ]
    up = MemoryTree({**BASE, "storage/files.py": "import app.service\n" + BASE["storage/files.py"]})
    found = run(["storage/files.py"], up, layers=["storage", "app"])
    assert (
        "layer storage/files.py: storage must not import the higher layer app "
        "(app/service.py)" in found
    )


REACT = {
    "src/components/index.ts": (
        "export { Button } from './Button';\nexport { Card } from './Card';\n"
    ),
    "src/components/Button.tsx": "export function Button() { return null; }\n",
    "src/components/Card.tsx": "export function Card() { return null; }\n",
    "src/app/page.tsx": (
        "import { Button } from '../components/Button';\n"
        "export default async function Page() {\n"
        "  const user = await getUser();\n"
        "  const posts = await getPosts(user.id);\n"
        "  return null;\n}\n"
    ),
    "src/app/actions.ts": (
        "'use server'\n"
        "export async function deletePost(id: string) {\n  const session = await auth();\n"
        "  await db.post.delete(id);\n}\n"
    ),
}
RULES = ["async-parallel", "bundle-barrel-imports", "server-auth-actions"]


def react_run(path: str, text: str) -> list[str]:
    report = audit([path], MemoryTree(REACT), MemoryTree({**REACT, path: text}), active_rules=RULES)
    return [f"{f.check} {f.text()}" for f in report.errors]


def test_react_rules_of_categories_1_to_3_flag_new_anti_patterns() -> None:
    page = REACT["src/app/page.tsx"]
    # the dependent awaits already there are fine; an independent one is a new waterfall
    waterfall = page.replace("  return null;", "  const ads = await getAds();\n  return null;")
    assert react_run("src/app/page.tsx", waterfall) == [
        "react:async-parallel src/app/page.tsx:5: ads awaits after posts without needing it"
    ]
    barrel = page.replace("'../components/Button'", "'../components'")
    assert react_run("src/app/page.tsx", barrel) == [
        "react:bundle-barrel-imports src/app/page.tsx:1: named import from the barrel "
        "'../components'; import the module directly"
    ]
    unguarded = REACT["src/app/actions.ts"] + (
        "export async function renamePost(id: string, name: string) {\n"
        "  await db.post.update(id, name);\n}\n"
    )
    assert react_run("src/app/actions.ts", unguarded) == [
        "react:server-auth-actions src/app/actions.ts:6: server action renamePost does not "
        "check authentication"
    ]
    inactive = audit(
        ["src/app/page.tsx"], MemoryTree(REACT), MemoryTree({**REACT, "src/app/page.tsx": barrel})
    )
    assert inactive.errors == []


def test_a_step_answers_for_its_own_files_and_leaves_later_files_to_later_steps() -> None:
    async_files = BASE["storage/files.py"].replace("def read_text", "async def read_text")
    after_core = MemoryTree({**BASE, "storage/files.py": async_files})
    core = audit(["storage/files.py"], MemoryTree(BASE), after_core).findings
    judged = judge(core, core, own=["storage/files.py"], later={"app/service.py": "callers"})
    assert judged.errors == [] and [w.path for w in judged.warnings] == ["app/service.py"]
    assert judged.waits_for == ["callers"], "core broke callers' file: it needs callers to land"
    # the callers step did not fix app/service.py: it answers for it although core caused it
    untouched = audit(["app/other.py"], after_core, after_core, extra_scope=["app/service.py"])
    since_base = audit(
        ["storage/files.py"], MemoryTree(BASE), after_core, extra_scope=["app/service.py"]
    ).findings
    judged = judge(untouched.findings, since_base, own=["app/service.py"], later={})
    assert [e.check for e in judged.errors] == ["unawaited"]


def test_a_re_export_of_a_name_a_later_step_defines_waits_for_that_step() -> None:
    files = {
        "pkg/__init__.py": "from pkg.enc import want_bytes\n",
        "pkg/enc.py": "def want_bytes(x):\n    return x\n",
    }
    before = MemoryTree(files)
    after = MemoryTree({**files, "pkg/__init__.py": "from pkg.enc import to_bytes\n"})
    findings = audit(["pkg/__init__.py"], before, after).findings
    assert [(f.check, f.target) for f in findings] == [("orphaned_import", "pkg/enc.py")]
    judged = judge(findings, findings, own=["pkg/__init__.py"], later={"pkg/enc.py": "define"})
    assert judged.errors == [] and judged.waits_for == ["define"]
    assert "(left for step define)" in judged.warnings[0].message
    alone = judge(findings, findings, own=["pkg/__init__.py"], later={})
    assert [e.check for e in alone.errors] == ["orphaned_import"], "no later step: an error"


def test_a_call_through_a_package_re_export_is_held_to_the_real_signature() -> None:
    files = {
        "pkg/__init__.py": "from pkg.core import show\n",
        "pkg/core.py": "def show(text, color=None):\n    return text\n",
        "pkg/__main__.py": "from pkg import show\n\nshow('x', color='red')\n",
    }
    renamed = "def show(text, tint=None):\n    return text\n"
    after = MemoryTree({**files, "pkg/core.py": renamed})
    findings = audit(["pkg/core.py"], MemoryTree(files), after, extra_scope=["pkg/__main__.py"])
    assert [(f.check, f.path, f.message, f.target) for f in findings.errors] == [
        ("signature", "pkg/__main__.py", "show() has no parameter color", "pkg/core.py")
    ]


def test_a_call_through_a_module_that_no_longer_defines_the_name_is_found() -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/_fork.py": "def fork_pty():\n    return 1\n",
        "pkg/proc.py": "from . import _fork\n\n\ndef spawn():\n    return _fork.fork_pty()\n",
    }
    renamed = "def fork_pty_renamed():\n    return 1\n"
    after = MemoryTree({**files, "pkg/_fork.py": renamed})
    findings = audit(["pkg/_fork.py"], MemoryTree(files), after).errors
    assert [(f.check, f.path, f.message) for f in findings] == [
        (
            "orphaned_attribute",
            "pkg/proc.py",
            "uses _fork.fork_pty, which pkg/_fork.py no longer defines",
        )
    ]


@pytest.mark.parametrize(
    ("helper", "module"),
    [("conftest.py", "conftest"), ("spec/helpers.py", "spec.helpers"),
     ("testing/fakes.py", "testing.fakes"), ("Tests/data.py", "Tests.data")],
)  # fmt: skip
def test_the_auditor_knows_test_code_as_impact_analysis_does(helper: str, module: str) -> None:
    """One test-file rule (:func:`prflow.analysis.categories.is_test_file`) for both."""
    assert is_test_file(helper)
    files = {**BASE, helper: "VALUE = 1\n"}
    leak = {**files, "app/service.py": f"import {module}\n" + BASE["app/service.py"]}
    report = audit(["app/service.py"], MemoryTree(files), MemoryTree(leak))
    assert [f.text() for f in report.errors] == [
        f"app/service.py: production code now imports test code ({helper})"
    ]


@pytest.mark.parametrize(
    "importer",
    [
        "from pkg.util import helper\n\nhelper()\n",
        "import pkg.util\n\npkg.util.helper()\n",
        "import pkg.util as u\n\nu.helper()\n",
    ],
)
def test_an_absolute_import_of_a_module_the_change_moved_is_an_error(importer: str) -> None:
    """A move that leaves ``from pkg.util import x`` (or ``import pkg.util``) behind breaks at
    import time, like the relative form: the auditor flags it as an error."""
    files = {
        "pkg/__init__.py": "",
        "pkg/util.py": "def helper():\n    return 1\n",
        "app/__init__.py": "",
        "app/main.py": importer,
    }
    moved = {k: v for k, v in files.items() if k != "pkg/util.py"}
    moved["pkg/tools.py"] = files["pkg/util.py"]
    report = audit(["pkg/util.py", "pkg/tools.py"], MemoryTree(files), MemoryTree(moved))
    assert [(f.check, f.path, f.message) for f in report.errors] == [
        ("orphaned_import", "app/main.py", "imports pkg.util, which is not a module any more")
    ]
    fixed = {**moved, "app/main.py": importer.replace("pkg.util", "pkg.tools")}
    clean = audit(
        ["pkg/util.py", "pkg/tools.py", "app/main.py"], MemoryTree(files), MemoryTree(fixed)
    )
    assert clean.errors == []


def test_an_absolute_import_of_an_outside_module_is_not_the_change_s_business() -> None:
    files = {"pkg/__init__.py": "", "pkg/a.py": "import os.path\nfrom yaml.nodes import Node\n"}
    after = {**files, "pkg/a.py": files["pkg/a.py"] + "\nX = 1\n"}
    assert audit(["pkg/a.py"], MemoryTree(files), MemoryTree(after)).errors == []
