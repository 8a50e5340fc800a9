"""How likely the added code is AI-generated, from signals in the code itself (no model).

Five signals, each scored 0..1 from the lines a PR adds: over-descriptive
names, comments that restate the code, functions of suspiciously uniform
length, imports of modules that exist nowhere (not in the repository, the
standard library or the declared dependencies), and tests that repeat the
implementation's expressions instead of checking behaviour. The likelihood
is their weighted mean. It never triggers a separate pass: it makes the plan
more sceptical and weights findings (see synthesis).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from prflow.review.models import AiSignal

WEIGHTS = {
    "naming": 0.2,
    "comments": 0.25,
    "uniformity": 0.2,
    "imports": 0.2,
    "tests": 0.15,
}
LONG_NAME_CHARS = 24
LONG_NAME_WORDS = 4
MIN_FUNCTIONS_FOR_UNIFORMITY = 4
MIN_MIRRORED_CHARS = 20
_NOT_MIRRORS = ("import ", "from ", "def ", "assert ", "it(", "test(")
"""Test lines that share text with the code by necessity, not by copying it."""

_IDENTIFIER_DEFS = re.compile(
    r"\b(?:def|class|function|const|let|var)\s+([A-Za-z_$][\w$]*)|^\s*([A-Za-z_][\w]*)\s*(?::[^=]+)?=[^=]"
)
_COMMENT = re.compile(r"^\s*(#|//|/\*|\*)\s?(.*)$")
_WORD = re.compile(r"[a-z]+")
_FUNCTION_START = re.compile(
    r"^(\s*)(?:async\s+)?(?:def\s+\w+|function\s+\w+|(?:export\s+)?(?:const|let)\s+\w+\s*=\s*(?:async\s*)?\()"
)


@dataclass(frozen=True)
class AddedCode:
    """The lines one file gains in the PR."""

    path: str
    lines: Sequence[str]
    is_test: bool = False


def _clamp(value: float) -> float:
    return max(0.0, min(1.0, value))


def _name_words(name: str) -> int:
    snake = [part for part in name.split("_") if part]
    camel = re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)
    return max(len(snake), len(camel))


def naming_signal(files: Iterable[AddedCode]) -> AiSignal:
    names = [
        match.group(1) or match.group(2)
        for code in files
        for line in code.lines
        for match in _IDENTIFIER_DEFS.finditer(line)
        if match.group(1) or match.group(2)
    ]
    long_names = [
        n for n in names if len(n) >= LONG_NAME_CHARS or _name_words(n) >= LONG_NAME_WORDS
    ]
    ratio = len(long_names) / len(names) if names else 0.0
    example = f", e.g. {long_names[0]}" if long_names else ""
    return AiSignal(
        name="naming",
        score=round(_clamp(ratio / 0.3), 3),
        detail=f"{len(long_names)} of {len(names)} new names are over-descriptive{example}",
    )


_FILLER = frozenset({"a", "an", "the", "to", "of", "in", "on", "for", "over", "and", "is", "it"})


def _restates(comment: str, next_code: str) -> bool:
    """Whether most words of ``comment`` are names in the code line below it."""
    words = set(_WORD.findall(comment.lower())) - _FILLER
    code_words = set(_WORD.findall(re.sub(r"([a-z])([A-Z])", r"\1 \2", next_code).lower()))
    code_words |= {w for token in code_words for w in token.split("_")}
    return len(words) >= 2 and len(words & code_words) / len(words) >= 0.6


def comment_signal(files: Iterable[AddedCode]) -> AiSignal:
    comments = restating = code = 0
    for item in files:
        lines = [line for line in item.lines if line.strip()]
        for index, line in enumerate(lines):
            match = _COMMENT.match(line)
            if match is None:
                code += 1
                continue
            comments += 1
            following = next((c for c in lines[index + 1 :] if not _COMMENT.match(c)), "")
            if _restates(match.group(2), following):
                restating += 1
    density = comments / code if code else 0.0
    score = 0.5 * _clamp((density - 0.15) / 0.35) + 0.5 * (
        _clamp(restating / comments / 0.5) if comments else 0.0
    )
    return AiSignal(
        name="comments",
        score=round(score, 3),
        detail=(
            f"{comments} comment lines per {code} code lines; {restating} restate the next line"
        ),
    )


def function_lengths(lines: Sequence[str]) -> list[int]:
    """Lengths (in non-blank lines) of the functions that start in ``lines``."""
    starts = [
        (i, len(m.group(1))) for i, line in enumerate(lines) if (m := _FUNCTION_START.match(line))
    ]
    lengths: list[int] = []
    for position, (start, indent) in enumerate(starts):
        stop = starts[position + 1][0] if position + 1 < len(starts) else len(lines)
        body = [
            line
            for line in lines[start + 1 : stop]
            if line.strip() and (len(line) - len(line.lstrip())) > indent
        ]
        lengths.append(len(body) + 1)
    return lengths


def uniformity_signal(files: Iterable[AddedCode]) -> AiSignal:
    lengths = [n for code in files if not code.is_test for n in function_lengths(code.lines)]
    if len(lengths) < MIN_FUNCTIONS_FOR_UNIFORMITY:
        return AiSignal(
            name="uniformity",
            score=0.0,
            detail=f"{len(lengths)} new functions: too few to judge",
        )
    mean = statistics.fmean(lengths)
    spread = statistics.pstdev(lengths) / mean if mean else 0.0
    return AiSignal(
        name="uniformity",
        score=round(_clamp(1 - spread / 0.5), 3),
        detail=f"{len(lengths)} new functions, {mean:.1f} lines on average, spread {spread:.2f}",
    )


def import_signal(new_imports: Sequence[str], unresolved: Sequence[str]) -> AiSignal:
    """``unresolved``: imported modules found neither in the repository, nor in the standard
    library, nor among the declared dependencies."""
    ratio = len(unresolved) / len(new_imports) if new_imports else 0.0
    shown = ", ".join(sorted(unresolved)[:3])
    return AiSignal(
        name="imports",
        score=round(_clamp(ratio * 2), 3),
        detail=(
            f"{len(unresolved)} of {len(new_imports)} new imports resolve nowhere"
            + (f" ({shown})" if shown else "")
        ),
    )


def _normalised(line: str) -> str:
    return re.sub(r"\s+", " ", line).strip()


def mirrored_tests_signal(files: Sequence[AddedCode]) -> AiSignal:
    def long_lines(code: AddedCode) -> list[str]:
        normalised = (_normalised(line) for line in code.lines)
        return [line for line in normalised if len(line) >= MIN_MIRRORED_CHARS]

    source = {line for code in files if not code.is_test for line in long_lines(code)}
    test_lines = [
        line
        for code in files
        if code.is_test
        for line in long_lines(code)
        if not line.startswith(_NOT_MIRRORS)
    ]
    mirrored = [line for line in test_lines if line in source]
    ratio = len(mirrored) / len(test_lines) if test_lines else 0.0
    return AiSignal(
        name="tests",
        score=round(_clamp(ratio / 0.3), 3),
        detail=f"{len(mirrored)} of {len(test_lines)} new test lines repeat implementation code",
    )


def ai_likelihood(
    files: Sequence[AddedCode], new_imports: Sequence[str], unresolved_imports: Sequence[str]
) -> tuple[float, list[AiSignal]]:
    """The weighted likelihood (0..1) that the added code is AI-generated, and its signals."""
    signals = [
        naming_signal(files),
        comment_signal(files),
        uniformity_signal(files),
        import_signal(new_imports, unresolved_imports),
        mirrored_tests_signal(files),
    ]
    score = sum(WEIGHTS[s.name] * s.score for s in signals)
    return round(_clamp(score), 3), signals
