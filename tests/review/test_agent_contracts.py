"""What each review agent submits becomes typed, bounded, checked data; code holds the plan to
its rules."""

from __future__ import annotations

from prflow.changes import FileCategory, FileStatus
from prflow.review.agents.coverage import parse_gaps, uncovered_files
from prflow.review.agents.intake import code_intake, parse_intake
from prflow.review.agents.layer import LayerRole, parse_layer
from prflow.review.agents.planner import HALLUCINATION_DIMENSION, finalize_plan
from prflow.review.agents.reviewer import (
    MAX_INVESTIGATIONS,
    InvestigationRequest,
    investigation_dimension,
    parse_report,
)
from prflow.review.anatomy import ChangeCluster, DiffStats, DiffStructure, FileChange
from prflow.review.models import (
    DiffSide,
    Dimension,
    FindingSource,
    IntakeResult,
    PrMetadata,
    ReviewDepth,
)
from prflow.review.synthesis import VerdictKind

DIMENSION = Dimension(id="d1-money", name="Money", prompt="p", target_files=["app/pay.py"])


def _structure(*paths: str) -> DiffStructure:
    files = [
        FileChange(
            path=p,
            status=FileStatus.modified,
            category=FileCategory.test if p.startswith("tests/") else FileCategory.source,
            language="python",
            additions=10,
            deletions=2,
            hunks=1,
        )
        for p in paths
    ]
    clusters = [
        ChangeCluster(id=f"c{i}", name=p.rsplit("/", 1)[0], files=[p], additions=10 * i)
        for i, p in enumerate(paths, 1)
    ]
    stats = DiffStats(files=len(files), additions=10 * len(files), deletions=2 * len(files))
    return DiffStructure(
        files=files,
        clusters=clusters,
        blast_radius=[],
        blast_radius_total=0,
        dependency_graph={},
        stats=stats,
    )


def _dimension(name: str, targets: list[str], priority: int = 3) -> dict[str, object]:
    return {"name": name, "prompt": f"check {name}", "target_files": targets, "priority": priority}


def test_intake_takes_the_models_words_but_never_its_ai_likelihood() -> None:
    code = code_intake(_structure("app/pay.py"), PrMetadata(title="Fix rounding"), 0.7, [])
    assert (code.pr_type, code.complexity, code.origin) == ("bugfix", "trivial", "prflow")
    merged = parse_intake(
        {
            "pr_type": "feature",
            "complexity": "complex",
            "areas_touched": ["billing"],
            "risk_signals": ["changes rounding"],
            "confident": True,
            "ai_generated": 0.0,
        },
        code,
        escalated=True,
    )
    assert merged is not None and merged.pr_type == "feature" and merged.escalated
    assert merged.ai_generated == 0.7, "the likelihood stays code's"
    assert parse_intake({"pr_type": "mystery", "complexity": "x"}, code, escalated=False) is None
    assert parse_intake(None, code, escalated=False) is None


def test_the_plan_keeps_reviewable_targets_and_the_depths_range() -> None:
    structure = _structure("app/pay.py", "app/auth.py", "lib/util.py", "docs/x.py")
    submitted = {
        "dimensions": [
            _dimension("low", ["app/pay.py"], 5),
            _dimension("ghost", ["not/changed.py"], 1),
            _dimension("top", ["app/auth.py", "invented.py"], 1),
            _dimension("mid", ["lib/util.py"], 2),
            _dimension("extra", ["docs/x.py"], 4),
        ],
        "cross_ref_hints": ["pay and auth share a session"],
    }
    plan = finalize_plan(
        submitted,
        structure=structure,
        reviewable=["app/pay.py", "app/auth.py", "lib/util.py", "docs/x.py"],
        known_paths=["app/pay.py", "app/auth.py"],
        depth=ReviewDepth.quick,
        intake=IntakeResult(),
    )
    assert [d.name for d in plan.dimensions] == ["top", "mid", "extra"]
    assert plan.dimensions[0].target_files == ["app/auth.py"]
    assert any("ghost" in note for note in plan.notes)
    assert plan.origin == "model" and plan.cross_ref_hints == ["pay and auth share a session"]


def test_without_a_usable_plan_code_plans_from_the_clusters_and_says_so() -> None:
    structure = _structure("app/pay.py", "lib/util.py", "web/a.py")
    plan = finalize_plan(
        None,
        structure=structure,
        reviewable=["app/pay.py", "lib/util.py", "web/a.py"],
        known_paths=[],
        depth=ReviewDepth.quick,
        intake=IntakeResult(),
        planner_problem="planner stopped: USD cap",
    )
    assert plan.origin == "prflow" and "planner stopped: USD cap" in plan.notes
    assert len(plan.dimensions) == 3 and {d.target_files[0] for d in plan.dimensions} == {
        "app/pay.py",
        "lib/util.py",
        "web/a.py",
    }


def test_a_likely_ai_generated_pr_gets_an_api_existence_check() -> None:
    plan = finalize_plan(
        {"dimensions": [_dimension("only", ["app/pay.py"], 1)], "cross_ref_hints": []},
        structure=_structure("app/pay.py", "app/b.py"),
        reviewable=["app/pay.py", "app/b.py"],
        known_paths=[],
        depth=ReviewDepth.quick,
        intake=IntakeResult(ai_generated=0.8),
    )
    assert plan.ai_adjusted and plan.dimensions[-1].name == HALLUCINATION_DIMENSION


def test_a_reviewer_report_bounds_investigations_and_drops_malformed_findings() -> None:
    submitted = {
        "findings": [
            {"file": "./app/pay.py", "line_start": 3, "severity": "critical", "title": "t",
             "body": "b", "evidence": "e", "ref": "base", "category": "security"},
            {"file": "app/pay.py", "line_start": 0, "severity": "critical", "title": "t"},
            {"file": "app/pay.py", "line_start": 4, "severity": "urgent", "title": "t"},
        ],
        "investigations": [{"question": f"q{n}", "files": ["a.py"]} for n in range(4)],
    }  # fmt: skip
    report = parse_report(submitted, DIMENSION, FindingSource.reviewer)
    (finding,) = report.findings
    assert (finding.file, finding.side, finding.line_end) == ("app/pay.py", DiffSide.left, 3)
    assert finding.dimension_name == "Money" and finding.origin == "model"
    assert len(report.investigations) == MAX_INVESTIGATIONS
    assert len(report.problems) == 3  # two malformed findings, and the extra investigations
    child = investigation_dimension(DIMENSION, InvestigationRequest(question="q", files=[]), 1)
    assert child.target_files == ["app/pay.py"] and child.source == FindingSource.investigation
    assert child.name == "Money", "credited to the reviewer that asked"


def test_layer_reports_only_cite_findings_that_exist() -> None:
    known = {"a" * 16, "b" * 16}
    adversary = parse_layer(
        LayerRole.adversary,
        {
            "verdicts": [
                {"id": "a" * 16, "verdict": "confirmed", "reason": "real"},
                {"id": "c" * 16, "verdict": "challenged", "reason": "unknown id"},
                {"id": "b" * 16, "verdict": "maybe", "reason": "bad verdict"},
            ],
            "missed": [],
        },
        known,
    )
    assert [(v.fingerprint, v.verdict) for v in adversary.verdicts] == [
        ("a" * 16, VerdictKind.confirmed)
    ]
    compound = {
        "file": "app/pay.py",
        "line_start": 2,
        "severity": "important",
        "category": "correctness",
        "title": "together worse",
        "body": "b",
        "evidence": "e",
    }
    cross = parse_layer(
        LayerRole.cross_ref,
        {
            "compounds": [
                {**compound, "ids": ["a" * 16, "b" * 16]},
                {**compound, "ids": ["a" * 16, "z" * 16]},
            ],
            "deep_dives": [{"question": "look", "files": ["app/pay.py"]}],
        },
        known,
    )
    assert cross.compound_of == [["a" * 16, "b" * 16]] and len(cross.findings) == 1
    assert cross.findings[0].source == FindingSource.cross_ref
    assert cross.deep_dives[0].files == ["app/pay.py"]


def test_coverage_gaps_target_reviewable_files_only() -> None:
    assert uncovered_files(["a.py", "b.py"], {"a.py"}) == ["b.py"]
    gaps = parse_gaps(
        {
            "complete": False,
            "gaps": [
                {"name": "b", "prompt": "check b", "target_files": ["b.py", "zzz.py"]},
                {"name": "none", "prompt": "check", "target_files": ["zzz.py"]},
            ],
        },
        {"a.py", "b.py"},
        iteration=1,
    )
    assert [(g.id, g.target_files, g.source) for g in gaps] == [
        ("gap1-1", ["b.py"], FindingSource.gap_reviewer)
    ]
    assert parse_gaps({"complete": True, "gaps": [{"name": "x"}]}, {"a.py"}, 2) == []
