"""A small real Python project with a real pytest suite, for workspace and test-run tests.

``shop/storage.py`` has sync file helpers; ``tests/`` holds a passing test, a
test that fails at the base commit (``test_known_broken``), and one that the
edits in the tests break or fix. Tests declare pytest as their test dependency
in ``pyproject.toml`` (``[project.optional-dependencies] test``).
"""

from __future__ import annotations

from pathlib import Path

from tests.support.sample_repos import commit_all, init_repo, write_files

FILES: dict[str, str | bytes | None] = {
    "pyproject.toml": (
        '[project]\nname = "shop"\nversion = "0.1.0"\ndependencies = []\n\n'
        '[project.optional-dependencies]\ntest = ["pytest>=7"]\n'
    ),
    "shop/__init__.py": "",
    "shop/storage.py": (
        "from pathlib import Path\n\n\n"
        "def read_item(path: Path) -> str:\n    return path.read_text()\n\n\n"
        "def write_item(path: Path, text: str) -> None:\n    path.write_text(text)\n\n\n"
        "def total(prices: list[int]) -> int:\n    return sum(prices)\n"
    ),
    "shop/cart.py": (
        "from shop.storage import total\n\n\n"
        "def checkout(prices: list[int]) -> int:\n    return total(prices)\n"
    ),
    "tests/__init__.py": "",
    "tests/test_storage.py": (
        "from shop.storage import read_item, total, write_item\n\n\n"
        "def test_round_trip(tmp_path):\n"
        "    write_item(tmp_path / 'a', 'x')\n"
        "    assert read_item(tmp_path / 'a') == 'x'\n\n\n"
        "def test_total():\n    assert total([1, 2]) == 3\n\n\n"
        "def test_known_broken():\n    assert total([]) == -1\n"
    ),
    "tests/test_cart.py": (
        "from shop.cart import checkout\n\n\n"
        "def test_checkout():\n    assert checkout([2, 3]) == 5\n"
    ),
    "assets/logo.bin": b"\x00\x01binary\x00",
    "README.md": "# shop\n\nSync storage helpers.\n",
}


def build_workspace_repo(path: Path) -> tuple[Path, str]:
    """The repository and its one commit's id."""
    init_repo(path)
    write_files(path, FILES)
    return path, commit_all(path, "shop")
