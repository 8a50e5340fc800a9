"""A module impact reports removed takes its public functions and classes with it: docs
name ``jit_data``, not ``pkg.json_graph.jit``, so each is a removed target unless the head
still defines it in the package (it moved)."""

from __future__ import annotations

from prflow.analysis.findings import BreakingChange, BreakingKind
from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.docsync.finding import find_affected_docs
from prflow.docsync.models import Bucket, Change, Target, TargetKind
from prflow.docsync.targets import find_targets
from prflow.severity import Severity
from prflow.source_tree import MemoryTree

JIT = """
__all__ = ["jit_data", "jit_graph"]

def jit_data(G, indent=None):
    return {}

def jit_graph(data):
    return None

def helper_not_listed():
    pass
"""
CLASSIFY = (
    "def harmonic_function(G):\n    pass\n\nclass Solver:\n    pass\n\ndef main():\n    pass\n"
)
MOVED_TO = "def harmonic_function(G, max_iter=30):\n    pass\n"


def _removed(symbol: str, path: str, detail: str = "module removed") -> BreakingChange:
    return BreakingChange(
        symbol=symbol,
        kind=BreakingKind.removed_export,
        severity=Severity.high,
        file=path,
        language="python",
        detail=detail,
    )


MUST = Bucket.must_update


def _buckets(targets: list[Target], docs: dict[str, str]) -> dict[str, Bucket]:
    return {d.path: d.bucket for d in find_affected_docs(targets, MemoryTree(docs)).docs}


def _targets(base: dict[str, str], head: dict[str, str], removed: list[tuple[str, str]]):  # type: ignore[no-untyped-def]
    changed = [
        ChangedFile(path=path, status=FileStatus.deleted, category=FileCategory.source)
        for _module, path in removed
    ]
    breaking = [_removed(module, path) for module, path in removed]
    return find_targets(changed, breaking, MemoryTree(base), MemoryTree(head))


def test_members_of_a_removed_module_are_removed_unless_defined_again() -> None:
    base = {
        "pkg/__init__.py": "",
        "pkg/json_graph/jit.py": JIT,
        "pkg/classify/hmn.py": CLASSIFY,
    }
    head = {"pkg/__init__.py": "", "pkg/classify.py": MOVED_TO}
    removed = [
        ("pkg.json_graph.jit", "pkg/json_graph/jit.py"),
        ("pkg.classify.hmn", "pkg/classify/hmn.py"),
    ]
    found = {t.name: t for t in _targets(base, head, removed) if t.kind == TargetKind.symbol}
    assert found["jit_data"].change == Change.removed
    assert found["jit_data"].source == "pkg/json_graph/jit.py"
    assert "jit_graph" in found and "Solver" in found
    assert "helper_not_listed" not in found  # not in __all__
    assert "harmonic_function" not in found  # the head defines it: it moved
    assert "main" not in found  # a plain word: a doc's main() is its own


def test_a_top_level_script_or_a_test_module_adds_no_members() -> None:
    base = {
        "ez_setup.py": "def use_setuptools():\n    pass\n",
        "pkg/tests/test_io.py": "def test_read_file():\n    pass\n",
    }
    removed = [("ez_setup", "ez_setup.py"), ("pkg.tests.test_io", "pkg/tests/test_io.py")]
    names = {t.name for t in _targets(base, {}, removed) if t.kind == TargetKind.symbol}
    assert "use_setuptools" not in names and "test_read_file" not in names


def test_an_autosummary_entry_of_a_removed_member_must_be_updated() -> None:
    base = {"pkg/json_graph/jit.py": JIT}
    targets = _targets(base, {}, [("pkg.json_graph.jit", "pkg/json_graph/jit.py")])
    doc = ".. autosummary::\n   :toctree: generated/\n\n   jit_data\n   node_link_data\n"
    found = find_affected_docs(targets, MemoryTree({"doc/json_graph.rst": doc}))
    assert [(d.path, d.bucket) for d in found.docs] == [("doc/json_graph.rst", Bucket.must_update)]
    assert found.docs[0].evidence[0].target == "jit_data"


def test_names_a_script_no_longer_re_exports_are_no_targets() -> None:
    detail = (
        "`plot` is no longer exported from `boxplot_demo` (it is still defined as "
        "`matplotlib.pyplot.plot`)"
    )
    script = _removed("plot", "examples/pylab/boxplot_demo.py").model_copy(
        update={"detail": detail}
    )
    package = script.model_copy(update={"file": "acme/api.py", "symbol": "fetch"})
    tree = MemoryTree(
        {
            "examples/pylab/boxplot_demo.py": "from pylab import *\n",
            "acme/__init__.py": "",
            "acme/api.py": "from acme.net import fetch\n",
        }
    )
    names = {t.name for t in find_targets([], [script, package], tree, tree)}
    # matplotlib 2.0: nobody imports an example script's names; ``acme.api.fetch`` was API
    assert "plot" not in names
    assert "fetch" in names


def test_nothing_changed_under_a_top_level_docs_examples_or_tools_folder_is_a_target() -> None:
    def removed(path: str, symbol: str) -> BreakingChange:
        return _removed(symbol, path).model_copy(update={"detail": f"`{symbol}` was removed"})

    breaking = [
        removed("doc/src/modules/plots/besselj.py", "besselj_plot"),
        removed("doc/src/modules/plots/besselj.py", "besselj"),  # the module itself stays
        removed("tools/validate_runtests_log.py", "r"),  # scipy 1.0
        removed("examples/shapes.py", "MatchFirst"),  # pyparsing 3: a package of examples
        removed("acme/special.py", "besselk"),
        removed("acme/tools/cli.py", "run_tool"),  # a package's own tools module
    ]
    tree = MemoryTree({"examples/__init__.py": "", "acme/__init__.py": ""})
    names = {t.name for t in find_targets([], breaking, tree, tree)}
    assert names == {"besselj", "besselk", "run_tool"}


def test_a_call_of_a_removed_module_s_name_is_no_use_of_the_module() -> None:
    path = "src/urllib3/request.py"
    changed = [ChangedFile(path=path, status=FileStatus.deleted, category=FileCategory.source)]
    breaking = [_removed("urllib3.request", path)]
    tree = MemoryTree({"src/urllib3/__init__.py": ""})
    targets = find_targets(changed, breaking, tree, tree)
    docs = {
        # urllib3 2.0 removed the module and added a function of the same name
        "contributing.rst": "Use the top-level ``urllib3.request()`` function in examples.\n",
        "call.md": "```python\nr = urllib3.request('GET', url)\n```\n",
        "module.rst": "See ``urllib3.request.urlencode`` for the form encoding.\n",
        "import.md": "```python\nfrom urllib3.request import RequestMethods\n```\n",
    }
    found = find_affected_docs(targets, MemoryTree(docs))
    flagged = {d.path for d in found.docs if d.bucket is Bucket.must_update}
    assert flagged == {"module.rst", "import.md"}


def test_a_name_that_moved_is_stale_only_where_reached_through_the_module_it_left() -> None:
    detail = (
        "function `collect` is no longer defined in `sympy.simplify.simplify` (it is still "
        "defined as `sympy.simplify.radsimp.collect`)"
    )
    moved = _removed("collect", "sympy/simplify/simplify.py").model_copy(
        update={"detail": detail, "before": "collect(expr, syms)"}
    )
    tree = MemoryTree({"sympy/__init__.py": "", "sympy/simplify/__init__.py": ""})
    [target] = find_targets([], [moved], tree, tree)
    assert target.moved
    docs = {
        # sympy 1.0: ``from sympy import *`` still brings ``collect``
        "bare.rst": "Use it::\n\n    >>> collect(a*x + b*x, x)\n",
        "package.rst": "See :func:`sympy.simplify.collect`.\n",
        "imported.rst": "::\n\n    >>> from sympy.simplify.simplify import collect\n",
        "module.rst": ".. autofunction:: sympy.simplify.simplify.collect\n",
        "tail.md": "Call `simplify.simplify.collect(e, x)`.\n",
    }
    found = find_affected_docs([target], MemoryTree(docs))
    flagged = {d.path for d in found.docs if d.bucket is Bucket.must_update}
    assert flagged == {"imported.rst", "module.rst", "tail.md"}


def test_a_removed_function_another_module_still_defines_is_stale_only_through_its_module() -> None:
    """testfixtures 12 dropped ``testfixtures.django.compare``; ``testfixtures.compare`` (from
    ``comparison.py``) stays, so a doc's bare ``compare(...)`` is that one. A method of the
    same name elsewhere is another object and moves nothing."""
    django = "def compare(*args, **kw):\n    pass\n"
    head = {
        "testfixtures/comparison.py": "def compare(x, y):\n    pass\n\nclass C:\n"
        "    def strict(self):\n        pass\n",
        "testfixtures/django.py": "def other():\n    pass\n",
    }
    breaking = [
        _removed(name, "testfixtures/django.py", f"function `{name}` was removed")
        for name in ("compare", "strict")
    ]
    base = MemoryTree({"testfixtures/django.py": django + "def strict():\n    pass\n"})
    targets = find_targets([], breaking, base, MemoryTree(head))
    assert {t.name: t.moved for t in targets if t.kind == TargetKind.symbol} == {
        "compare": True,
        "strict": False,
    }
    docs = {
        "bare.rst": "Use it::\n\n    compare(mocked.mock_calls, expected=[call()])\n",
        "django.rst": "Use it::\n\n    from testfixtures.django import compare\n",
        "strict.rst": "Use it::\n\n    strict()\n",
    }
    assert _buckets(targets, docs) == {"django.rst": MUST, "strict.rst": MUST}


def test_a_removed_method_another_class_still_defines_needs_a_receiver_naming_its_class() -> None:
    """altair 4 dropped Vega-Lite 2's ``TopLevelMixin.add_selection``; version 4's ``Chart``
    defines its own, so ``alt.Chart(data).add_selection(...)`` is right. A receiver named
    for the old class still uses the removed one, and a method no class keeps counts as
    before."""
    breaking = [
        _removed(f"TopLevelMixin.{name}", "altair/v2/api.py", f"function `{name}` was removed")
        for name in ("add_selection", "savechart")
    ]
    head = {"altair/v4/api.py": "class Chart:\n    def add_selection(self, *selections):\n"}
    targets = find_targets([], breaking, MemoryTree({}), MemoryTree(head))
    docs = {
        "chained.md": "```python\nalt.Chart(cars).mark_point().add_selection(brush)\n```\n",
        "mixin.md": "```python\nmixin.add_selection(brush)\n```\n",
        "save.md": "```python\nmixin.savechart('c.html')\n```\n",
    }
    assert _buckets(targets, docs) == {"mixin.md": MUST, "save.md": MUST}
