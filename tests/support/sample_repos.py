"""Real git repositories with known changes, for workflow and CLI tests.

``build_sample_repo`` makes a two-commit repository (tag ``base`` and branch
``feature``) whose change holds one of every breaking-change kind in Python and
TypeScript, a doc naming a removed symbol, a CI config change, and consumers.
The expected findings are listed next to it so tests compare against them.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_SYSTEM": os.devnull,
}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    )
    return done.stdout.strip()


def write_files(repo: Path, files: Mapping[str, str | bytes | None]) -> None:
    """Write (or delete, for None) files relative to the repo root."""
    for rel, content in files.items():
        path = repo / rel
        if content is None:
            if path.exists() or path.is_symlink():
                path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, "--allow-empty")
    return git(repo, "rev-parse", "HEAD")


def init_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    return path


BASE_FILES: dict[str, str | bytes | None] = {
    "shop/__init__.py": "from .cart import Cart, total\nfrom .pricing import discount, legacy_rate\n\n__all__ = ['Cart', 'total', 'discount', 'legacy_rate']\n",
    "shop/cart.py": (
        "class Cart:\n"
        "    def __init__(self) -> None:\n"
        "        self.items: list[float] = []\n\n"
        "    def add(self, price: float) -> None:\n"
        "        self.items.append(price)\n\n"
        "    def clear(self) -> None:\n"
        "        self.items = []\n\n\n"
        "def total(cart: Cart, tax: float = 0.0) -> float:\n"
        "    return sum(cart.items) * (1 + tax)\n"
    ),
    "shop/pricing.py": (
        "def discount(amount: float, percent: float) -> float:\n"
        "    return amount * (1 - percent / 100)\n\n\n"
        "def legacy_rate() -> float:\n"
        "    return 0.2\n\n\n"
        "def shipping_cost(weight: float) -> float:\n"
        "    return weight * 1.5\n"
    ),
    "app/checkout.py": (
        "from shop import Cart, total\n"
        "from shop.pricing import shipping_cost\n\n\n"
        "def checkout(cart: Cart) -> float:\n"
        "    cart.clear()\n"
        "    return total(cart) + shipping_cost(1.0)\n"
    ),
    "app/report.py": "from app.checkout import checkout\n\n\ndef run() -> float:\n    return checkout(None)  # type: ignore[arg-type]\n",
    "tests/test_cart.py": "from shop.cart import Cart\n\n\ndef test_add() -> None:\n    c = Cart()\n    c.add(1.0)\n    assert c.items == [1.0]\n",
    "web/src/api.ts": (
        "export interface User { id: number; name: string }\n\n"
        "export function fetchUser(id: number): Promise<User> {\n"
        "  return Promise.resolve({ id, name: 'x' });\n}\n\n"
        "export function formatName(user: User): string {\n  return user.name;\n}\n\n"
        "export const VERSION = '1';\n"
    ),
    "web/src/index.ts": "export { fetchUser, formatName } from './api';\n",
    "web/src/view.tsx": (
        "import { fetchUser, formatName } from './api';\n\n"
        "export function View(): string {\n  void fetchUser(1);\n  return formatName({ id: 1, name: 'a' });\n}\n"
    ),
    "web/src/page.ts": "import { formatName } from './index';\n\nexport const title = formatName({ id: 2, name: 'b' });\n",
    "docs/pricing.md": "# Pricing\n\nUse `legacy_rate()` for the old tax rate.\n\nShipping uses `shipping_cost`.\n",
    "README.md": "# shop\n",
    ".github/workflows/ci.yml": "on: push\njobs: {}\n",
}

HEAD_CHANGES: dict[str, str | bytes | None] = {
    # Python: method removed, parameter made required, function removed (re-export too), return type changed
    "shop/cart.py": (
        "class Cart:\n"
        "    def __init__(self) -> None:\n"
        "        self.items: list[float] = []\n\n"
        "    def add(self, price: float) -> None:\n"
        "        self.items.append(price)\n\n\n"
        "def total(cart: Cart, tax: float) -> float:\n"
        "    return sum(cart.items) * (1 + tax)\n"
    ),
    "shop/__init__.py": "from .cart import Cart, total\nfrom .pricing import discount\n\n__all__ = ['Cart', 'total', 'discount']\n",
    "shop/pricing.py": (
        "def discount(amount: float, percent: float) -> int:\n"
        "    return int(amount * (1 - percent / 100))\n\n\n"
        "def shipping_cost(weight: float) -> float:\n"
        "    return weight * 1.5\n"
    ),
    # TypeScript: function renamed, parameter added
    "web/src/api.ts": (
        "export interface User { id: number; name: string }\n\n"
        "export function loadUser(id: number): Promise<User> {\n"
        "  return Promise.resolve({ id, name: 'x' });\n}\n\n"
        "export function formatName(user: User, upper: boolean): string {\n"
        "  return upper ? user.name.toUpperCase() : user.name;\n}\n\n"
        "export const VERSION = '1';\n"
    ),
    "web/src/index.ts": "export { loadUser, formatName } from './api';\n",
    ".github/workflows/ci.yml": "on: [push, pull_request]\njobs: {}\n",
}

EXPECTED_BREAKING = {
    ("shop/cart.py", "Cart.clear", "removed_export"),
    ("shop/cart.py", "total", "changed_signature"),
    ("shop/pricing.py", "legacy_rate", "removed_export"),
    ("web/src/api.ts", "fetchUser", "renamed_export"),
    ("web/src/api.ts", "formatName", "changed_signature"),
}


def build_sample_repo(path: Path) -> Path:
    """The sample repository: ``base`` tag at the first commit, ``feature`` branch with the change."""
    repo = init_repo(path)
    write_files(repo, BASE_FILES)
    commit_all(repo, "base")
    git(repo, "tag", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    write_files(repo, HEAD_CHANGES)
    commit_all(repo, "change the shop API")
    git(repo, "checkout", "-q", "main")
    return repo


GROWN_FILES = 20
GROWN_LINES = 20


def grow_sample_change(repo: Path) -> Path:
    """The sample change with twenty more new modules of twenty lines each: a change large
    enough for the review depths' full bounds (the sample alone is sized down)."""
    git(repo, "checkout", "-q", "feature")
    write_files(
        repo,
        {
            f"shop/rules_{i}.py": "".join(f"RULE_{n} = {n}\n" for n in range(GROWN_LINES))
            for i in range(GROWN_FILES)
        },
    )
    commit_all(repo, "add pricing rules")
    git(repo, "checkout", "-q", "main")
    return repo
