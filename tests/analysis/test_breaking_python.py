"""Breaking changes in Python code, from base/head file sets a reviewer could write by hand."""

from __future__ import annotations

from pathlib import Path

from prflow.analysis.breaking import find_breaking_changes
from prflow.analysis.breaking_python import find_python_breaking_changes
from prflow.analysis.findings import BreakingChange, BreakingKind
from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.imports import build_import_graph
from prflow.severity import Severity
from prflow.source_tree import DirectoryTree, MemoryTree


def diff(
    base: dict[str, str], head: dict[str, str], renames: dict[str, str] | None = None
) -> list[ChangedFile]:
    """The changed-file list git would report for two file sets (renames given old -> new)."""
    renames = renames or {}
    changed = [
        ChangedFile(path=new, old_path=old, status=FileStatus.renamed)
        for old, new in renames.items()
    ]
    for path in sorted(set(base) | set(head)):
        if path in renames or path in renames.values():
            continue
        if path not in head:
            changed.append(ChangedFile(path=path, status=FileStatus.deleted))
        elif path not in base:
            changed.append(ChangedFile(path=path, status=FileStatus.added))
        elif base[path] != head[path]:
            changed.append(ChangedFile(path=path, status=FileStatus.modified))
    return changed


def breaking(
    base: dict[str, str], head: dict[str, str], renames: dict[str, str] | None = None
) -> list[BreakingChange]:
    return find_breaking_changes(
        diff(base, head, renames), MemoryTree(base), MemoryTree(head), None, None
    )


def by_symbol(changes: list[BreakingChange]) -> dict[str, BreakingChange]:
    return {change.symbol: change for change in changes}


CLIENT = '''\
class Client:
    """Talks to the service."""

    def fetch(self, url: str, timeout: float = 5.0) -> bytes:
        return b""

    def close(self) -> None:
        pass
'''


def test_removed_function_is_high_severity_with_its_base_signature_and_line() -> None:
    base = {"app/util.py": "import os\n\n\ndef slugify(text: str) -> str:\n    return text\n"}
    head = {"app/util.py": "import os\n"}

    [change] = breaking(base, head)

    assert change.file == "app/util.py"
    assert change.symbol == "slugify"
    assert change.kind is BreakingKind.removed_export
    assert change.severity is Severity.high
    assert change.language == "python"
    assert change.before == "slugify(text: str) -> str"
    assert change.after is None
    assert change.line == 4


def test_private_names_and_names_outside_all_are_not_reported() -> None:
    base = {
        "lib.py": "__all__ = ['keep']\n\ndef keep(): pass\n\ndef internal(): pass\n\n"
        "def _hidden(): pass\n"
    }
    head = {"lib.py": "__all__ = ['keep']\n\ndef keep(): pass\n"}

    assert breaking(base, head) == []


def test_removed_class_method_is_reported_as_class_dot_method() -> None:
    head_client = CLIENT.replace("    def close(self) -> None:\n        pass\n", "")
    changes = breaking({"svc/client.py": CLIENT}, {"svc/client.py": head_client})

    [change] = changes
    assert change.symbol == "Client.close"
    assert change.kind is BreakingKind.removed_export
    assert change.before == "Client.close(self) -> None"
    assert change.line == 7


def test_parameter_made_required_is_a_medium_signature_change() -> None:
    head_client = CLIENT.replace("timeout: float = 5.0", "timeout: float")
    [change] = breaking({"svc/client.py": CLIENT}, {"svc/client.py": head_client})

    assert change.symbol == "Client.fetch"
    assert change.kind is BreakingKind.changed_signature
    assert change.severity is Severity.medium
    assert change.detail == "parameter `timeout` became required"
    assert change.before == "Client.fetch(self, url: str, timeout: float = 5.0) -> bytes"
    assert change.after == "Client.fetch(self, url: str, timeout: float) -> bytes"
    assert change.line == 4


def test_several_parameter_changes_to_one_function_make_one_entry() -> None:
    base = {"m.py": "def run(a, b, c=1):\n    pass\n"}
    head = {"m.py": "def run(b, a, *, c=2, d):\n    pass\n"}

    [change] = breaking(base, head)

    assert change.kind is BreakingKind.changed_signature
    assert "required parameter `d` was added" in change.detail
    assert "parameter `c` changed from positional or keyword to keyword-only" in change.detail
    assert "default" not in change.detail  # a new default value does not break a call
    assert "parameter `a` moved" in change.detail
    assert change.after == "run(b, a, *, c=2, d)"


def test_changed_return_and_attribute_annotations_are_no_break() -> None:
    # griffe compares no attribute annotation and no return annotation that is still there.
    base = {"conf.py": "TIMEOUT: int = 3\n\ndef load(path: str) -> dict[str, str]:\n    ...\n"}
    head = {"conf.py": "TIMEOUT: float = 3.0\n\ndef load(path: str) -> list[str]:\n    ...\n"}

    assert breaking(base, head) == []


def test_renamed_function_is_paired_with_its_new_name() -> None:
    body = "    total = 0\n    for item in items:\n        total += item\n    return total\n"
    base = {"calc.py": f"def add_all(items: list[int]) -> int:\n{body}"}
    head = {"calc.py": f"def sum_items(items: list[int]) -> int:\n{body}"}

    [change] = breaking(base, head)

    assert change.kind is BreakingKind.renamed_export
    assert change.severity is Severity.high
    assert change.symbol == "add_all"
    assert change.new_name == "sum_items"
    assert change.after == "sum_items(items: list[int]) -> int"


def test_two_unrelated_functions_swapped_are_not_a_rename() -> None:
    base = {"calc.py": "def area(w: float, h: float) -> float:\n    return w * h\n"}
    head = {"calc.py": "def greet(name: str) -> str:\n    return 'hi ' + name\n"}

    [change] = breaking(base, head)

    assert change.kind is BreakingKind.removed_export
    assert change.new_name is None


def test_import_dropped_from_an_init_without_dunder_all_is_no_break() -> None:
    # griffe's rule: an imported name is private unless ``__all__`` lists it; ``helper``'s
    # public path is ``pkg.core.helper``, which still works.
    core = "def helper(x: int) -> int:\n    return x\n\ndef other() -> None:\n    pass\n"
    base = {"pkg/__init__.py": "from .core import helper, other\n", "pkg/core.py": core}
    head = {"pkg/__init__.py": "from .core import other\n", "pkg/core.py": core}

    assert breaking(base, head) == []


def test_a_private_module_is_public_only_through_dunder_all() -> None:
    impl = "def helper(x: int) -> int:\n    return x\n"
    changed = "def helper(x: int, y: int) -> int:\n    return x + y\n"
    plain = "from ._impl import helper\n"
    listed = "from ._impl import helper\n__all__ = ['helper']\n"

    hidden = breaking(
        {"pkg/__init__.py": plain, "pkg/_impl.py": impl},
        {"pkg/__init__.py": plain, "pkg/_impl.py": changed},
    )
    [exported] = breaking(
        {"pkg/__init__.py": listed, "pkg/_impl.py": impl},
        {"pkg/__init__.py": listed, "pkg/_impl.py": changed},
    )

    assert hidden == []
    assert exported.kind is BreakingKind.changed_signature
    assert "pkg.helper" in exported.public_paths


def test_symbol_dropped_from_package_reexports_with_dunder_all_is_removed() -> None:
    core = "def helper(x: int) -> int:\n    return x\n\ndef other() -> None:\n    pass\n"
    base = {
        "pkg/__init__.py": "from ._core import helper, other\n__all__ = ['helper', 'other']\n",
        "pkg/_core.py": core,
    }
    head = {
        "pkg/__init__.py": "from ._core import other\n__all__ = ['other']\n",
        "pkg/_core.py": core,
    }

    [change] = breaking(base, head)

    assert change.file == "pkg/__init__.py"
    assert change.symbol == "helper"
    assert change.kind is BreakingKind.removed_export
    assert change.before == "helper (re-export of pkg._core.helper)"


def test_a_function_moved_to_another_module_says_where_it_still_lives() -> None:
    """sympy 1.0 moved ``collect`` from ``simplify.simplify`` to ``simplify.radsimp``: the old
    module's path broke, ``sympy.simplify.collect`` did not."""
    collect = "def collect(expr, syms):\n    return expr\n"
    base = {
        "pkg/__init__.py": "from .simplify import collect, gone\n",
        "pkg/simplify.py": f"{collect}\ndef gone(expr):\n    return expr\n",
    }
    head = {
        "pkg/__init__.py": "from .radsimp import collect\n",
        "pkg/simplify.py": "class Simplifier:\n    pass\n",
        "pkg/radsimp.py": collect,
    }

    found = by_symbol(breaking(base, head))

    moved = found["collect"]
    assert moved.kind is BreakingKind.removed_export
    assert moved.file == "pkg/simplify.py"
    assert moved.public_paths == ["pkg.simplify.collect"]
    assert moved.detail == (
        "function `collect` is no longer defined in `pkg.simplify` "
        "(it is still defined as `pkg.radsimp.collect`)"
    )
    assert moved.before == "collect(expr, syms)"
    assert found["gone"].detail == "function `gone` was removed"


def test_symbol_dropped_from_dunder_all_is_removed_only_when_no_longer_bound() -> None:
    """``from pkg import helper`` keeps working while ``pkg`` still imports ``helper``, and
    griffe (2.4) looks an old public name up among all the new module's members: dropping it
    from ``__all__`` alone is no removed object. Dropping the import too is."""
    core = "def helper() -> int:\n    return 1\n"
    base = {"pkg/__init__.py": "from .core import helper\n__all__ = ['helper']\n"}
    head = {"pkg/__init__.py": "from .core import helper\n__all__ = []\n"}
    base["pkg/core.py"] = head["pkg/core.py"] = core

    assert breaking(base, head) == []

    head["pkg/__init__.py"] = "__all__ = []\n"
    [change] = breaking(base, head)

    assert (change.file, change.symbol, change.kind) == (
        "pkg/__init__.py",
        "helper",
        BreakingKind.removed_export,
    )


def test_deleted_module_is_one_finding_not_one_per_member() -> None:
    base = {
        "pkg/__init__.py": "",
        "pkg/legacy.py": "def old_api() -> None:\n    pass\n\nclass OldThing:\n    pass\n\n"
        "def _private() -> None:\n    pass\n",
    }
    head = {"pkg/__init__.py": ""}

    changes = breaking(base, head)

    assert [(c.file, c.symbol, c.kind, c.detail) for c in changes] == [
        (
            "pkg/legacy.py",
            "pkg.legacy",
            BreakingKind.removed_export,
            "module `pkg.legacy` was removed",
        )
    ]


def test_deleted_top_level_module_is_removed_as_a_module() -> None:
    [change] = breaking({"tools.py": "def run_all() -> None:\n    pass\n"}, {})

    assert (change.file, change.symbol, change.kind) == (
        "tools.py",
        "tools",
        BreakingKind.removed_export,
    )


def test_module_moved_by_git_rename_is_one_rename_to_its_new_dotted_path() -> None:
    text = "def parse(data: bytes) -> dict[str, int]:\n    return {}\n"
    base = {"pkg/__init__.py": "", "pkg/old_parser.py": text}
    head = {"pkg/__init__.py": "", "pkg/parsing.py": text}

    [change] = breaking(base, head, renames={"pkg/old_parser.py": "pkg/parsing.py"})

    assert change.kind is BreakingKind.renamed_export
    assert change.file == "pkg/old_parser.py"
    assert change.symbol == "pkg.old_parser"
    assert change.new_name == "pkg.parsing"


def test_syntax_error_at_head_is_skipped_without_crashing() -> None:
    base = {
        "a.py": "def one() -> int:\n    return 1\n",
        "b.py": "def two() -> int:\n    return 2\n",
    }
    head = {"a.py": "def one( -> int:\n", "b.py": ""}

    changed = diff(base, head)
    result = find_python_breaking_changes(changed, MemoryTree(base), MemoryTree(head))

    assert [(c.file, c.symbol) for c in result.changes] == [("b.py", "two")]
    assert [(n.path, n.reason.split(":")[0]) for n in result.not_analysed] == [
        ("a.py", "SyntaxError")
    ]


def test_test_files_have_no_api() -> None:
    base = {"tests/test_calc.py": "def test_adds() -> None:\n    assert True\n"}
    changed = [
        ChangedFile(
            path="tests/test_calc.py", status=FileStatus.deleted, category=FileCategory.test
        )
    ]

    assert find_breaking_changes(changed, MemoryTree(base), MemoryTree({}), None, None) == []


def test_added_files_and_unchanged_signatures_report_nothing() -> None:
    base = {"m.py": "def f(a: int) -> int:\n    return a\n"}
    head = {"m.py": "def f(a: int) -> int:\n    return a + 1\n", "n.py": "def g(): pass\n"}

    assert breaking(base, head) == []


def test_directory_backed_trees_give_the_same_answer(tmp_path: Path) -> None:
    for side, text in {"base": CLIENT, "head": CLIENT.replace("url: str", "uri: str")}.items():
        (tmp_path / side / "svc").mkdir(parents=True)
        (tmp_path / side / "svc" / "client.py").write_text(text)
    changed = [ChangedFile(path="svc/client.py", status=FileStatus.modified)]

    changes = find_breaking_changes(
        changed, DirectoryTree(tmp_path / "base"), DirectoryTree(tmp_path / "head"), None, None
    )

    assert [(c.symbol, c.kind) for c in changes] == [
        ("Client.fetch", BreakingKind.changed_signature)
    ]
    assert "parameter `url` was removed" in changes[0].detail


def test_consumers_come_from_the_head_import_graph() -> None:
    base = {"pkg/__init__.py": "", "pkg/core.py": "def helper() -> int:\n    return 1\n"}
    head = {
        "pkg/__init__.py": "",
        "pkg/core.py": "def other() -> int:\n    return 2\n",
        "app.py": "from pkg.core import helper\n",
        "cli.py": "import pkg.core\n\npkg.core.helper()\n",
        "unrelated.py": "from pkg.core import other\n",
    }
    head_tree = MemoryTree(head)

    [change] = find_breaking_changes(
        diff(base, head), MemoryTree(base), head_tree, build_import_graph(head_tree), None
    )

    assert change.symbol == "helper"
    assert change.consumers == ["app.py", "cli.py"]


def test_consumers_of_a_method_are_the_importers_of_its_class() -> None:
    head_client = CLIENT.replace("    def close(self) -> None:\n        pass\n", "")
    base = {"svc/__init__.py": "", "svc/client.py": CLIENT}
    head = {"svc/__init__.py": "", "svc/client.py": head_client}
    head["main.py"] = "from svc.client import Client\n\nClient().close()\n"
    head_tree = MemoryTree(head)

    [change] = find_breaking_changes(
        diff(base, head), MemoryTree(base), head_tree, build_import_graph(head_tree), None
    )

    assert (change.symbol, change.consumers) == ("Client.close", ["main.py"])


def test_consumers_of_a_method_are_the_importers_that_use_its_name() -> None:
    head_client = CLIENT.replace("    def close(self) -> None:\n        pass\n", "")
    base = {"svc/__init__.py": "", "svc/client.py": CLIENT}
    head = {"svc/__init__.py": "", "svc/client.py": head_client}
    head["main.py"] = "from svc.client import Client\n\nClient().close()\n"
    head["build.py"] = "from svc.client import Client\n\nclient = Client()\n"
    head["later.py"] = (
        "from svc.client import Client\n\ndef stop(c: Client) -> None:\n    c.close()\n"
    )
    head_tree = MemoryTree(head)

    [change] = find_breaking_changes(
        diff(base, head), MemoryTree(base), head_tree, build_import_graph(head_tree), None
    )

    assert (change.symbol, change.consumers) == ("Client.close", ["later.py", "main.py"])


def test_consumers_of_a_constructor_change_are_every_user_of_the_class() -> None:
    base = {
        "svc/__init__.py": "",
        "svc/client.py": "class Client:\n    def __init__(self) -> None:\n        pass\n",
    }
    head = {
        "svc/__init__.py": "",
        "svc/client.py": "class Client:\n    def __init__(self, url: str) -> None:\n        pass\n",
        "main.py": "from svc.client import Client\n\nClient()\n",
    }
    head_tree = MemoryTree(head)

    [change] = find_breaking_changes(
        diff(base, head), MemoryTree(base), head_tree, build_import_graph(head_tree), None
    )

    assert change.consumers == ["main.py"]


def test_consumers_of_a_deleted_file_come_from_the_base_graph() -> None:
    base = {"legacy.py": "def old() -> None:\n    pass\n", "main.py": "from legacy import old\n"}
    head = {"main.py": "from legacy import old\n"}
    head_tree, base_tree = MemoryTree(head), MemoryTree(base)

    [change] = find_breaking_changes(
        diff(base, head),
        base_tree,
        head_tree,
        build_import_graph(head_tree),
        build_import_graph(base_tree),
    )

    assert change.consumers == ["main.py"]


def test_a_compiled_extension_branch_falls_back_to_the_pure_python_import() -> None:
    py_row = "class BaseRow:\n    def keys(self):\n        return []\n"
    base = {
        "pkg/__init__.py": "",
        "pkg/row.py": py_row + "\nclass Row(BaseRow):\n    pass\n",
    }
    head = {
        "pkg/__init__.py": "",
        "pkg/_py_row.py": py_row,
        "pkg/row.py": (
            "from ._has_cy import HAS_CY\n"
            "if not HAS_CY:\n    from ._py_row import BaseRow as BaseRow\n"
            "else:\n    from pkg.cyextension.row import BaseRow as BaseRow\n"
            "\nclass Row(BaseRow):\n    pass\n"
        ),
    }

    # `pkg.cyextension.row` has no Python source; the fallback keeps `Row.keys` in place.
    assert breaking(base, head) == []


def test_kind_changes_that_callers_cannot_notice() -> None:
    base = {
        "pkg/__init__.py": "",
        "pkg/api.py": (
            "from .impl import Executable, make\n"
            "class DDLElement(Executable):\n    pass\n"
            "insert = make('insert')\n"
            "LIMIT = 10\n"
        ),
        "pkg/impl.py": "class Executable:\n    pass\ndef make(name):\n    return print\n",
    }
    head = {
        **base,
        "pkg/api.py": (
            "from .impl import Executable\n"
            "DDLElement = Executable\n"
            "def insert(table):\n    return table\n"
            "def LIMIT():\n    return 10\n"
        ),
    }

    changes = by_symbol(breaking(base, head))

    # An alias still names a class; a factory-made callable became a def: used the same way.
    # A number that became a function is not.
    assert set(changes) == {"LIMIT"}
    assert changes["LIMIT"].detail == "changed from attribute to function"


def test_typing_aliases_of_builtin_bases_are_the_same_base() -> None:
    base = {"pkg/__init__.py": "class Registry(dict):\n    pass\n"}
    head = {
        "pkg/__init__.py": ("from typing import Dict\nclass Registry(Dict[str, int]):\n    pass\n")
    }

    assert breaking(base, head) == []


def test_a_removed_base_is_reported_once_at_its_definition() -> None:
    base = {
        "pkg/__init__.py": "from .a import Mixin, Tool, Worker\n",
        "pkg/a.py": (
            "class Mixin:\n    pass\nclass Base:\n    pass\n"
            "class Tool(Mixin):\n    pass\nclass Worker(Base, Mixin):\n    pass\n"
        ),
    }
    head = {
        "pkg/__init__.py": "from .a import Tool, Worker\n",
        "pkg/a.py": (
            "class Base:\n    pass\nclass Other:\n    pass\n"
            "class Tool(Other):\n    pass\nclass Worker(Base):\n    pass\n"
        ),
    }

    changes = breaking(base, head)

    # Tool swapped its (now deleted) base: the deletion is the finding. Worker dropped a base.
    assert sorted((c.symbol, c.detail) for c in changes) == [
        ("Mixin", "class `Mixin` was removed"),
        ("Worker", "no longer inherits from `Mixin`"),
    ]


def test_names_re_exported_from_a_removed_module_belong_to_its_one_finding() -> None:
    base = {
        "pkg/__init__.py": "from .ordered import *\n",
        "pkg/ordered.py": "class OrderedGraph:\n    pass\nclass OrderedDiGraph:\n    pass\n",
    }
    head = {"pkg/__init__.py": ""}

    (change,) = breaking(base, head)

    assert (change.symbol, change.kind) == ("pkg.ordered", BreakingKind.removed_export)
    assert {"pkg.ordered", "pkg.OrderedGraph", "pkg.OrderedDiGraph"} <= set(change.public_paths)


def test_a_base_swapped_for_another_is_no_break_a_dropped_one_is() -> None:
    # griffe's rule: a class breaks by base only when it has fewer bases than before.
    bases = "class Reader:\n    pass\nclass Cached:\n    pass\nclass Streamed:\n    pass\n"
    base = {"io_kit.py": bases + "class Loader(Reader, Cached):\n    pass\n"}
    swapped = {"io_kit.py": bases + "class Loader(Reader, Streamed):\n    pass\n"}
    dropped = {"io_kit.py": bases + "class Loader(Reader):\n    pass\n"}

    [change] = breaking(base, dropped)

    assert breaking(base, swapped) == []
    assert (change.symbol, change.kind) == ("Loader", BreakingKind.changed_type)
    assert change.detail == "no longer inherits from `Cached`"


def test_a_star_import_passes_on_no_name_only_type_checking_imports() -> None:
    # griffe's rule: ``if TYPE_CHECKING:`` imports are absent at run time, so ``import *``
    # of the module never bound them; dropping one is no break.
    init = "from .tokens import *\n"
    guarded = "if TYPE_CHECKING:\n    from .gpt import GPTTokenizer as FastTokenizer\n"
    tokens = "from typing import TYPE_CHECKING\nclass Tokenizer:\n    pass\n"
    base = {"nlp/__init__.py": init, "nlp/tokens.py": tokens + guarded}
    head = {"nlp/__init__.py": init, "nlp/tokens.py": tokens}
    base["nlp/gpt.py"] = head["nlp/gpt.py"] = "class GPTTokenizer:\n    pass\n"

    assert breaking(base, head) == []
    runtime = {**base, "nlp/tokens.py": tokens + "from .gpt import GPTTokenizer as FastTokenizer\n"}
    [change] = breaking(runtime, head)
    assert (change.symbol, change.kind) == ("FastTokenizer", BreakingKind.removed_export)
