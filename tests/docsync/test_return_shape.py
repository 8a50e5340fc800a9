"""A changed return type makes a doc wrong only where the doc uses the result's shape."""

from __future__ import annotations

from prflow.analysis.breaking import find_breaking_changes
from prflow.analysis.findings import BreakingChange, BreakingKind
from prflow.changes import ChangedFile, FileStatus
from prflow.docsync.finding import find_affected_docs
from prflow.docsync.models import Bucket, Change, DocFindings, Target
from prflow.docsync.report import seen_text
from prflow.docsync.results import ResultUse, result_use, return_change
from prflow.docsync.targets import find_targets
from prflow.severity import Severity
from prflow.source_tree import MemoryTree


def _use(line: str, name: str = "fetch_page", after: str = "") -> ResultUse | None:
    at = line.index(name + "(")
    return result_use(line[:at], line[at + len(name) :] + ("\n" + after if after else ""))


def test_an_attribute_item_unpacking_or_loop_on_the_result_uses_its_shape() -> None:
    assert _use("fetch_page(url).status") is ResultUse.attribute
    assert _use(">>> client.fetch_page(url)['body']") is ResultUse.subscript
    assert _use("body, code = fetch_page(url)") is ResultUse.unpacking
    assert _use("for row in api.fetch_page(url):") is ResultUse.iteration
    assert _use("rows = [r.id for r in fetch_page(url)]") is ResultUse.iteration
    assert _use("page = await fetch_page(url)", after="print(page.title)") is ResultUse.attribute
    assert _use(">>> page = fetch_page(url)", after=">>> page[0]") is ResultUse.subscript
    assert _use("page = fetch_page(url)", after="for line in page:") is ResultUse.iteration
    assert _use("page = fetch_page(url)", after="head, body = page") is ResultUse.unpacking


def test_a_call_whose_result_is_unused_printed_or_passed_on_does_not() -> None:
    assert _use("fetch_page(url)") is None
    assert _use("print(fetch_page(url))") is None
    assert _use("save(fetch_page(url)).close()") is None  # save's result, not fetch_page's
    assert _use("page = fetch_page(url)", after="print(page)\nstore(page)") is None
    assert _use("ok = fetch_page(url) == other") is None
    assert _use("page = fetch_page(url)", after="page = other()\npage.title") is None


def test_what_changed_in_the_return_type() -> None:
    assert return_change("get(url) -> dict", "get(url, *, t=1) -> Response") == (
        "return type `dict` -> `Response`"
    )
    assert return_change(None, None, "return type changed from string to number") == (
        "return type `string` -> `number`"
    )
    # the same type spelled otherwise, an annotation added or removed: no shape change
    assert return_change("f() -> Optional[List[str]]", "f() -> list[str] | None") is None
    assert return_change("f() -> dict", "f()") is None
    assert return_change("f()", "f() -> dict") is None


def _breaking() -> list[BreakingChange]:
    return [
        BreakingChange(
            file="acme/pages.py",
            symbol="fetch_page",
            kind=BreakingKind.changed_type,
            severity=Severity.low,
            language="python",
            detail="return type changed from dict to Page",
            before="fetch_page(url)",
            after="fetch_page(url)",
        ),
        BreakingChange(
            file="acme/pages.py",
            symbol="Client.list_pages",
            kind=BreakingKind.changed_signature,
            severity=Severity.medium,
            language="python",
            detail="parameter `limit` became keyword-only",
            before="Client.list_pages(self, limit=10) -> list",
            after="Client.list_pages(self, *, limit=10) -> Iterator[Page]",
        ),
    ]


DOCS = {
    "docs/attr.md": "# Pages\n\n```python\ntitle = fetch_page(url)['title']\n```\n",
    "docs/bound.rst": (
        "Pages\n=====\n\n.. code-block:: python\n\n    page = fetch_page(url)\n"
        "    print(page['title'])\n"
    ),
    "docs/plain.md": "# Pages\n\n```python\nfetch_page(url)\nprint(fetch_page(url))\n```\n",
    "docs/prose.md": "# Pages\n\nCall `fetch_page` to get a page.\n",
    "docs/listed.md": (
        "# Listing\n\n```python\npages = client.list_pages(5)\nprint(len(pages))\n```\n"
    ),
    "docs/sliced.md": "# Listing\n\n```python\nfirst = client.list_pages()[0]\n```\n",
}


def _findings() -> tuple[list[Target], DocFindings]:
    tree = MemoryTree({"acme/pages.py": "def fetch_page(url): ...\n", **DOCS})
    targets = find_targets([], _breaking(), tree, tree)
    return targets, find_affected_docs(targets, tree)


def test_targets_carry_the_return_change_of_a_changed_type_or_signature() -> None:
    targets, _ = _findings()
    by_name = {t.name: t for t in targets}
    assert by_name["fetch_page"].change == Change.modified
    assert by_name["fetch_page"].returns == "return type `dict` -> `Page`"
    assert by_name["Client.list_pages"].change == Change.signature
    assert by_name["Client.list_pages"].returns == "return type `list` -> `Iterator[Page]`"


def test_only_docs_using_the_result_must_be_updated_and_the_evidence_says_how() -> None:
    _, findings = _findings()
    docs = {doc.path: doc for doc in findings.docs}
    assert docs["docs/attr.md"].bucket == Bucket.must_update
    assert docs["docs/bound.rst"].bucket == Bucket.must_update
    evidence = docs["docs/bound.rst"].evidence[0]
    assert evidence.line == 6
    assert seen_text(evidence) == (" (subscript of the result; return type `dict` -> `Page`)")
    # a plain call, a printed result, a prose mention: the change cannot show there
    assert docs["docs/plain.md"].bucket == Bucket.probably_fine
    assert docs.get("docs/prose.md") is None or docs["docs/prose.md"].bucket == (
        Bucket.probably_fine
    )
    # a call passing the changed parameter is stale for it; one slicing the result for that
    assert docs["docs/listed.md"].bucket == Bucket.must_update
    assert docs["docs/listed.md"].evidence[0].seen == ["limit"]
    assert docs["docs/listed.md"].evidence[0].returns is None
    sliced = docs["docs/sliced.md"].evidence[0]
    assert docs["docs/sliced.md"].bucket == Bucket.must_update
    assert sliced.returns == "subscript of the result; return type `list` -> `Iterator[Page]`"


def test_a_property_that_became_a_method_makes_every_read_of_it_wrong() -> None:
    base = "class Arrow:\n    @property\n    def timestamp(self) -> int: ...\n"
    head = "class Arrow:\n    def timestamp(self) -> float: ...\n"
    docs = {
        "index.rst": "Get a timestamp::\n\n    >>> a = arrow.utcnow()\n    >>> a.timestamp\n",
        "prose.rst": "Timestamps are numbers; see the timestamp section.\n",
    }
    before = MemoryTree({"arrow/__init__.py": "", "arrow/arrow.py": base, **docs})
    after = MemoryTree({"arrow/__init__.py": "", "arrow/arrow.py": head, **docs})
    changed = [ChangedFile(path="arrow/arrow.py", status=FileStatus.modified)]
    breaking = find_breaking_changes(changed, before, after, None, None)
    targets = find_targets(changed, breaking, before, after)
    found = find_affected_docs(targets, after)
    timestamp = next(t for t in targets if t.name == "Arrow.timestamp")
    assert timestamp.reads_break
    # arrow 1.0: ``a.timestamp`` is a bound method now, no number
    assert {d.path: d.bucket for d in found.docs if d.bucket != Bucket.probably_fine} == {
        "index.rst": Bucket.must_update
    }
