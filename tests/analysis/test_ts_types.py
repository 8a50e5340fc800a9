"""Type judgements without a compiler: only unions of primitives and literals are judged."""

from __future__ import annotations

from prflow.analysis.ts_types import Flow, incompatible, simple_union


def test_simple_unions_are_read_and_everything_else_is_not() -> None:
    assert simple_union("'a' | \"b\" | null") == frozenset({"'a'", "'b'", "null"})
    assert simple_union("boolean | readonly string[]") == frozenset({"true", "false", "string[]"})
    assert simple_union("Promise<User>") is None
    assert simple_union("DateType | number") is None
    assert simple_union(None) is None


def test_arguments_may_widen_but_not_narrow() -> None:
    assert not incompatible("'a' | 'b'", "string", Flow.into)
    assert not incompatible("string", "string | number", Flow.into)
    assert not incompatible("number", "unknown", Flow.into)
    assert incompatible("string | number", "string", Flow.into)
    assert incompatible("string", "string[]", Flow.into)


def test_results_may_narrow_but_not_widen() -> None:
    assert not incompatible("string", "'a'", Flow.out_of)
    assert not incompatible("any", "number", Flow.out_of)
    assert incompatible("string", "string | null", Flow.out_of)


def test_members_read_and_written_must_keep_their_type() -> None:
    assert incompatible("'a' | 'b'", "'a'", Flow.both)
    assert incompatible("'a'", "'a' | 'b'", Flow.both)
    assert not incompatible("'a' | 'b'", "'b' | 'a'", Flow.both)
    assert not incompatible("Mode", "'a'", Flow.both)  # names another type: not judged here
