"""The planner's output is held to the DAG rules in code; what is refused goes back verbatim."""

from __future__ import annotations

from typing import Any

from prflow.refactor.plan import check_plan, in_scope, reask_message
from prflow.refactor.react_rules import active_rules, all_rules
from prflow.refactor.schedule import TaskStatus, all_finished, blocked, ready

KNOWN = ["storage/files.py", "storage/cache.py", "app/service.py", "tests/test_files.py"]


def task(tid: str, files: list[str], deps: list[str] = (), **extra: Any) -> dict[str, Any]:  # type: ignore[assignment]
    return {
        "id": tid,
        "title": f"task {tid}",
        "instructions": "do it",
        "files": files,
        "depends_on": list(deps),
        **extra,
    }


def test_a_valid_plan_comes_back_in_dependency_order() -> None:
    submitted = {
        "summary": "async storage",
        "tasks": [
            task("callers", ["app/service.py"], ["core"]),
            task("core", ["storage/files.py"]),
            task("tests", ["tests/test_files.py"], ["callers", "core"]),
        ],
    }
    check = check_plan(submitted, known_paths=KNOWN)
    assert check.ok, check.problems
    assert check.plan is not None
    assert [t.id for t in check.plan.tasks] == ["core", "callers", "tests"]
    assert check.plan.dependents("core") == ["callers", "tests"]
    assert check.plan.ancestors("tests") == ["core", "callers"]
    assert check.plan.rollback_set("callers") == ["core", "callers", "tests"]


def test_a_cycle_is_refused_naming_it() -> None:
    submitted = {
        "tasks": [
            task("a", ["storage/files.py"], ["c"]),
            task("b", ["app/service.py"], ["a"]),
            task("c", ["tests/test_files.py"], ["b"]),
        ]
    }
    check = check_plan(submitted, known_paths=KNOWN)
    assert not check.ok
    assert any("cycle" in p for p in check.problems)


def test_unknown_paths_are_refused_with_the_nearest_real_path() -> None:
    submitted = {
        "tasks": [
            task("a", ["storage/file.py"]),
            task("b", ["app/service.py"], ["a"]),
            task("c", ["tests/test_files.py"], ["b"]),
        ]
    }
    check = check_plan(submitted, known_paths=KNOWN)
    assert not check.ok
    (problem,) = check.problems
    assert "'storage/file.py' is not in the repository index" in problem
    assert "storage/files.py" in problem


def test_new_files_must_be_declared_and_really_new() -> None:
    ok = check_plan(
        {
            "tasks": [
                task("a", ["storage/files.py"], new_files=["storage/aio.py"]),
                task("b", ["app/service.py"], ["a"]),
                task("c", ["tests/test_files.py", "storage/aio.py"], ["a"]),
            ]
        },
        known_paths=KNOWN,
    )
    assert ok.ok, ok.problems
    clash = check_plan(
        {
            "tasks": [
                task("a", [], new_files=["storage/cache.py"]),
                task("b", ["app/service.py"], ["a"]),
                task("c", ["tests/test_files.py"], ["b"]),
            ]
        },
        known_paths=KNOWN,
    )
    assert any("already exists" in p for p in clash.problems)


def test_task_count_bounds_and_bad_ids() -> None:
    many = {"tasks": [task(f"t{n}", [KNOWN[n % 4]]) for n in range(8)]}
    problems = check_plan(many, known_paths=KNOWN).problems
    assert any("8 tasks; write between 3 and 6" in p for p in problems)
    one_file = {"tasks": [task("only", ["storage/files.py"])]}
    assert check_plan(one_file, known_paths=KNOWN).ok  # one file: one task is enough
    dup = {
        "tasks": [
            task("a", ["storage/files.py"]),
            task("a", ["app/service.py"]),
            task("b", ["tests/test_files.py"], ["zz"]),
        ]
    }
    problems = check_plan(dup, known_paths=KNOWN).problems
    assert any("used twice" in p for p in problems)
    assert any("unknown task 'zz'" in p for p in problems)
    assert check_plan(None, known_paths=KNOWN).problems


def test_scope_globs_apply_to_planned_files() -> None:
    assert in_scope("storage/files.py", ["storage/**", "app/*"], [])
    assert not in_scope("tests/test_files.py", ["storage/**"], [])
    assert not in_scope("node_modules/x/index.js", [], ["node_modules"])
    assert in_scope("src/a.ts", ["**/*.ts"], ["dist"])
    submitted = {
        "tasks": [
            task("a", ["storage/files.py"]),
            task("b", ["app/service.py"], ["a"]),
            task("c", ["tests/test_files.py"], ["b"]),
        ]
    }
    problems = check_plan(submitted, known_paths=KNOWN, exclude=["tests"]).problems
    assert problems == [
        "Task 'c': 'tests/test_files.py' is outside the run's --include/--exclude scope."
    ]
    assert "attempt 1 of 3" in reask_message(problems, 1, 3)


def test_react_directives_carry_the_active_rule_ids() -> None:
    assert len(all_rules()) == 57
    waterfalls = active_rules(
        "Eliminate request waterfalls across the project.", react_project=True
    )
    assert waterfalls == [
        "async-defer-await",
        "async-parallel",
        "async-dependencies",
        "async-api-routes",
        "async-suspense-boundaries",
    ]
    default = active_rules("Speed up our React components", react_project=False)
    assert {r.split("-")[0] for r in default} == {"async", "bundle", "server"}
    assert active_rules("Convert sync file operations to async", react_project=False) == []
    named = active_rules("apply rerender-memo everywhere", react_project=False)
    assert named == ["rerender-memo"]
    submitted = {
        "tasks": [
            task("a", ["storage/files.py"], rule_ids=["async-parallel", "bogus"]),
            task("b", ["app/service.py"], ["a"]),
            task("c", ["tests/test_files.py"], ["b"]),
        ]
    }
    plan = check_plan(submitted, known_paths=KNOWN, active_rules=waterfalls).plan
    assert plan is not None
    assert plan.tasks[0].rule_ids == ["async-parallel"]
    assert plan.tasks[1].rule_ids == waterfalls


def test_ready_tasks_respect_dependencies_and_disjoint_files() -> None:
    plan = check_plan(
        {
            "tasks": [
                task("a", ["storage/files.py"]),
                task("b", ["storage/cache.py"]),
                task("c", ["storage/files.py", "app/service.py"]),
                task("d", ["tests/test_files.py"], ["a", "b"]),
            ]
        },
        known_paths=KNOWN,
    ).plan
    assert plan is not None
    states: dict[str, TaskStatus] = {}
    assert ready(plan, states, limit=4) == ["a", "b"]  # c shares storage/files.py with a
    states.update(a=TaskStatus.running, b=TaskStatus.running)
    assert ready(plan, states, limit=4) == []
    states.update(a=TaskStatus.done)
    assert ready(plan, states, limit=4) == ["c"]
    states.update(b=TaskStatus.skipped, c=TaskStatus.done)
    assert blocked(plan, states) == {"d": "depends on b, which did not complete"}
    states.update(d=TaskStatus.skipped)
    assert all_finished(plan, states)
