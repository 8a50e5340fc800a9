"""Pages for AI and human callers: explicit ``has_next`` and ``total_pages``, never implied.

A caller that has to compute whether more exists will sometimes get it
wrong; every paged answer therefore says so outright (seed 001, decision 9).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

from pydantic import BaseModel, Field

from prflow.errors import UserError

T = TypeVar("T")

MAX_PAGE_SIZE = 100


class PageInfo(BaseModel):
    page: int = Field(description="1-based page number")
    page_size: int
    total_items: int
    total_pages: int = Field(description="At least 1, even when there are no items")
    has_next: bool
    has_previous: bool


class Paged(BaseModel, Generic[T]):
    items: list[T]
    pagination: PageInfo


def paginate(items: Sequence[T], page: int, page_size: int) -> Paged[T]:
    """Page ``page`` (1-based) of ``items``; a page past the end is a :class:`UserError`."""
    if page < 1:
        raise UserError(f"page must be 1 or more, not {page}")
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise UserError(f"page size must be between 1 and {MAX_PAGE_SIZE}, not {page_size}")
    total_pages = max((len(items) + page_size - 1) // page_size, 1)
    if page > total_pages:
        raise UserError(
            f"page {page} is past the last page ({total_pages}); ask for a page from 1 to "
            f"{total_pages}"
        )
    start = (page - 1) * page_size
    return Paged[T](
        items=list(items[start : start + page_size]),
        pagination=PageInfo(
            page=page,
            page_size=page_size,
            total_items=len(items),
            total_pages=total_pages,
            has_next=page < total_pages,
            has_previous=page > 1,
        ),
    )
