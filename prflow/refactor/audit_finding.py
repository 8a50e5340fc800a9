"""One thing the consistency auditor found: what both the auditor and its React checks report.

Its own module so :mod:`prflow.refactor.audit` and
:mod:`prflow.refactor.react_audit` both import it and neither imports the other
back.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class AuditFinding(BaseModel):
    check: str = Field(
        description="orphaned_import, signature, unawaited, cycle, layer, react:<id>"
    )
    path: str
    line: int = 0
    message: str
    error: bool = True
    target: str = Field(
        default="", description="The file the finding depends on (the imported or called one)"
    )

    def text(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"
