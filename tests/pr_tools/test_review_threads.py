"""Unresolved-thread filtering and pages: bots in by default, excluded authors out."""

from __future__ import annotations

import pytest

from prflow.errors import UserError
from prflow.pr_tools.pagination import paginate
from prflow.pr_tools.review_threads import ReviewThread, ThreadComment, unresolved_report


def _thread(index: int, *authors: str, resolved: bool = False) -> ReviewThread:
    return ReviewThread(
        id=f"T{index}",
        path="app.py",
        line=index,
        start_line=None,
        side="RIGHT",
        is_resolved=resolved,
        is_outdated=False,
        comments=[
            ThreadComment(
                id=index * 10 + n,
                author=author,
                author_type="Bot" if author == "coderabbitai" else "User",
                author_association="NONE",
                body=f"comment {n} by {author}",
                url=f"https://example.invalid/{index}/{n}",
                created_at="2026-01-01T00:00:00Z",
            )
            for n, author in enumerate(authors)
        ],
    )


THREADS = [
    _thread(1, "alice", "bob"),
    _thread(2, "coderabbitai"),
    _thread(3, "alice", resolved=True),
    _thread(4, "bob", "coderabbitai"),
]


def test_unresolved_threads_include_bots_by_default() -> None:
    report = unresolved_report("o/r#1", THREADS)
    assert [t.id for t in report.threads.items] == ["T1", "T2", "T4"]
    assert (report.total_threads, report.unresolved_threads) == (4, 3)


def test_excluded_authors_drop_their_threads_and_their_replies() -> None:
    # GraphQL spells bots without "[bot]"; people type it either way.
    report = unresolved_report("o/r#1", THREADS, exclude_authors=["CodeRabbitAI[bot]", " "])
    assert [t.id for t in report.threads.items] == ["T1", "T4"]
    assert [c.author for c in report.threads.items[1].comments] == ["bob"]
    assert report.excluded_authors == ["CodeRabbitAI[bot]"]


def test_pages_say_outright_whether_more_exist() -> None:
    report = unresolved_report("o/r#1", THREADS, page=2, page_size=2)
    info = report.threads.pagination
    assert [t.id for t in report.threads.items] == ["T4"]
    assert (info.page, info.total_pages, info.has_next, info.has_previous) == (2, 2, False, True)
    assert info.total_items == 3


def test_an_empty_list_is_one_empty_page_and_a_page_past_the_end_is_a_clear_error() -> None:
    empty = paginate(list[int](), 1, 20)
    assert (empty.items, empty.pagination.total_pages, empty.pagination.has_next) == ([], 1, False)
    with pytest.raises(UserError, match=r"page 3 is past the last page \(2\)"):
        paginate([1, 2, 3], 3, 2)
    with pytest.raises(UserError, match="page size"):
        paginate([1], 1, 0)
