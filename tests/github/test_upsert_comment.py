"""``github_upsert_comment``: one prflow comment per PR, found by its marker, edited in place."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.github import upsert_pr_comment
from prflow.errors import USER_ERROR_TYPE
from prflow.github_models import COMMENT_MAX_CHARS, CommentUpsertInput, CommentUpsertResult
from prflow.pr_identifier import PullRequestRef
from prflow.store.blobs import put_text
from tests.support.fake_github import FakeComment, FakeGitHub, Fault
from tests.support.fixtures_github import FAKE_GITHUB_LOGIN

PR = PullRequestRef(owner="octo-org", repo="service", number=5)
MARKER = "<!-- prflow:impact -->"


async def _upsert(db_url: str, body: str, pr: PullRequestRef = PR) -> CommentUpsertResult:
    key = put_text(db_url, body)
    inp = CommentUpsertInput(pr=pr, marker=MARKER, body_key=key)
    result: CommentUpsertResult = await ActivityEnvironment().run(upsert_pr_comment, inp)
    return result


async def _upsert_error(db_url: str, body: str, pr: PullRequestRef = PR) -> ApplicationError:
    with pytest.raises(ApplicationError) as caught:
        await _upsert(db_url, body, pr)
    return caught.value


def _marked(fake: FakeGitHub) -> list[FakeComment]:
    return [c for c in fake.comments("octo-org", "service", 5) if MARKER in c.body]


async def test_first_run_posts_a_comment_carrying_the_marker(
    fake_github_pr: FakeGitHub, github_blob_db: str
) -> None:
    result = await _upsert(github_blob_db, "## Impact\nRisk: low")

    (comment,) = fake_github_pr.comments("octo-org", "service", 5)
    assert result == CommentUpsertResult(
        comment_id=comment.id,
        url=f"{fake_github_pr.web_url}/octo-org/service/pull/5#issuecomment-{comment.id}",
        created=True,
    )
    assert comment.author == FAKE_GITHUB_LOGIN
    assert comment.body == f"{MARKER}\n## Impact\nRisk: low"


async def test_second_run_edits_the_same_comment_in_place(
    fake_github_pr: FakeGitHub, github_blob_db: str
) -> None:
    first = await _upsert(github_blob_db, f"{MARKER}\nRisk: low")
    second = await _upsert(github_blob_db, f"{MARKER}\nRisk: critical")

    (comment,) = fake_github_pr.comments("octo-org", "service", 5)
    assert second == CommentUpsertResult(comment_id=first.comment_id, url=first.url, created=False)
    assert comment.body == f"{MARKER}\nRisk: critical"
    assert len(fake_github_pr.requests("POST")) == 1
    assert len(fake_github_pr.requests("PATCH")) == 1


async def test_an_unchanged_body_is_not_written_again(
    fake_github_pr: FakeGitHub, github_blob_db: str
) -> None:
    await _upsert(github_blob_db, "same report")
    again = await _upsert(github_blob_db, "same report")

    assert not again.created
    assert len(fake_github_pr.requests("POST")) == 1
    assert fake_github_pr.requests("PATCH") == []


async def test_other_comments_are_left_alone(
    fake_github_pr: FakeGitHub, github_blob_db: str
) -> None:
    fake_github_pr.add_comment(
        "octo-org", "service", 5, "LGTM, but see the CI failure", author="alice"
    )
    fake_github_pr.add_comment("octo-org", "service", 5, "Note to self", author=FAKE_GITHUB_LOGIN)
    quoting = fake_github_pr.add_comment(
        "octo-org", "service", 5, f"> {MARKER}\n> the bot said this", author="alice"
    )

    await _upsert(github_blob_db, "report v1")
    await _upsert(github_blob_db, "report v2")

    bodies = {c.id: (c.author, c.body) for c in fake_github_pr.comments("octo-org", "service", 5)}
    assert len(bodies) == 4
    assert bodies[quoting] == ("alice", f"> {MARKER}\n> the bot said this")
    assert ("alice", "LGTM, but see the CI failure") in bodies.values()
    assert (FAKE_GITHUB_LOGIN, "Note to self") in bodies.values()
    assert (FAKE_GITHUB_LOGIN, f"{MARKER}\nreport v2") in bodies.values()


async def test_the_marked_comment_is_found_on_a_later_page(
    fake_github_pr: FakeGitHub, github_blob_db: str
) -> None:
    for index in range(230):
        fake_github_pr.add_comment("octo-org", "service", 5, f"discussion {index}", author="alice")
    ours = fake_github_pr.add_comment(
        "octo-org", "service", 5, f"{MARKER}\nold report", author=FAKE_GITHUB_LOGIN
    )

    result = await _upsert(github_blob_db, "new report")

    assert result.comment_id == ours
    assert not result.created
    assert [c.body for c in _marked(fake_github_pr)] == [f"{MARKER}\nnew report"]
    pages = [
        ex.query.get("page", "1") for ex in fake_github_pr.requests("GET", r"/issues/5/comments$")
    ]
    assert pages == ["1", "2", "3"]


async def test_a_body_over_githubs_limit_is_cut_with_a_visible_note(
    fake_github_pr: FakeGitHub, github_blob_db: str
) -> None:
    lines = [f"| file_{i}.py | changed |" for i in range(5000)]
    body = "## Impact\n" + "\n".join(lines)
    assert len(body) > COMMENT_MAX_CHARS

    await _upsert(github_blob_db, body)

    (comment,) = _marked(fake_github_pr)
    assert len(comment.body) <= COMMENT_MAX_CHARS
    assert comment.body.startswith(f"{MARKER}\n## Impact\n| file_0.py | changed |")
    assert "cut short" in comment.body
    kept_rows = [line for line in comment.body.splitlines() if line.startswith("| file_")]
    assert all(line.endswith("| changed |") for line in kept_rows)


async def test_a_missing_pull_request_is_a_user_error(
    fake_github: FakeGitHub, github_blob_db: str
) -> None:
    error = await _upsert_error(github_blob_db, "report")

    assert error.type == USER_ERROR_TYPE
    assert error.non_retryable
    assert "Pull request #5 was not found in octo-org/service" in error.message


async def test_an_issue_number_is_a_user_error_and_nothing_is_posted(
    fake_github: FakeGitHub, github_blob_db: str
) -> None:
    fake_github.add_issue("octo-org", "service", 5)

    error = await _upsert_error(github_blob_db, "report")

    assert error.non_retryable
    assert "is an issue, not a pull request" in error.message
    assert fake_github.requests("POST") == []


async def test_missing_write_permission_is_a_user_error(
    fake_github_pr: FakeGitHub, github_blob_db: str
) -> None:
    fake_github_pr.inject(
        Fault(
            403,
            {"message": "Resource not accessible by personal access token", "status": "403"},
            method="POST",
        )
    )

    error = await _upsert_error(github_blob_db, "report")

    assert error.type == USER_ERROR_TYPE
    assert error.non_retryable
    assert "write access" in error.message


async def test_a_rejected_body_is_a_user_error(
    fake_github_pr: FakeGitHub, github_blob_db: str
) -> None:
    fake_github_pr.inject(
        Fault(
            422,
            {
                "message": "Validation Failed",
                "errors": [{"resource": "IssueComment", "code": "custom", "message": "spam"}],
            },
            method="POST",
        )
    )

    error = await _upsert_error(github_blob_db, "report")

    assert error.non_retryable
    assert "422" in error.message
    assert "spam" in error.message


async def test_rate_limit_while_listing_is_retryable_and_the_retry_posts_once(
    fake_github_pr: FakeGitHub, github_blob_db: str
) -> None:
    fake_github_pr.throttle(retry_after_seconds=3)

    error = await _upsert_error(github_blob_db, "report")
    assert not error.non_retryable
    assert error.next_retry_delay is not None
    assert error.next_retry_delay.total_seconds() == 3

    await _upsert(github_blob_db, "report")
    assert len(_marked(fake_github_pr)) == 1


async def test_a_retry_after_a_lost_response_edits_instead_of_posting_twice(
    fake_github_pr: FakeGitHub, github_blob_db: str
) -> None:
    # The first attempt's comment reached GitHub but its response never came back.
    fake_github_pr.add_comment(
        "octo-org", "service", 5, f"{MARKER}\nreport", author=FAKE_GITHUB_LOGIN
    )

    result = await _upsert(github_blob_db, "report")

    assert not result.created
    assert len(fake_github_pr.comments("octo-org", "service", 5)) == 1


async def test_missing_token_is_a_user_error(
    fake_github_pr: FakeGitHub, github_blob_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")

    error = await _upsert_error(github_blob_db, "report")

    assert error.type == USER_ERROR_TYPE
    assert "GITHUB_TOKEN" in error.message
    assert fake_github_pr.exchanges == []


async def test_github_app_edits_its_bot_comment_and_not_a_persons_quote(
    fake_github_pr: FakeGitHub, github_blob_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public_pem = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    fake_github_pr.register_app(
        app_id="4242", public_key_pem=public_pem, installation_id=77, slug="prflow"
    )
    quoting = fake_github_pr.add_comment("octo-org", "service", 5, f"> {MARKER}", author="alice")
    existing = fake_github_pr.add_comment(
        "octo-org", "service", 5, f"{MARKER}\nold", author="prflow[bot]"
    )
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.setenv("PRFLOW_GITHUB_APP_ID", "4242")
    monkeypatch.setenv("PRFLOW_GITHUB_APP_PRIVATE_KEY", private_pem)
    monkeypatch.setenv("PRFLOW_GITHUB_APP_INSTALLATION_ID", "77")

    result = await _upsert(github_blob_db, "new")

    assert result.comment_id == existing
    assert [(c.id, c.author, c.body) for c in _marked(fake_github_pr)] == [
        (quoting, "alice", f"> {MARKER}"),
        (existing, "prflow[bot]", f"{MARKER}\nnew"),
    ]
    (token_request,) = fake_github_pr.requests("POST", r"^/app/installations/77/access_tokens$")
    assert token_request.status == 201


async def test_incomplete_github_app_settings_name_what_is_missing(
    fake_github_pr: FakeGitHub, github_blob_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRFLOW_GITHUB_APP_ID", "4242")

    error = await _upsert_error(github_blob_db, "report")

    assert error.non_retryable
    assert "PRFLOW_GITHUB_APP_INSTALLATION_ID" in error.message
    assert "PRFLOW_GITHUB_APP_PRIVATE_KEY" in error.message
    assert fake_github_pr.exchanges == []
