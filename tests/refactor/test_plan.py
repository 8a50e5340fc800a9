"""The planner's output is held to the DAG rules in code; what is refused goes back verbatim."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from prflow.refactor.messages import SUBMIT_PLAN
from prflow.refactor.plan import check_plan, in_scope, plan_tool_schema, reask_message
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


def test_plans_are_as_large_as_the_work_and_titles_are_cut_not_refused() -> None:
    one = check_plan({"tasks": [task("rename", KNOWN)]}, known_paths=KNOWN)
    assert one.ok, one.problems
    modules = [f"pkg/m{n}.py" for n in range(12)]
    batches = [task(f"batch-{n}", [path]) for n, path in enumerate(modules)]
    twelve = check_plan({"tasks": batches}, known_paths=modules)
    assert twelve.ok and twelve.plan is not None and len(twelve.plan.tasks) == 12
    long_title = task("core", ["storage/files.py"], title="Make storage async " * 30)
    cut = check_plan({"summary": "x" * 5000, "tasks": [long_title]}, known_paths=KNOWN)
    assert cut.ok and cut.plan is not None
    assert len(cut.plan.tasks[0].title) == 200 and cut.plan.tasks[0].title.endswith("…")
    assert len(cut.plan.summary) == 2000


def test_what_the_validator_refuses_and_why() -> None:
    many = [f"pkg/m{n}.py" for n in range(41)]
    huge = check_plan({"tasks": [task("all", many)]}, known_paths=many).problems
    assert any("at most 40 per step: split it into batches" in p for p in huge)
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
    bad_id = check_plan({"tasks": [task("core io", ["storage/files.py"])]}, known_paths=KNOWN)
    assert bad_id.problems == [
        "Step 'core io' (#1) is malformed (id: String should match pattern "
        "'^[A-Za-z0-9][A-Za-z0-9_.-]*$')."
    ]
    assert check_plan(None, known_paths=KNOWN).problems
    assert "nothing_to_do" in check_plan({"tasks": []}, known_paths=KNOWN).problems[0]


def test_nothing_to_do_is_a_plan_with_a_reason() -> None:
    said = check_plan(
        {"summary": "", "tasks": [], "nothing_to_do": "  read_note is already async.  "},
        known_paths=KNOWN,
    )
    assert said.nothing_to_do == "read_note is already async." and not said.problems


def schema_accepts(submitted: dict[str, Any]) -> bool:
    return not list(Draft202012Validator(plan_tool_schema()).iter_errors(submitted))


def test_every_rule_the_validator_enforces_on_shape_is_in_the_tool_schema() -> None:
    Draft202012Validator.check_schema(SUBMIT_PLAN.input_schema)
    assert SUBMIT_PLAN.input_schema == plan_tool_schema()
    files = [f"pkg/m{n}.py" for n in range(41)]
    ok = task("ok", files[:1])
    refused_by_both = {
        "id too long": task("x" * 41, files[:1]),
        "id with a space": task("a b", files[:1]),
        "empty instructions": {**ok, "instructions": ""},
        "instructions too long": {**ok, "instructions": "x" * 8001},
        "no file": task("none", []),
        "41 files": task("big", files),
    }
    for what, bad in refused_by_both.items():
        submitted = {"summary": "s", "tasks": [bad]}
        assert not schema_accepts(submitted), what
        assert check_plan(submitted, known_paths=files).problems, what
    no_steps = {"summary": "s", "tasks": []}
    assert not schema_accepts(no_steps) and check_plan(no_steps, known_paths=files).problems
    too_many = {"summary": "s", "tasks": [task(f"t{n}", [files[0]]) for n in range(401)]}
    assert not schema_accepts(too_many) and check_plan(too_many, known_paths=files).problems
    accepted_by_both: dict[str, dict[str, Any]] = {
        "one step": {"summary": "s", "tasks": [ok]},
        "a long title": {"summary": "s", "tasks": [{**ok, "title": "t" * 500}]},
        "only new files": {"summary": "s", "tasks": [task("new", [], new_files=["pkg/n.py"])]},
        "nothing to do": {"summary": "s", "nothing_to_do": "already done"},
    }
    for what, good in accepted_by_both.items():
        assert schema_accepts(good), what
        checked = check_plan(good, known_paths=files)
        assert checked.ok or checked.nothing_to_do, (what, checked.problems)


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
