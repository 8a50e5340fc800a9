"""``python -m bench.review_merge``: how often synthesis merges one issue told twice.

Inputs:

1. ``pairs.json``: 34 finding pairs at nearby lines of one file, written in
   the style of real review comments; 16 describe one issue in other words,
   18 are two different issues near each other (labelled by hand).
2. The findings of the scripted review fixtures (``tests/support/review_runs``):
   distinct issues, so every merge among them is a false merge.

Each pair is judged by the rule synthesis used before (title words, Jaccard
≥ 0.5; the anchor) and by the rule it uses now (that, or TF-IDF cosine of
title and body ≥ ``SAME_MEANING``). Printed last: merges and false merges of
both rules. The threshold was chosen on these same pairs (no held-out set).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from prflow.review.similarity import MeaningIndex, finding_words
from prflow.review.synthesis import NEAR_TITLE_SIMILARITY, SAME_MEANING, title_similarity
from tests.support import review_runs

PAIRS = Path(__file__).with_name("pairs.json")
Text = tuple[str, str]


def _judge(pairs: list[tuple[Text, Text]], corpus: list[Text]) -> tuple[list[bool], list[bool]]:
    """(old rule, new rule) verdict per pair: True means merged."""
    index = MeaningIndex([finding_words(title, body) for title, body in corpus])
    old, new = [], []
    for (ta, ba), (tb, bb) in pairs:
        by_title = title_similarity(ta, tb) >= NEAR_TITLE_SIMILARITY
        cosine = index.cosine(finding_words(ta, ba), finding_words(tb, bb))
        old.append(by_title)
        new.append(by_title or cosine >= SAME_MEANING)
    return old, new


def main() -> None:
    labelled = json.loads(PAIRS.read_text())["pairs"]
    pairs = [
        ((p["a"]["title"], p["a"]["body"]), (p["b"]["title"], p["b"]["body"])) for p in labelled
    ]
    corpus = [text for pair in pairs for text in pair]
    old, new = _judge(pairs, corpus)
    same = [bool(p["same"]) for p in labelled]

    fixtures = [
        value
        for value in vars(review_runs).values()
        if isinstance(value, dict) and {"title", "body", "file", "line_start"} <= value.keys()
    ]
    texts = [(f["title"], f["body"]) for f in fixtures]
    fixture_pairs = list(itertools.combinations(texts, 2))
    f_old, f_new = _judge(fixture_pairs, texts)

    def rate(verdicts: list[bool], want: bool) -> str:
        chosen = [v for v, s in zip(verdicts, same, strict=True) if s == want]
        return f"{sum(chosen)}/{len(chosen)}"

    print(f"labelled pairs: {len(pairs)} ({sum(same)} one issue, {len(same) - sum(same)} two)")
    print(f"scripted review fixtures: {len(fixtures)} findings, {len(fixture_pairs)} pairs")
    print(f"{'rule':<34}{'merges':>10}{'false merges':>15}{'fixture false merges':>23}")
    for name, labelled_v, fixture_v in (
        ("titles (Jaccard >= 0.5), before", old, f_old),
        (f"titles or TF-IDF >= {SAME_MEANING}, now", new, f_new),
    ):
        fixture = f"{sum(fixture_v)}/{len(fixture_v)}"
        print(f"{name:<34}{rate(labelled_v, True):>10}{rate(labelled_v, False):>15}{fixture:>23}")
    print(
        f"merges now/before: {sum(n for n, s in zip(new, same, strict=True) if s)} vs "
        f"{sum(o for o, s in zip(old, same, strict=True) if s)}; false merges "
        f"{sum(n for n, s in zip(new, same, strict=True) if not s)} vs "
        f"{sum(o for o, s in zip(old, same, strict=True) if not s)}"
    )


if __name__ == "__main__":
    main()
