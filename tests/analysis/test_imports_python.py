"""Python import resolution: what `find_importers` and breaking-change consumers rely on."""

from __future__ import annotations

from prflow.imports import ImportEdge, ImportGraph, build_import_graph
from prflow.source_tree import MemoryTree

SHOP = {
    # A src-layout package whose __init__ re-exports from its core module.
    "src/shop/__init__.py": (
        "from .core import Cart, checkout\n__all__ = ['Cart', 'checkout']\nVERSION = '1'\n"
    ),
    "src/shop/core.py": (
        "import json\n"
        "import requests\n"
        "from shop.util import money\n"
        "from . import util\n"
        "def checkout(cart):\n    return money(cart)\n"
        "class Cart:\n    pass\n"
    ),
    "src/shop/util.py": "def money(x):\n    return x\n",
    "src/shop/sub/__init__.py": "",
    "src/shop/sub/deep.py": (
        "from ..core import Cart\nfrom .. import util\nfrom ...nowhere import thing\n"
    ),
    "src/shop/api.py": "from shop.util import money as money\nfrom shop.core import Cart\n",
    "src/shop/public.py": "from shop.core import checkout\n__all__ = ['checkout']\n",
    "src/shop/star.py": "from shop.core import *\n\nCart()\n",
    "app.py": "import shop\nfrom shop import checkout, sub\n\nshop.Cart()\n",
    "lazy.py": "def load():\n    from shop import util\n    return util\n",
    # A package nested two levels down: its parent directory is a source root.
    "services/api/apiapp/__init__.py": "",
    "services/api/apiapp/views.py": (
        "import typing\n"
        "try:\n    import ujson as json\nexcept ImportError:\n    from apiapp import models\n"
        "if typing.TYPE_CHECKING:\n    from apiapp.types import UserId\n"
    ),
    "services/api/apiapp/models.py": "class User: ...\n",
    "services/api/apiapp/types.py": "UserId = int\n",
    # Scripts outside packages import their neighbours and load modules dynamically.
    "scripts/run.py": (
        "import importlib\nimport helpers\n"
        "plugin = importlib.import_module('shop.util')\n"
        "other = __import__('apiapp.models')\n"
    ),
    "scripts/helpers.py": "X = 1\n",
    "broken.py": "def broken(:\n    from shop import util\n",
    "node_modules/pkg/x.py": "import shop\n",
    "build/lib/shop/__init__.py": "import shop.util\n",
}


def _graph(files: dict[str, str]) -> ImportGraph:
    return build_import_graph(MemoryTree(files))


def _edges_from(graph: ImportGraph, importer: str) -> list[ImportEdge]:
    return [edge for edge in graph.edges if edge.importer == importer]


def _edge(graph: ImportGraph, importer: str, target: str, *, named: bool) -> ImportEdge:
    matches = [
        edge
        for edge in _edges_from(graph, importer)
        if edge.target == target and (edge.names is not None) == named
    ]
    assert len(matches) == 1, _edges_from(graph, importer)
    return matches[0]


def test_absolute_imports_resolve_in_src_root_and_third_party_is_dropped() -> None:
    graph = _graph(SHOP)
    targets = {edge.target for edge in _edges_from(graph, "src/shop/core.py")}
    assert targets == {"src/shop/util.py"}
    named = _edge(graph, "src/shop/core.py", "src/shop/util.py", named=True)
    assert named.names == ["money"]
    assert not named.reexport
    # `from . import util` names a submodule: the edge is to the module as a whole.
    assert _edge(graph, "src/shop/core.py", "src/shop/util.py", named=False).names is None


def test_relative_imports_climb_packages_and_stop_at_the_repo_root() -> None:
    graph = _graph(SHOP)
    deep = {
        (edge.target, tuple(edge.names or ()))
        for edge in _edges_from(graph, "src/shop/sub/deep.py")
    }
    assert deep == {("src/shop/core.py", ("Cart",)), ("src/shop/util.py", ())}


def test_a_bare_relative_import_in_a_root_level_file_does_not_stop_the_graph() -> None:
    """nbformat 5.0.4 ships such a file; the graph (and so impact) used to fail on it."""
    graph = _graph({"setup.py": "from . import helper\nfrom .. import other\n", "helper.py": ""})
    assert {edge.target for edge in _edges_from(graph, "setup.py")} == {"helper.py"}


def test_package_import_targets_init_and_subpackage_import_targets_its_init() -> None:
    graph = _graph(SHOP)
    app = _edges_from(graph, "app.py")
    assert {(edge.target, edge.names and tuple(edge.names)) for edge in app} == {
        ("src/shop/__init__.py", None),
        ("src/shop/__init__.py", ("checkout",)),
        ("src/shop/sub/__init__.py", None),
    }


def test_nested_package_parent_is_a_source_root_and_conditional_imports_count() -> None:
    graph = _graph(SHOP)
    targets = {edge.target for edge in _edges_from(graph, "services/api/apiapp/views.py")}
    assert targets == {"services/api/apiapp/types.py", "services/api/apiapp/models.py"}


def test_function_level_imports_and_dynamic_literal_imports_count() -> None:
    graph = _graph(SHOP)
    assert {edge.target for edge in _edges_from(graph, "lazy.py")} == {"src/shop/util.py"}
    assert {edge.target for edge in _edges_from(graph, "scripts/run.py")} == {
        "scripts/helpers.py",
        "src/shop/util.py",
        "services/api/apiapp/models.py",
    }


def test_a_dynamic_import_after_form_feeds_or_old_mac_line_ends_is_found() -> None:
    # Python's tokenizer ends lines at \n, \r\n and \r, not at a form feed; a file that
    # numbered its lines otherwise would look for the call on the wrong line.
    tree = MemoryTree(
        {
            "src/shop/__init__.py": "",
            "src/shop/util.py": "",
            "src/shop/models.py": "",
            "paged.py": "import os\n\x0c\n\x0c\nplugin = importlib.import_module('shop.util')\n",
            "mac.py": "x = 1\ry = 2\rdef load():\r    return __import__('shop.models')\r",
        }
    )
    graph = build_import_graph(tree)
    assert {edge.target for edge in _edges_from(graph, "paged.py")} == {"src/shop/util.py"}
    assert {edge.target for edge in _edges_from(graph, "mac.py")} == {"src/shop/models.py"}


def test_reexports_are_marked_for_init_all_and_redundant_alias() -> None:
    graph = _graph(SHOP)
    init = _edge(graph, "src/shop/__init__.py", "src/shop/core.py", named=True)
    assert init.reexport and init.names == ["Cart", "checkout"]
    assert _edge(graph, "src/shop/public.py", "src/shop/core.py", named=True).reexport
    api = [edge for edge in _edges_from(graph, "src/shop/api.py") if edge.reexport]
    assert [(edge.target, edge.names) for edge in api] == [("src/shop/util.py", ["money"])]
    # A function-level import in a plain module never re-exports.
    assert not any(edge.reexport for edge in _edges_from(graph, "lazy.py"))


def test_syntax_errors_and_vendored_or_build_dirs_contribute_nothing() -> None:
    graph = _graph(SHOP)
    importers = {edge.importer for edge in graph.edges}
    assert "broken.py" not in importers
    assert not any(path.startswith(("node_modules/", "build/")) for path in importers)
    assert "app.py" in importers  # the rest of the tree is still analysed


def test_importers_and_transitive_distances() -> None:
    graph = _graph(SHOP)
    assert graph.importers_of("src/shop/core.py") == [
        "src/shop/__init__.py",
        "src/shop/api.py",
        "src/shop/public.py",
        "src/shop/star.py",
        "src/shop/sub/deep.py",
    ]
    distances = graph.transitive_importers(["src/shop/util.py"])
    assert distances["src/shop/core.py"] == 1
    assert distances["lazy.py"] == 1
    assert distances["src/shop/__init__.py"] == 2
    assert distances["app.py"] == 3
    assert "src/shop/util.py" not in distances


def test_symbol_consumers_follow_init_reexports_and_module_attribute_use() -> None:
    graph = _graph(SHOP)
    tree = MemoryTree(SHOP)
    assert graph.symbol_consumers("src/shop/core.py", "checkout", tree) == [
        "app.py",
        "src/shop/__init__.py",
        "src/shop/public.py",
    ]
    # `shop.Cart()` after `import shop`, a star import using the bare name, a direct import.
    assert graph.symbol_consumers("src/shop/core.py", "Cart", tree) == [
        "app.py",
        "src/shop/__init__.py",
        "src/shop/api.py",
        "src/shop/star.py",
        "src/shop/sub/deep.py",
    ]
    assert graph.symbol_consumers("src/shop/core.py", "unused_name", tree) == []
