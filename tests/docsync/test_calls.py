"""Whether a call in a doc can see a signature change, and which parameter it sees."""

from __future__ import annotations

from prflow.docsync.calls import CallArguments, Signature, seen_changes


def _seen(before: str, after: str, call: str, *, bound: bool = False) -> list[str]:
    old = Signature.parse(before, bound=bound)
    new = Signature.parse(after, bound=bound)
    arguments = CallArguments.parse(call)
    assert old is not None and new is not None and arguments is not None
    return seen_changes(old, new, arguments)


def test_a_call_passing_only_unchanged_slots_sees_nothing() -> None:
    before = "get(url, params=None, timeout=5, verify=True)"
    after = "get(url, params=None, *, timeout=None, cert=None)"
    assert _seen(before, after, "'https://x'") == []
    assert _seen(before, after, "'https://x', {'q': 1}") == []
    assert _seen(before, after, "'https://x', timeout=3") == []  # still a keyword


def test_a_call_passing_what_changed_names_it() -> None:
    before = "get(url, params=None, timeout=5, verify=True)"
    after = "get(url, params=None, *, timeout=None, cert=None)"
    assert _seen(before, after, "'https://x', None, 3") == ["timeout"]  # now keyword-only
    assert _seen(before, after, "'https://x', verify=False") == ["verify"]  # removed
    assert _seen("f(a, b=1, c=2)", "f(a, c=2, b=1)", "1, 2") == ["b"]  # moved
    assert _seen("f(a, b=1, c=2)", "f(a, c=2, b=1)", "1") == []


def test_a_slot_renamed_in_place_is_seen_by_keyword_calls_only() -> None:
    before, after = "GramSchmidt(vlist, orthog=False)", "GramSchmidt(vlist, orthonormal=False)"
    assert _seen(before, after, "L, True") == []  # sympy 1.0: the slot takes it as before
    assert _seen(before, after, "L, orthog=True") == ["orthog"]
    # pyparsing 3 kept the old name as a keyword after the new slots
    word = "Word(init_chars='', body_chars=None, *, initChars=None, bodyChars=None)"
    assert _seen("Word(initChars, bodyChars=None)", word, "alphas, nums") == []
    # a parameter removed shifts the next one into its slot: that is no rename
    assert _seen("f(a, b=1, c=2)", "f(a, c=2)", "1, 2") == ["b"]


def test_a_parameter_now_required_is_seen_by_calls_that_lack_it() -> None:
    assert _seen("open(url, timeout=10)", "open(url, *, timeout)", "'db://x'") == ["timeout"]
    assert _seen("open(url, timeout=10)", "open(url, *, timeout)", "'x', timeout=3") == []
    # an example already missing a required argument is blamed only for what got worse
    assert _seen("f(a, b)", "f(a, b, *, c=1)", "1") == []


def test_self_is_passed_by_the_receiver_and_star_arguments_hide_what_is_passed() -> None:
    before = "Client.fetch(self, url, retries=3)"
    after = "Client.fetch(self, url, *, retries=3)"
    assert _seen(before, after, "'u'", bound=True) == []
    assert _seen(before, after, "'u', 2", bound=True) == ["retries"]
    assert _seen(before, after, "*args", bound=True) == ["retries"]
    # keywords swallowed by **kwargs before and refused now
    assert _seen("f(a, **kw)", "f(a)", "1, color='red'") == ["color"]
    assert _seen("f(a, **kw)", "f(a, **kw)", "1, color='red'") == []


def test_what_does_not_parse_is_unknown() -> None:
    assert Signature.parse("class Schema(Base)", bound=False) is None
    assert Signature.parse("parse(value: string, opts?: Options): Date", bound=False) is None
    assert Signature.parse("f(a", bound=False) is None
    assert CallArguments.parse("<url>") is None
    assert CallArguments.parse("url, **opts") == CallArguments(1, frozenset(), unpacks=True)
