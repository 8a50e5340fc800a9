"""Every way a user names a pull request, and the message they get when it is wrong."""

from __future__ import annotations

import pytest

from prflow.errors import UserError
from prflow.pr_identifier import ACCEPTED_FORMS, PullRequestRef, parse_pr_identifier


@pytest.mark.parametrize(
    ("text", "owner", "repo", "number"),
    [
        ("octo-org/hello-world#42", "octo-org", "hello-world", 42),
        ("octo-org/hello-world/pull/42", "octo-org", "hello-world", 42),
        ("octo-org/hello-world/pulls/42", "octo-org", "hello-world", 42),
        ("https://github.com/octo-org/hello-world/pull/42", "octo-org", "hello-world", 42),
        ("http://github.com/octo-org/hello-world/pull/42", "octo-org", "hello-world", 42),
        ("https://github.com/octo-org/hello-world/pull/42/", "octo-org", "hello-world", 42),
        ("https://github.com/octo-org/hello-world/pull/42/files", "octo-org", "hello-world", 42),
        (
            "https://github.com/octo-org/hello-world/pull/42/commits/0123abc",
            "octo-org",
            "hello-world",
            42,
        ),
        (
            "https://github.com/octo-org/hello-world/pull/42#issuecomment-99",
            "octo-org",
            "hello-world",
            42,
        ),
        (
            "https://github.com/octo-org/hello-world/pull/42/files?diff=split",
            "octo-org",
            "hello-world",
            42,
        ),
        ("https://ghe.corp.example:8443/team/service/pull/7", "team", "service", 7),
        ("github.com/octo-org/hello-world/pull/42", "octo-org", "hello-world", 42),
        ("octo-org/hello-world.git#42", "octo-org", "hello-world", 42),
        ("https://github.com/octo-org/hello-world.git/pull/42", "octo-org", "hello-world", 42),
        ("Octo-Org/repo.name_v2#1", "Octo-Org", "repo.name_v2", 1),
        ("a/b#0007", "a", "b", 7),
        ("  octo-org/hello-world#42\n", "octo-org", "hello-world", 42),
        ("\thttps://github.com/octo-org/hello-world/pull/42  ", "octo-org", "hello-world", 42),
        ("o/r#2147483647", "o", "r", 2147483647),
    ],
)
def test_accepted_forms_name_the_same_pull_request(
    text: str, owner: str, repo: str, number: int
) -> None:
    assert parse_pr_identifier(text) == PullRequestRef(owner=owner, repo=repo, number=number)


def test_slug_round_trips_through_the_parser() -> None:
    ref = parse_pr_identifier("https://github.com/octo-org/hello-world/pull/42/files")
    assert ref.slug == "octo-org/hello-world#42"
    assert parse_pr_identifier(ref.slug) == ref


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "42",
        "#42",
        "octo-org#42",
        "octo-org/hello-world",
        "octo-org/hello-world#",
        "octo-org/hello-world#abc",
        "octo-org/hello-world#-3",
        "octo-org/hello-world#4.2",
        "octo-org/hello-world #42",
        "octo-org/hello-world# 42",
        "octo-org/hello-world/pull/",
        "octo-org/hello-world/issues/42",
        "octo-org/hello-world/pull/42abc",
        "/hello-world#42",
        "octo-org/#42",
        "octo-org/.git#42",
        "octo-org/..#42",
        "octo org/hello-world#42",
        "-octo/hello-world#42",
        "a/b/c#42",
        "https://github.com/octo-org/hello-world",
        "https://github.com/octo-org/hello-world/issues/42",
        "https://github.com/pull/42",
        "ftp://github.com/octo-org/hello-world/pull/42",
        "https:///octo-org/hello-world/pull/42",
        "octo-org/hello-world#1#2",
        "octo-org/hello-world#12345678901234567890123",
    ],
)
def test_anything_else_is_a_user_error_listing_the_accepted_forms(text: str) -> None:
    with pytest.raises(UserError) as caught:
        parse_pr_identifier(text)
    message = str(caught.value)
    assert "\n" not in message
    assert ACCEPTED_FORMS in message
    assert "owner/repo#123" in message
    assert "https://github.com/owner/repo/pull/123" in message


@pytest.mark.parametrize("text", ["o/r#0", "o/r/pull/0", "o/r#2147483648"])
def test_numbers_outside_githubs_range_are_rejected_with_the_range(text: str) -> None:
    with pytest.raises(UserError, match="between 1 and 2147483647"):
        parse_pr_identifier(text)


def test_the_message_quotes_what_the_user_typed_on_one_line() -> None:
    with pytest.raises(UserError) as caught:
        parse_pr_identifier("octo-org/hello-world\n#42")
    message = str(caught.value)
    assert "\n" not in message
    assert "'octo-org/hello-world\\n#42'" in message


def test_very_long_input_is_shortened_in_the_message() -> None:
    with pytest.raises(UserError) as caught:
        parse_pr_identifier("x" * 5000)
    assert len(str(caught.value)) < 300
