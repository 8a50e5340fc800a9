"""Static reviews a reviewer would not mute: no "moved" path that reads the same, no member
name matched as an English word, upgrade guides read as history, packaging metadata and
vendored copies treated as generated (cases from requests 2.31→2.32, werkzeug 2.3→3.0 and
marshmallow 3→4)."""

from __future__ import annotations

import pytest

from prflow.analysis.findings import BreakingChange, BreakingKind
from prflow.analysis.stale_docs import find_stale_doc_refs
from prflow.changes import ChangedFile, FileStatus
from prflow.review.reviewable import is_generated
from prflow.severity import Severity
from prflow.source_tree import MemoryTree


def _removed(symbol: str) -> BreakingChange:
    return BreakingChange(
        kind=BreakingKind.removed_export,
        symbol=symbol,
        file="src/pkg/mod.py",
        line=1,
        severity=Severity.high,
        language="python",
        detail="removed",
    )


def test_a_src_layout_move_reports_no_bare_package_name_and_no_prose_path() -> None:
    moved = [
        ChangedFile(
            path="src/requests/__init__.py",
            old_path="requests/__init__.py",
            status=FileStatus.renamed,
        ),
        ChangedFile(
            path="src/requests/api.py", old_path="requests/api.py", status=FileStatus.renamed
        ),
    ]
    head = MemoryTree(
        {
            "README.md": (
                ">>> import requests\n"
                "$ python -m pip install requests\n"
                "The API lives in requests/api.py.\n"
                "See [the API](requests/api.py).\n"  # a relative link does break
            ),
            "src/requests/__init__.py": "",
            "src/requests/api.py": "",
        }
    )
    refs = find_stale_doc_refs(moved, [], head)
    assert [(r.line, r.target) for r in refs] == [(4, "requests/api.py")]


def test_a_member_counts_qualified_or_as_an_attribute_never_as_a_word() -> None:
    head = MemoryTree(
        {
            "docs/usage.rst": (
                "Only errors are shown; the ISO-8859-1 charset is used.\n"  # prose words
                "$ pre-commit install --allow-missing-config\n"  # hyphenated word
                "   start_response('200 OK', [('Content-Type', 'text/html; charset=utf-8')])\n"
                "Read ``response.charset`` for the encoding.\n"  # attribute: stale
                "Or `Request.charset`.\n"  # qualified: stale
            )
        }
    )
    changes = [_removed(s) for s in ("Request.charset", "FormDataParser.errors", "Field.missing")]
    refs = find_stale_doc_refs([], changes, head)
    assert [(r.line, r.target) for r in refs] == [(4, "Request.charset"), (5, "Request.charset")]


def test_upgrade_guides_are_history() -> None:
    head = MemoryTree({"docs/upgrading.rst": "``utils.get_func_args`` was removed.\n"})
    assert find_stale_doc_refs([], [_removed("get_func_args")], head) == []


@pytest.mark.parametrize(
    "path",
    [
        "PKG-INFO",
        "src/requests.egg-info/PKG-INFO",
        "src/requests.egg-info/SOURCES.txt",
        "pkg-1.0.dist-info/RECORD",
        "flake.lock",
        "static/app.min.mjs",
        "pip/_vendor/urllib3/util.py",
        "third/vendored/lib.py",
    ],
)
def test_packaging_metadata_lockfiles_minified_and_vendored_files_are_generated(path: str) -> None:
    assert is_generated(path)


def test_ordinary_sources_are_not_generated() -> None:
    assert not is_generated("src/requests/api.py") and not is_generated("docs/packaging.md")


def test_a_removed_name_the_head_still_defines_elsewhere_is_not_stale() -> None:
    head = MemoryTree(
        {
            "docs/quickstart.rst": "Set ``unknown = INCLUDE`` or call ``pprint(result)``.\n",
            "src/pkg/constants.py": "INCLUDE = 'include'\n",  # moved here, still exported
            "src/pkg/schema.py": "def load():\n    pprint = print\n",  # a local: not alive
        }
    )
    refs = find_stale_doc_refs([], [_removed("INCLUDE"), _removed("pprint")], head)
    assert [r.target for r in refs] == ["pprint"]


def test_a_name_the_doc_imports_from_another_package_is_that_packages() -> None:
    head = MemoryTree(
        {
            "docs/quickstart.rst": (
                "::\n\n    from pprint import pprint\n    pprint(result)\n\n"
                "Call ``marshmallow.pprint`` no more.\n"
            ),
            "docs/other.rst": "Use ``pprint(data)`` to show it.\n",
        }
    )
    gone = _removed("pprint").model_copy(update={"file": "src/marshmallow/__init__.py"})
    refs = find_stale_doc_refs([], [gone], head)
    assert [(r.doc_file, r.line) for r in refs] == [("docs/other.rst", 1)]


def test_a_module_path_ending_in_a_member_name_is_not_the_member() -> None:
    head = MemoryTree(
        {
            "docs/api.rst": (
                ".. automodule:: marshmallow.experimental.context\n"
                "Use `Context <marshmallow.experimental.context.Context>`.\n"
                "Old code read ``self.context``.\n"  # the removed member: stale
            ),
            "src/marshmallow/experimental/context.py": "class Context: ...\n",
        }
    )
    gone = _removed("Field.context").model_copy(update={"file": "src/marshmallow/fields.py"})
    assert [r.line for r in find_stale_doc_refs([], [gone], head)] == [3]
