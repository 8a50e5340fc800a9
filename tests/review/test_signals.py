"""AI-generated likelihood from code signals: each rises on its pattern, not on plain code."""

from __future__ import annotations

from prflow.review.import_names import (
    declared_dependencies,
    imported_modules,
    local_modules,
    unresolved_imports,
)
from prflow.review.signals import (
    AddedCode,
    ai_likelihood,
    comment_signal,
    mirrored_tests_signal,
    naming_signal,
    uniformity_signal,
)

PLAIN = AddedCode(
    "app/calc.py",
    [
        "def area(w, h):",
        "    return w * h",
        "",
        "def parse(text):",
        "    parts = text.split(',')",
        "    if not parts:",
        "        raise ValueError(text)",
        "    cleaned = [p.strip() for p in parts]",
        "    return [int(p) for p in cleaned if p]",
    ],
)
VERBOSE = AddedCode(
    "app/gen.py",
    [
        "def calculate_the_total_price_for_the_user(user_shopping_cart_items):",
        "    # calculate the total price for the user",
        "    total_price_of_all_items_in_cart = 0",
        "    # loop over the user shopping cart items",
        "    for item in user_shopping_cart_items:",
        "        # add the item price to the total price",
        "        total_price_of_all_items_in_cart += item.price",
        "    return total_price_of_all_items_in_cart",
    ],
)


def test_over_descriptive_names_and_restating_comments_score_high_and_plain_code_low() -> None:
    assert naming_signal([VERBOSE]).score > 0.9
    assert naming_signal([PLAIN]).score == 0.0
    assert comment_signal([VERBOSE]).score > 0.7
    assert comment_signal([PLAIN]).score == 0.0


def test_functions_of_the_same_length_are_uniform_and_varied_ones_are_not() -> None:
    same = AddedCode(
        "a.py", [line for n in range(5) for line in (f"def f{n}(x):", "    y = x", "    return y")]
    )
    varied = AddedCode(
        "b.py",
        [
            "def a():",
            "    return 1",
            "def b():",
            *[f"    x{n} = {n}" for n in range(9)],
            "    return x0",
            "def c():",
            "    x = 1",
            "    return x",
            "def d():",
            *[f"    y{n} = {n}" for n in range(20)],
            "    return y0",
        ],
    )
    assert uniformity_signal([same]).score == 1.0
    assert uniformity_signal([varied]).score < 0.3
    assert uniformity_signal([PLAIN]).detail.endswith("too few to judge")


def test_tests_that_repeat_the_implementation_are_caught() -> None:
    impl = AddedCode("app/tax.py", ["    return round(amount * rate * (1 + surcharge), 2)"])
    mirror = AddedCode(
        "tests/test_tax.py",
        ["    expected = 1", "    return round(amount * rate * (1 + surcharge), 2)"],
        is_test=True,
    )
    behaviour = AddedCode(
        "tests/test_tax.py", ["    assert tax(100, 0.2, 0) == 20.0"], is_test=True
    )
    assert mirrored_tests_signal([impl, mirror]).score == 1.0
    assert mirrored_tests_signal([impl, behaviour]).score == 0.0


def test_imports_found_nowhere_are_unresolved() -> None:
    lines = [
        "import os",
        "import requests",
        "from yaml import safe_load",
        "from pkg.helpers import go",
        "from fancy_magic_lib import wand",
        "from . import sibling",
    ]
    imports = imported_modules(lines, "python")
    assert imports == ["os", "requests", "yaml", "pkg", "fancy_magic_lib"]
    declared = declared_dependencies(
        {
            "pyproject.toml": '[project]\ndependencies = ["requests>=2", "PyYAML>=6"]\n',
            "web/package.json": '{"dependencies": {"@scope/ui": "1.0.0", "lodash": "4"}}',
        }
    )
    local = local_modules(["src/pkg/helpers.py", "app.py"])
    assert unresolved_imports(imports, local, declared) == ["fancy_magic_lib"]
    js = imported_modules(
        ["import x from '@scope/ui/button';", "const fs = require('node:fs');",
         "import y from './y';", "import z from 'left-pad';"],
        "typescript",
    )  # fmt: skip
    assert js == ["@scope/ui", "fs", "left-pad"]
    assert unresolved_imports(js, set(), declared) == ["left-pad"]


def test_the_likelihood_is_the_weighted_mean_of_its_signals() -> None:
    low, signals = ai_likelihood([PLAIN], ["os"], [])
    assert low == 0.0 and [s.name for s in signals] == [
        "naming",
        "comments",
        "uniformity",
        "imports",
        "tests",
    ]
    high, _ = ai_likelihood([VERBOSE], ["fancy_magic_lib"], ["fancy_magic_lib"])
    assert high > 0.5
