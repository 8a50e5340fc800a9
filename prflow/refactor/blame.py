"""Which test file and which steps each regressed test belongs to, for the report and the
ladder.

A test's file comes from its report (``file`` attribute), else from its id: a
path (vitest's ``src/cart.test.ts::…``) or a dotted module (pytest's
``tests.test_cart::test_total``, ``tests.test_cart.TestCart::…``, or a collection
error's bare ``tests.test_cart``). A step is implicated when it changed the
test file itself or a file the test file reaches through imports. A test that
passed before and did not run after counts as regressed: "every test that
passed before still passes" leaves no room for a test renamed or removed on
the way.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from pydantic import BaseModel, Field


class FailedTest(BaseModel):
    """A test that passed before and does not pass after, as the comparison lists it."""

    test: str
    kind: str = Field(default="regressed", description="regressed, new_failure or missing")
    file: str = Field(default="", description="From the report, where it names one")


class Regression(BaseModel):
    """A regressed test with its file and the steps whose changes reach it."""

    test: str
    kind: str = "regressed"
    file: str = ""
    steps: list[str] = Field(default_factory=list)

    def text(self) -> str:
        where = f" ({self.file}" if self.file else " ("
        steps = f"step {', '.join(self.steps)}" if self.steps else "no step's files reach it"
        what = {"missing": " did not run after", "new_failure": " (new test) fails"}.get(
            self.kind, " fails after"
        )
        return f"{self.test}{what}{where}{'; ' if self.file else ''}{steps})"


def implicated_steps(regressions: Sequence[Regression]) -> list[str]:
    return sorted({s for r in regressions for s in r.steps})


def file_of_test(test_id: str, reported: str, paths: Collection[str]) -> str:
    """The repository path of a test, or "" when nothing names one that exists."""
    if reported:
        clean = reported.removeprefix("./")
        if clean in paths:
            return clean
    head = test_id.split("::", 1)[0]
    if head in paths:
        return head
    parts = [p for p in head.split(".") if p]
    for n in range(len(parts), 0, -1):
        for root in ("", "src/"):
            candidate = root + "/".join(parts[:n]) + ".py"
            if candidate in paths:
                return candidate
    return ""


def blame(
    failed: Sequence[FailedTest],
    *,
    paths: Collection[str],
    steps: Mapping[str, Sequence[str]],
    reaches: Mapping[str, Collection[str]],
) -> list[Regression]:
    """Each failed test with its file and steps. ``steps`` maps a step to the files it
    changed; ``reaches`` maps a changed file to the test files that import it, directly or
    not."""
    out: list[Regression] = []
    for test in failed:
        where = file_of_test(test.test, test.file, paths) or test.file
        implicated = sorted(
            step
            for step, changed in steps.items()
            if where and any(where == f or where in reaches.get(f, ()) for f in changed)
        )
        out.append(Regression(test=test.test, kind=test.kind, file=where, steps=implicated))
    return out
