"""The dependency rules of SPEC §2, checked on every module as it is written.

Domain code (``prflow/`` except the user interfaces ``prflow/cli`` and
``prflow/mcp``) never imports ``workflows``, ``activities`` or ``worker``;
workflows never import ``worker``; activities never import ``workflows`` or
``worker``. Function-level imports count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INTERFACES = ("prflow/cli/", "prflow/mcp/")
RULES = {
    "prflow": {"workflows", "activities", "worker"},
    "workflows": {"worker"},
    "activities": {"workflows", "worker"},
}


def imported_packages(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def modules_of(package: str) -> list[Path]:
    files = sorted((ROOT / package).rglob("*.py"))
    return [f for f in files if not f.relative_to(ROOT).as_posix().startswith(INTERFACES)]


@pytest.mark.parametrize("package", sorted(RULES))
def test_no_module_imports_a_layer_it_must_not(package: str) -> None:
    offences = {
        path.relative_to(ROOT).as_posix(): sorted(imported_packages(path) & RULES[package])
        for path in modules_of(package)
    }
    assert {name: bad for name, bad in offences.items() if bad} == {}


def test_the_rule_sees_function_level_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f() -> None:\n    from worker.warm import touch\n")
    assert imported_packages(sample) == {"worker"}
