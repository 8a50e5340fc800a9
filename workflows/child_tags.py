"""Search attributes of the workflows a run starts for itself: which run, what kind, what role.

A child agent or a refactor task is part of a run, not a run: it carries ``ParentRun`` (the
run it works for; a task's executor works for the refactor run, not for the task), ``Role``
and ``Kind``, so the Web UI's saved view ``ParentRun IS NULL`` lists runs only and
``ParentRun = "<run id>"`` lists one run's helpers. Children of runs recorded before
:data:`CHILD_TAGS_PATCH` keep the attributes they were started with.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.common import SearchAttributePair, TypedSearchAttributes

with workflow.unsafe.imports_passed_through():
    from prflow import search_attributes as sa

CHILD_TAGS_PATCH = "child-run-tags-v1"
"""Patch: children are started with ParentRun and Role (and Kind where they lacked it)."""


def child_search_attributes(
    kind: str, role: str, *, before: TypedSearchAttributes | None
) -> TypedSearchAttributes | None:
    """The attributes a child started here carries (``before``: what a run recorded before
    the patch started it with)."""
    if not workflow.patched(CHILD_TAGS_PATCH):
        return before
    info = workflow.info()
    run = info.typed_search_attributes.get(sa.PARENT_RUN) or info.workflow_id
    return TypedSearchAttributes(
        [
            SearchAttributePair(sa.KIND, kind),
            SearchAttributePair(sa.ROLE, role),
            SearchAttributePair(sa.PARENT_RUN, run),
        ]
    )
