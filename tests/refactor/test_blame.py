"""Each regressed test is named with its file and the steps whose changes reach it."""

from __future__ import annotations

from prflow.refactor.blame import FailedTest, Regression, blame, file_of_test, implicated_steps

PATHS = {"tests/test_cart.py", "src/shop/cart.py", "src/tests/test_api.py", "web/cart.test.ts"}


def test_a_test_file_from_the_report_or_from_the_test_id() -> None:
    assert file_of_test("x::y", "./tests/test_cart.py", PATHS) == "tests/test_cart.py"
    assert file_of_test("tests.test_cart.TestCart::test_total", "", PATHS) == "tests/test_cart.py"
    assert file_of_test("tests.test_api::test_get", "", PATHS) == "src/tests/test_api.py"
    assert file_of_test("tests.test_cart", "", PATHS) == "tests/test_cart.py", "collection error"
    assert file_of_test("web/cart.test.ts::cart > adds", "", PATHS) == "web/cart.test.ts"
    assert file_of_test("cart adds an item::cart adds an item", "", PATHS) == ""


def test_steps_that_changed_the_test_or_what_it_reaches_are_blamed() -> None:
    failed = [
        FailedTest(test="tests.test_cart::test_total", file="tests/test_cart.py"),
        FailedTest(test="3 more tests fail", kind="count"),
    ]
    found = blame(
        failed,
        paths=PATHS,
        steps={"core": ["src/shop/cart.py"], "docs": ["README.md"]},
        reaches={"src/shop/cart.py": {"tests/test_cart.py"}},
    )
    assert found[0] == Regression(
        test="tests.test_cart::test_total", file="tests/test_cart.py", steps=["core"]
    )
    assert (
        found[0].text() == "tests.test_cart::test_total fails after (tests/test_cart.py; step core)"
    )
    assert found[1].steps == [] and "no step's files reach it" in found[1].text()
    assert implicated_steps(found) == ["core"]
