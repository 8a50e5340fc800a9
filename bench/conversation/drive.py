"""Acting the script out: each event's change on GitHub, then its signed delivery to the
webhook app, redelivered (same delivery id) until the app takes it, as GitHub's
"redeliver" does when Temporal was down.

Blocking work (PyGithub, git) runs in threads: the webhook app serves on this
process's event loop.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
from github import Auth, Github

from bench.conversation.repos import NUMBER, OWNER, PATH, BenchPr, fix_edit
from bench.conversation.script import REPLIES, VERDICT, Event, Kind, Script
from bench.conversation.stage import Stage
from tests.queue.receiver import SECRET
from tests.support.refactor_repo import edit, executor_key, finish, task
from tests.support.scripted_anthropic import ToolUse, Turn
from tests.support.webhook_payloads import (
    Delivery,
    comment_delivery,
    pull_request_delivery,
    review_comment_delivery,
)

PERSON = "alice"
PERSON_TOKEN = "ghp_bench_alice"
MODEL_SECONDS = 2.0
REDELIVER_EVERY = 1.0
REDELIVER_FOR = 180.0
WORDS = {
    Kind.accept: "Good catch, I will guard the division.",
    Kind.rebut: "This is intended: callers never pass b == 0, the validator rejects it first.",
    Kind.ask: "Why is this a bug? Where could b be zero?",
}
QUESTION = "Which callers could pass b == 0 to these ratios?"
ASK_ANSWER = "Answered: no caller in this change passes a zero divisor."


@dataclass
class Acted:
    """What the bench did for one scripted event."""

    event: Event
    delivery: Delivery | None = None
    comment_id: int | None = None
    head_sha: str | None = None
    sent_at: datetime | None = None
    attempts: int = 0
    taken: bool = False
    statuses: list[int] = field(default_factory=list)


def model_routes(script: Script) -> dict[str, list[Turn]]:
    """One scripted answer per reply, keyed by the reply's opening words as the prompt shows
    them: the verdict the script wants, after the model's delay."""
    routes: dict[str, list[Turn]] = {}
    for pr in script.prs:
        for event in pr.events:
            if event.kind in REPLIES:
                verdict = VERDICT[event.kind]
                answer = f"Read as {verdict}: thank you, noted for this finding."
                turn = Turn(
                    tool_uses=[ToolUse("submit_reply", {"verdict": verdict, "answer": answer})],
                    delay_seconds=MODEL_SECONDS,
                )
                routes[f'<reply author="{PERSON}">\n{event.nonce}'] = [turn]
            elif event.kind == Kind.command_ask:
                answer = f"{ASK_ANSWER} ({event.nonce})"
                turn = Turn(
                    tool_uses=[ToolUse("submit_reply", {"verdict": "question", "answer": answer})],
                    delay_seconds=MODEL_SECONDS,
                )
                routes[f'<reply author="{PERSON}">\n{ask_body(event)}'] = [turn]
            elif event.kind == Kind.command_fix:
                routes.update(fix_routes(event))
    return routes


def ask_body(event: Event) -> str:
    """The ``/prflow ask`` comment; the question opens with the event's nonce."""
    return f"/prflow ask {event.nonce}: {QUESTION}"


def fix_body(event: Event) -> str:
    """The ``/prflow fix`` reply; its note (the rest of the line) is the event's nonce."""
    return f"/prflow fix {event.nonce}"


def fix_task_id(event: Event) -> str:
    return f"fix-p{event.pr:03d}-e{event.index:02d}"


def fix_routes(event: Event) -> dict[str, list[Turn]]:
    """A fix's planner (found by the note the directive quotes) plans one step on the
    cited file; its executor (found by the step's id) makes the scripted edit, the same on
    the retry a failing step gets."""
    tid = fix_task_id(event)
    plan = {
        "summary": f"Guard ratio_{event.findings[0]} against a zero divisor",
        "tasks": [task(tid, f"Guard ratio_{event.findings[0]}", [PATH], [])],
    }
    change = edit(PATH, fix_edit(event.findings[0], event.breaks))
    # Executors first: the first matching key wins, and an executor's prompt may quote the
    # directive (and so the note) too.
    routes = {executor_key(tid, a): [Turn(tool_uses=[change]), finish()] for a in (1, 2)}
    routes[f'<note author="requester">\n{event.nonce}'] = [
        Turn(tool_uses=[ToolUse("submit_refactor_plan", plan)])
    ]
    return routes


class Driver:
    def __init__(self, stage: Stage, script: Script, prs: list[BenchPr]) -> None:
        self.stage = stage
        self.script = script
        self.prs = prs
        self.acted: dict[tuple[int, int], Acted] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self._http = httpx.AsyncClient(timeout=30.0)
        stage.github.add_user(PERSON, token=PERSON_TOKEN)
        self._gh = Github(base_url=stage.github.api_url, auth=Auth.Token(PERSON_TOKEN))

    async def run(self, rate: float) -> None:
        """Deliver the script at ``rate`` events a second, kills at their seeded points."""
        start = time.monotonic()
        kills = set(self.script.worker_kills)
        for count, (pr, index) in enumerate(self.script.order, start=1):
            await asyncio.sleep(max(0.0, start + count / rate - time.monotonic()))
            event = self.script.prs[pr].events[index]
            acted = await asyncio.to_thread(self._act, self.prs[pr], event)
            self.acted[(pr, index)] = acted
            self.tasks.append(asyncio.create_task(self._deliver(acted)))
            if count in kills:
                _say(f"SIGKILL the worker after delivery {count}")
                self.tasks.append(asyncio.create_task(self.stage.kill_worker()))
            if count == self.script.server_kill:
                _say(f"SIGKILL the Temporal server after delivery {count}, then restart it")
                self.tasks.append(asyncio.create_task(self.stage.kill_server()))
        await asyncio.gather(*self.tasks)
        await self._http.aclose()

    def _act(self, pr: BenchPr, event: Event) -> Acted:
        fake = self.stage.github
        acted = Acted(event)
        if event.kind in REPLIES:
            pull = self._gh.get_repo(f"{OWNER}/{pr.repo}").get_pull(NUMBER)
            body = f"{event.nonce}: {WORDS[event.kind]}"
            comment = pull.create_review_comment_reply(pr.roots[event.findings[0]], body)
            acted.comment_id = comment.id
            acted.delivery = review_comment_delivery(fake, OWNER, pr.repo, NUMBER, comment.id)
        elif event.kind == Kind.command_ask:
            acted.delivery = comment_delivery(
                fake, OWNER, pr.repo, NUMBER, ask_body(event), author=PERSON, association="MEMBER"
            )
            acted.comment_id = int(acted.delivery.payload["comment"]["id"])
        elif event.kind == Kind.command_fix:
            fake.set_role(OWNER, pr.repo, PERSON, "write")
            pull = self._gh.get_repo(f"{OWNER}/{pr.repo}").get_pull(NUMBER)
            comment = pull.create_review_comment_reply(pr.roots[event.findings[0]], fix_body(event))
            acted.comment_id = comment.id
            acted.head_sha = pr.heads[-1]
            acted.delivery = review_comment_delivery(
                fake, OWNER, pr.repo, NUMBER, comment.id, association="MEMBER"
            )
        elif event.kind in (Kind.push_fix, Kind.push_other):
            before = pr.heads[-1]
            sha = pr.push(event.findings)
            fake.push(OWNER, pr.repo, NUMBER, sha)
            acted.head_sha = sha
            acted.delivery = pull_request_delivery(
                fake, OWNER, pr.repo, NUMBER, "synchronize", before=before
            )
        elif event.kind == Kind.redeliver:
            assert event.again is not None
            earlier = self.acted[(pr.number, event.again)]
            acted.delivery = earlier.delivery
            acted.comment_id, acted.head_sha = earlier.comment_id, earlier.head_sha
        elif event.kind == Kind.poll_again:
            acted.head_sha = pr.heads[-1]
            acted.delivery = pull_request_delivery(fake, OWNER, pr.repo, NUMBER, "synchronize")
        return acted

    async def _deliver(self, acted: Acted) -> None:
        delivery = acted.delivery
        assert delivery is not None
        acted.sent_at = datetime.now(UTC)
        deadline = time.monotonic() + REDELIVER_FOR
        while time.monotonic() < deadline:
            acted.attempts += 1
            try:
                response = await self._http.post(
                    f"{self.stage.url}/webhook",
                    content=delivery.body,
                    headers=delivery.headers(SECRET),
                )
                acted.statuses.append(response.status_code)
                if response.status_code < 300:
                    acted.taken = True
                    return
            except httpx.HTTPError:
                acted.statuses.append(0)
            await asyncio.sleep(REDELIVER_EVERY)


def _say(message: str) -> None:
    import sys

    print(f"bench: {message}", file=sys.stderr, flush=True)
