"""File names in any encoding: escaped in every output, still readable by the tools.

Linux file names are bytes; a PR may add a Latin-1 name or plain garbage. The
repository here is real (git stores the raw bytes), read through the git
layer, the six tools and a whole static impact run on the dev server.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest
from temporalio.client import Client

from prflow.config import Settings, cached_settings
from prflow.file_names import display_name, fs_candidates, raw_name
from prflow.git.repo import GitRepoReader, resolve_range
from prflow.impact.models import ImpactReport
from prflow.repo_models import RepoSpec, ResolvedRange
from prflow.store.blobs import get_text
from prflow.tools import run_tool
from tests.support.fixtures_temporal import run_worker
from tests.support.impact_runs import agent_request, start_impact
from tests.support.sample_repos import commit_all, git, init_repo, write_files

LATIN1 = b"caf\xe9.py"  # 'café.py' in Latin-1: not UTF-8
GARBAGE_DIR = b"bin\xff\xfe"  # a directory whose name decodes as nothing at all
UTF8 = "donn\u00e9es.py"  # an ordinary non-ASCII name, which must stay as it is
LITERAL = "back\\xe9slash.txt"  # a valid name that happens to look like an escape
# (Tools read a backslash as a path separator, for models that write Windows paths, so this
# one is listed and reported but cannot be read by name; that predates display names.)

LATIN1_SHOWN = "caf\\xe9.py"
GARBAGE_SHOWN = "bin\\xff\\xfe/tool.py"


def encoded_name_repo(path: Path) -> Path:
    """``base``: a module and its importer under a garbage name; ``feature`` adds awkward names."""
    repo = init_repo(path)
    root = os.fsencode(repo)
    write_files(repo, {"app.py": "def run() -> int:\n    return 1\n"})
    os.makedirs(os.path.join(root, GARBAGE_DIR))
    with open(os.path.join(root, GARBAGE_DIR, b"tool.py"), "wb") as handle:
        handle.write(b"import app\n\nVALUE = app.run()\n")
    commit_all(repo, "base")
    git(repo, "tag", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    with open(os.path.join(root, LATIN1), "wb") as handle:
        handle.write(b"PRICE = 3  # caf\xe9\n")
    write_files(repo, {UTF8: "ROWS = []\n", LITERAL: "literal\n"})
    write_files(repo, {"app.py": "def run() -> int:\n    return 2\n"})
    commit_all(repo, "awkward names")
    git(repo, "checkout", "-q", "main")
    return repo


def test_display_names_escape_only_undecodable_bytes() -> None:
    assert display_name(LATIN1) == LATIN1_SHOWN
    assert display_name(UTF8.encode()) == UTF8
    assert display_name(GARBAGE_DIR + b"/tool.py") == GARBAGE_SHOWN
    assert raw_name(LATIN1_SHOWN) == LATIN1
    assert fs_candidates(UTF8) == [UTF8]
    assert fs_candidates(LITERAL)[0] == LITERAL  # the name as written is tried first
    json.dumps([display_name(bytes(range(128, 256)))]).encode("utf-8")  # always encodable


@pytest.fixture
def awkward_range(prflow_home: Path, tmp_path: Path) -> ResolvedRange:
    repo = encoded_name_repo(tmp_path / "names")
    return resolve_range(RepoSpec(location=str(repo)), "base", "feature")


def test_the_git_layer_lists_and_reads_every_name(awkward_range: ResolvedRange) -> None:
    reader = GitRepoReader.for_range(awkward_range)
    head = awkward_range.head_sha
    changed = {f.path for f in reader.changed_files(awkward_range.merge_base_sha, head)}
    assert changed == {"app.py", LATIN1_SHOWN, UTF8, LITERAL}
    assert set(reader.list_files(head)) == {*changed, GARBAGE_SHOWN}
    assert reader.read_file(head, LATIN1_SHOWN) == b"PRICE = 3  # caf\xe9\n"
    assert reader.read_file(head, GARBAGE_SHOWN) == b"import app\n\nVALUE = app.run()\n"
    assert {hit.file for hit in reader.grep(head, "PRICE|VALUE")} == {LATIN1_SHOWN, GARBAGE_SHOWN}
    assert "+PRICE = 3" in reader.diff(awkward_range.merge_base_sha, head, [LATIN1_SHOWN])
    tree = reader.tree(head)  # what the analyzers walk
    assert set(tree.paths()) == {*changed, GARBAGE_SHOWN}
    assert tree.read_text(GARBAGE_SHOWN) == "import app\n\nVALUE = app.run()\n"


def test_the_tools_take_and_give_display_names(awkward_range: ResolvedRange) -> None:
    reader = GitRepoReader.for_range(awkward_range)
    listed = run_tool(reader, awkward_range, "list_changed_files", {})
    read = run_tool(reader, awkward_range, "read_file_at_ref", {"path": LATIN1_SHOWN})
    diff = run_tool(reader, awkward_range, "git_diff", {"file": LATIN1_SHOWN})
    for result in (listed, read, diff):
        result.text.encode("utf-8")  # what goes to the model and the blob store
    paths = {item["path"] for item in listed.data["page"]["items"]}
    assert LATIN1_SHOWN in paths
    assert LATIN1_SHOWN in listed.text  # the model reads the same name
    assert "PRICE = 3" in read.text
    assert "+PRICE = 3" in diff.text


@pytest.mark.temporal
async def test_a_pr_adding_undecodable_names_is_analysed_and_reported(
    temporal_client: Client, temporal_settings: Settings, prflow_home: Path, tmp_path: Path
) -> None:
    repo = encoded_name_repo(tmp_path / "names")
    request = agent_request(temporal_settings, repo, enabled=False)  # static mode
    async with run_worker(temporal_client, temporal_settings):
        handle = await start_impact(
            temporal_client, temporal_settings, request, f"names-{uuid.uuid4().hex[:8]}"
        )
        result = await handle.result()

    db = cached_settings().resolved_database_url()
    report = ImpactReport.model_validate_json(get_text(db, result.report_key))
    assert {f.path for f in report.changed_files} >= {LATIN1_SHOWN, UTF8}
    # The analyzers read the garbage-named importer of app.py, so the change reaches it.
    assert GARBAGE_SHOWN in report.impact_graph.indirectly_affected, report.impact_graph
    markdown = get_text(db, result.markdown_key)
    assert f"`{LATIN1_SHOWN}`" in markdown and f"`{UTF8}`" in markdown
    sarif = json.loads(get_text(db, result.sarif_key))
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for res in sarif["runs"][0]["results"]
        for loc in res["locations"]
    }
    assert "caf%E9.py" in uris  # the real bytes, percent-encoded, as a URI must name them
