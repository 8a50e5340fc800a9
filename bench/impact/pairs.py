"""The release pairs the benchmark turns into pull requests.

Each pair was chosen for real API breakage between the two releases, so the
breaking-change checks have something to find: httpx 0.28 dropped the
``proxies``/``app``/``cert`` keywords; date-fns 4 reworked its date argument
types for time-zone support.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Language = Literal["python", "typescript"]


@dataclass(frozen=True)
class Pair:
    """Two released versions of one package: ``base`` is the older, ``head`` the newer."""

    package: str
    base_version: str
    head_version: str

    @property
    def language(self) -> Language:
        raise NotImplementedError

    @property
    def label(self) -> str:
        return f"{self.package} {self.base_version}→{self.head_version}"

    @property
    def slug(self) -> str:
        """A directory name for this pair's repo and state."""
        raw = f"{self.language}-{self.package}-{self.base_version}-{self.head_version}"
        return re.sub(r"[^A-Za-z0-9.]+", "-", raw).strip("-")


@dataclass(frozen=True)
class PythonPair(Pair):
    """A PyPI release pair; ``import_package`` is the package griffe checks.

    ``archive`` is what the releases are read from: their ``sdist`` or, cheaper to fetch,
    their pure-Python ``wheel`` (the import package at the top, ``search_path`` ".").
    """

    import_package: str
    search_path: str = "."
    archive: str = "sdist"

    @property
    def language(self) -> Language:
        return "python"


@dataclass(frozen=True)
class TypeScriptPair(Pair):
    """An npm package pair reduced to its ``.d.ts`` files; ``entry_point`` is its public entry."""

    entry_point: str = "index.d.ts"

    @property
    def language(self) -> Language:
        return "typescript"


PYTHON_PAIR = PythonPair("httpx", "0.27.2", "0.28.1", import_package="httpx")
TYPESCRIPT_PAIR = TypeScriptPair("date-fns", "3.6.0", "4.1.0")
PAIRS: tuple[Pair, ...] = (TYPESCRIPT_PAIR, PYTHON_PAIR)

# Accuracy pairs (python -m bench.impact.accuracy): real major releases, chosen for real breakage.
ACCURACY_PAIRS: tuple[Pair, ...] = (
    PYTHON_PAIR,
    PythonPair("click", "7.1.2", "8.0.0", import_package="click", search_path="src"),
    PythonPair("werkzeug", "2.3.8", "3.0.0", import_package="werkzeug", search_path="src"),
    PythonPair("marshmallow", "3.26.1", "4.0.0", import_package="marshmallow", search_path="src"),
    PythonPair("urllib3", "1.26.20", "2.0.7", import_package="urllib3", search_path="src"),
    PythonPair("packaging", "21.3", "22.0", import_package="packaging"),
    PythonPair("networkx", "2.8.8", "3.0", import_package="networkx"),
    PythonPair("sqlalchemy", "1.4.54", "2.0.0", import_package="sqlalchemy", search_path="lib"),
    # deep class hierarchies: jinja2.nodes (Node -> Expr -> BinExpr -> Add, ...), the loaders
    PythonPair("Jinja2", "2.11.3", "3.0.0", import_package="jinja2", search_path="src"),
    TYPESCRIPT_PAIR,
    TypeScriptPair("axios", "0.27.2", "1.0.0"),
    TypeScriptPair("redux", "4.2.1", "5.0.0"),
    TypeScriptPair("rxjs", "6.6.7", "7.0.0"),
    TypeScriptPair("@types/react", "17.0.80", "18.0.0"),
    # classes and namespaces: `declare namespace Immutable { namespace List { ... } }`,
    # `declare class WebSocket` merged with `declare namespace WebSocket`, EventEmitter likewise
    TypeScriptPair("immutable", "3.8.2", "4.0.0"),
    TypeScriptPair("@types/ws", "7.4.7", "8.2.0"),
    TypeScriptPair("eventemitter3", "4.0.7", "5.0.0"),
)
