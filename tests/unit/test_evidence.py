"""A model finding survives only if it quotes text that is really at (or next to) its line."""

from __future__ import annotations

import pytest

from prflow.impact.evidence import (
    MAX_REASON_CHARS,
    CitedText,
    Unreadable,
    cited_text,
    partition_findings,
    verify_finding,
)
from prflow.impact.models import FindingCategory, LlmFinding
from prflow.severity import Severity
from prflow.tools.reader import ToolError

SOURCE = """\
import requests


def fetch(url, timeout):
    response = requests.get(url,   timeout=timeout)
    response.raise_for_status()
    return response.json()


def legacy():
    return None
"""


def finding(line: int, evidence: str, *, file: str = "src/fetch.py") -> LlmFinding:
    return LlmFinding(
        title="Timeout is now required",
        category=FindingCategory.breaking,
        severity=Severity.medium,
        file=file,
        line=line,
        evidence=evidence,
        explanation="Callers without a timeout break.",
    )


@pytest.mark.parametrize(
    ("line", "evidence"),
    [
        (4, "def fetch(url, timeout):"),  # exact line
        (5, "requests.get(url, timeout=timeout)"),  # whitespace differs from the file
        (5, "  response.raise_for_status()  "),  # one line below, padded
        (6, "def fetch(url, timeout)"),  # two lines below the evidence
        (2, "def fetch(url, timeout)"),  # two lines above the evidence
        (5, "response.raise_for_status()\n    return response.json()"),  # spans lines
    ],
)
def test_accepts_evidence_on_or_near_the_cited_line(line: int, evidence: str) -> None:
    assert verify_finding(finding(line, evidence), SOURCE) is None


def test_rejects_evidence_three_lines_away() -> None:
    reason = verify_finding(finding(7, "def fetch(url, timeout)"), SOURCE)
    assert reason is not None
    assert "not found within 2 lines" in reason
    assert "src/fetch.py:7" in reason


def test_rejects_text_that_is_not_in_the_file() -> None:
    reason = verify_finding(finding(4, "def fetch(url, timeout=30):"), SOURCE)
    assert reason is not None and "not found" in reason


def test_rejects_a_missing_file() -> None:
    reason = verify_finding(finding(1, "import os", file="src/gone.py"), None)
    assert reason == "src/gone.py does not exist at head"


def test_rejects_a_line_past_the_end() -> None:
    reason = verify_finding(finding(40, "return None"), SOURCE)
    assert reason is not None and "past the end of the file (11 lines)" in reason


def test_rejects_evidence_too_short_to_mean_anything() -> None:
    reason = verify_finding(finding(4, " ( "), SOURCE)
    assert reason is not None and "too short" in reason


def test_partition_keeps_verified_and_explains_dropped() -> None:
    files = {("head", "src/fetch.py"): SOURCE}
    good = finding(10, "def legacy():")
    invented = finding(3, "import os", file="src/other.py")
    kept, rejected = partition_findings([good, invented], lambda ref, path: files.get((ref, path)))
    assert kept == [good]
    assert rejected == ["Timeout is now required: src/other.py does not exist at head"]


def test_partition_reads_the_ref_the_finding_cites() -> None:
    base_only = finding(1, "def old_api():").model_copy(update={"ref": "base"})
    texts = {("base", "src/fetch.py"): "def old_api():\n    pass\n"}
    kept, rejected = partition_findings([base_only], lambda ref, path: texts.get((ref, path)))
    assert (kept, rejected) == ([base_only], [])


def test_a_refused_path_is_a_rejection_not_an_error() -> None:
    def refuse(ref: str, path: str) -> CitedText:
        raise ToolError(f"path {path!r} escapes the repository with '..'")

    escaping = finding(1, "root:x:0:0", file="../../etc/passwd")
    kept, rejected = partition_findings([escaping], refuse)
    assert kept == []
    assert rejected == [
        "Timeout is now required: ../../etc/passwd at head was refused: "
        "path '../../etc/passwd' escapes the repository with '..'"
    ]


def test_binary_files_cannot_hold_evidence() -> None:
    text = cited_text(b"\x89PNG\r\n\x1a\n\x00\x00")
    assert isinstance(text, Unreadable) and "binary" in text.reason
    assert cited_text(None) is None
    assert cited_text(b"caf\xe9 ok") == "caf\ufffd ok"


def test_a_huge_cited_path_yields_a_bounded_reason() -> None:
    huge = finding(1, "anything", file="d/" * 5_000 + "x.py")
    _, rejected = partition_findings([huge], lambda ref, path: None)
    assert len(rejected[0]) <= MAX_REASON_CHARS
    assert "does not exist at head" in rejected[0]
