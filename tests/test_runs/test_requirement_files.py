"""Requirement files as the installer reads them: the project's own line dropped, includes
followed inside the tree only."""

from __future__ import annotations

from prflow.test_runs.environment import detect
from prflow.test_runs.requirement_files import gather, self_reference


def reader(files: dict[str, str]):  # type: ignore[no-untyped-def]
    return lambda name: files[name].encode() if name in files else None


def test_lines_naming_the_project_are_dropped_with_the_extras_they_asked_for() -> None:
    assert self_reference("-e .", "") == []
    assert self_reference("--editable=./", "") == []
    assert self_reference(".[tests, cov]", "") == ["tests", "cov"]
    assert self_reference("-e ..", "requirements") == []
    assert self_reference("-e ..", "") is None, "the folder above the tree is not the project"
    assert self_reference("-e ./plugins/x", "") is None
    assert self_reference("pytest>=8", "") is None


def test_includes_are_followed_and_filtered_and_never_leave_the_tree() -> None:
    files = {
        "requirements/test.txt": "-e ..[speedups]\n-r base.txt\n-r ../../outside.txt\npytest\n",
        "requirements/base.txt": "-c https://example.org/c.txt\nattrs  # runtime\n",
    }
    found = gather(reader(files), ["requirements/test.txt"])
    assert found.self_extras == ["speedups"]
    assert found.texts["requirements/test.txt"] == "-r base.txt\npytest\n"
    assert found.texts["requirements/base.txt"].startswith("-c https://example.org/c.txt\n")
    assert set(found.texts) == {"requirements/test.txt", "requirements/base.txt"}


def test_typer_style_files_install_the_project_by_its_pyproject_not_by_an_editable_build() -> None:
    pyproject = (
        '[project]\nname="x"\ndependencies=["click"]\n'
        '[project.optional-dependencies]\nstandard=["rich"]\n'
    )
    files = {
        "pyproject.toml": pyproject,
        "requirements-tests.txt": "-e .[standard]\npytest >=4.4.0\ncoverage[toml]\n",
    }
    spec = detect(reader(files), "/usr/bin/python3")
    assert spec is not None and spec.requirement_files == ["requirements-tests.txt"]
    assert spec.requirements == ["click", "rich"]
    assert spec.requirement_texts == {"requirements-tests.txt": "pytest >=4.4.0\ncoverage[toml]\n"}
