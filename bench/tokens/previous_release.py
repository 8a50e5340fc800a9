"""The anchor: the same conversation, with requests built the way release 0.1 built them.

What differed is rebuilt here; the system prompt, the model's answers and the
tool calls stay this release's:

- every tool was offered, ``list_changed_files`` too;
- the first message pretty-printed its JSON (``indent=1``) and carried every
  static finding as stored: signatures, severities, every consumer and test path,
  the whole impact graph with its edges;
- tool results were not capped per turn (each is recomputed with the real
  tools, in process, on the same commits);
- the only conversation breakpoint sat on the end of the previous request's
  prompt, which that request had not marked, so a request could read only the
  prefix the request before the previous one wrote.

The rebuilt requests go through the real ``anthropic`` SDK to a fresh scripted
server with the same caching rules, so both sides are counted the same way.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import anthropic

from bench.impact.errors import BenchError
from bench.impact.repos import BASE_REF
from bench.tokens.pr_slice import SLICE_BRANCH
from prflow.agent.transcript import TRUNCATION_NOTE
from prflow.git.repo import GitRepoReader, resolve_range
from prflow.impact.llm_phase import SUBMIT_TOOL
from prflow.impact.stage_inputs import StaticFindings
from prflow.repo_models import RepoSpec, ResolvedRange
from prflow.tools.reader import ToolError
from prflow.tools.registry import TOOL_SPECS, run_tool
from tests.support.scripted_anthropic import RecordedRequest, ScriptedAnthropic, Turn

Message = dict[str, Any]
_EPHEMERAL = {"type": "ephemeral"}
_CAP_NOTE = TRUNCATION_NOTE.split("{cut}")[1].split("{cap}")[0]
"""What a result cut by prflow's per-turn cap says (" more characters cut to keep ...")."""


def first_message(report: dict[str, Any]) -> str:
    """The 0.1 first message: pretty-printed change list and the static findings blob."""
    files = [
        {key: item[key] for key in ("path", "status", "category", "additions", "deletions")}
        for item in report["changed_files"]
    ]
    fields = {name: report[name] for name in StaticFindings.model_fields}
    static = StaticFindings.model_validate(fields)
    parts = [
        f"Repository: {report['repo']}\nBase: {report['base_ref']} ({report['base_sha'][:12]})\n"
        f"Head: {report['head_ref']} ({report['head_sha'][:12]})",
        "Changed files (JSON):\n" + json.dumps(files, indent=1),
        "Static analysis findings (JSON):\n" + json.dumps(static.model_dump(mode="json"), indent=1),
        "Verify, extend and explain these findings with the tools, then call "
        "submit_impact_findings.",
    ]
    return "\n\n".join(parts)


def rebuild_requests(
    recorded: list[RecordedRequest], report: dict[str, Any], repo: Path
) -> list[dict[str, Any]]:
    """One request per recorded turn, as 0.1 would have sent it."""
    rng = resolve_range(RepoSpec(location=str(repo)), BASE_REF, SLICE_BRANCH)
    reader = GitRepoReader.for_range(rng)
    messages: list[Message] = [
        {"role": "user", "content": [{"type": "text", "text": first_message(report)}]}
    ]
    requests = []
    for index, request in enumerate(recorded):
        if index > 0:
            answer = request.body["messages"][2 * index - 1]
            messages.append(_unmarked(answer))
            results = [
                _tool_result(block, reader, rng)
                for block in answer["content"]
                if block.get("type") == "tool_use"
            ]
            _check_same_results(request.body["messages"][2 * index], results)
            messages.append({"role": "user", "content": results})
        requests.append(_request_like(request.body, messages))
    return requests


def replay(
    requests: list[dict[str, Any]], turns: list[Turn], min_tokens: int
) -> list[RecordedRequest]:
    """Send the rebuilt requests with the real SDK to a fresh scripted server."""
    with ScriptedAnthropic(turns, min_cacheable_tokens=min_tokens) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="bench-key", max_retries=0)
        for request in requests:
            client.messages.create(**request)
        recorded = server.requests
    if any(request.status != 200 for request in recorded):
        raise BenchError(f"the anchor replay was refused: {[r.served for r in recorded]}")
    return recorded


def _request_like(body: dict[str, Any], messages: list[Message]) -> dict[str, Any]:
    """``body``'s model and system prompt, every tool, ``messages``, all marked as 0.1 did."""
    tools = [tool.model_dump() for tool in [*TOOL_SPECS, SUBMIT_TOOL]]
    tools[-1]["cache_control"] = dict(_EPHEMERAL)
    system = [_without_mark(block) for block in body["system"]]
    system[-1]["cache_control"] = dict(_EPHEMERAL)
    marked = [_unmarked(message) for message in messages]
    previous_end = next(
        (i - 1 for i in range(len(marked) - 1, 0, -1) if marked[i]["role"] == "assistant"), None
    )
    if previous_end is not None:
        marked[previous_end]["content"][-1]["cache_control"] = dict(_EPHEMERAL)
    return {
        "model": body["model"],
        "max_tokens": body["max_tokens"],
        "system": system,
        "tools": tools,
        "messages": marked,
    }


def _tool_result(block: dict[str, Any], reader: GitRepoReader, rng: ResolvedRange) -> Message:
    """What the tool call returns, uncapped, as the block prflow's loop sends."""
    try:
        text, failed = run_tool(reader, rng, block["name"], block["input"]).text, False
    except ToolError as exc:
        text, failed = f"{block['name']} failed: {exc.message}", True
    return {
        "type": "tool_result",
        "tool_use_id": block["id"],
        "content": text or "(empty result)",
        "is_error": failed,
    }


def _check_same_results(sent: Message, rebuilt: list[dict[str, Any]]) -> None:
    """Results prflow sent whole must equal the recomputed ones: same tools, same commits."""
    for ours, theirs in zip(sent["content"], rebuilt, strict=True):
        if _CAP_NOTE not in str(ours["content"]) and (ours["content"] != theirs["content"]):
            raise BenchError(f"tool result {ours['tool_use_id']} differs when recomputed")


def _unmarked(message: Message) -> Message:
    return {**message, "content": [_without_mark(block) for block in message["content"]]}


def _without_mark(block: dict[str, Any]) -> dict[str, Any]:
    clean = copy.deepcopy(block)
    clean.pop("cache_control", None)
    return clean
