"""Renderings of a review: the GitHub review and its inline comments, the sticky summary
comment, Markdown, JSON and SARIF. Pure functions of the :class:`ReviewReport`."""
