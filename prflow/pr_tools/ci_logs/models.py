"""What one failing test looks like, whichever runner reported it."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

MAX_MESSAGE_LINES = 6
MAX_MESSAGE_CHARS = 600


class Framework(StrEnum):
    pytest = "pytest"
    jest = "jest"
    vitest = "vitest"
    go = "go"


class TestFailure(BaseModel):
    """A failing test with where it failed and the command that runs it alone."""

    __test__ = False  # not a pytest test class, despite the name

    framework: Framework
    test: str = Field(description="The runner's own name for the test (pytest node id, ...)")
    file: str | None = Field(default=None, description="File of the failing line, as logged")
    line: int | None = Field(default=None, description="1-based line number, when logged")
    message: str = Field(description="The assertion or error, a few lines at most")
    rerun: str = Field(description="Shell command that runs just this test")

    @property
    def location(self) -> str:
        if self.file is None:
            return ""
        return f"{self.file}:{self.line}" if self.line is not None else self.file


def short_message(lines: list[str]) -> str:
    """The first few meaningful lines, trimmed, within :data:`MAX_MESSAGE_CHARS`."""
    kept = [line.strip() for line in lines if line.strip()][:MAX_MESSAGE_LINES]
    text = "\n".join(kept)
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[: MAX_MESSAGE_CHARS - 3].rstrip() + "..."
    return text or "(no message in the log)"


def failing_frame(
    frames: list[tuple[str, int]], test_file: str | None
) -> tuple[str | None, int | None]:
    """Where a JavaScript test failed: the first stack frame in the test file itself, else
    the first outside ``node_modules``, else just the test file."""
    own = [frame for frame in frames if test_file and frame[0] == test_file]
    outside = [frame for frame in frames if "node_modules" not in frame[0]]
    chosen = own or outside
    return chosen[0] if chosen else (test_file, None)
