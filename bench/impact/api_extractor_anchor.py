"""The TypeScript anchor: Microsoft API Extractor's API report of both versions, compared.

No mainstream standalone tool diffs two ``.d.ts`` trees offline, but API
Extractor is the common way TypeScript libraries review API changes: it
reads the ``.d.ts`` entry point with the TypeScript compiler, resolves every
public export, and writes one normalized API report. Reports of base and head
are compared per declaration. That is one part of ``prflow impact``'s job
(the public API surface) for the entry point only, while prflow diffs every
changed ``.d.ts`` file. The timed step includes checking both refs out of git
(``git archive``), as prflow and griffe read git too.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.impact.errors import BenchError
from bench.impact.layout import fresh_dir
from bench.impact.measure import run_checked
from bench.impact.repos import BASE_REF, HEAD_REF

API_EXTRACTOR_VERSION = "7.60.1"

_DECLARATION = re.compile(
    r"^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?"
    r"(?:function|const|let|var|interface|type|class|enum|namespace|module)\s+([\w$]+)"
)


def install_api_extractor(tools: Path) -> Path:
    """``npm install`` a pinned API Extractor under ``tools`` once; its CLI script."""
    prefix = tools / f"api-extractor-{API_EXTRACTOR_VERSION}"
    script = prefix / "node_modules" / ".bin" / "api-extractor"
    if script.is_file():
        return script
    npm = shutil.which("npm")
    if npm is None:
        raise BenchError("cannot install API Extractor for the TypeScript anchor: npm is missing")
    prefix.mkdir(parents=True, exist_ok=True)
    command = [npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix)]
    run_checked([*command, f"@microsoft/api-extractor@{API_EXTRACTOR_VERSION}"])
    if not script.is_file():
        raise BenchError(f"npm installed API Extractor but {script} is missing")
    return script


def declarations(report: str) -> dict[str, str]:
    """The report's declarations by exported name (overloads joined), comments dropped."""
    body = report.split("```ts", 1)[-1].split("```", 1)[0]
    found: dict[str, str] = {}
    last: str | None = None
    for chunk in _chunks(body):
        match = _DECLARATION.match(chunk)
        if match is None and last is None:
            continue
        name = match[1] if match else last
        assert name is not None
        found[name] = f"{found[name]}\n{chunk}" if name in found else chunk
        last = name
    return found


def _chunks(body: str) -> Iterator[str]:
    for block in re.split(r"\n\s*\n", body):
        code = "\n".join(line for line in block.splitlines() if not line.lstrip().startswith("//"))
        if code.strip():
            yield code.strip()


@dataclass(frozen=True)
class ApiReportDiff:
    """Public declarations of the entry point: how many, and which changed or vanished."""

    base_declarations: int
    changed_or_removed: frozenset[str]


def compare_reports(base: str, head: str) -> ApiReportDiff:
    old, new = declarations(base), declarations(head)
    changed = frozenset(name for name, text in old.items() if new.get(name) != text)
    return ApiReportDiff(base_declarations=len(old), changed_or_removed=changed)


def _config(project: Path, entry_point: str, reports: Path) -> dict[str, object]:
    silent = {"default": {"logLevel": "none"}}
    return {
        "projectFolder": str(project),
        "mainEntryPointFilePath": str(project / entry_point),
        "newlineKind": "lf",
        "compiler": {
            "overrideTsconfig": {
                "compilerOptions": {
                    "module": "esnext",
                    "moduleResolution": "bundler",
                    "target": "es2022",
                    "strict": True,
                    "skipLibCheck": True,
                },
                "include": [entry_point],
            }
        },
        "apiReport": {
            "enabled": True,
            "reportFileName": "api",
            "reportFolder": str(reports),
            "reportTempFolder": str(reports / "temp"),
        },
        "docModel": {"enabled": False},
        "dtsRollup": {"enabled": False},
        "tsdocMetadata": {"enabled": False},
        "messages": {
            "compilerMessageReporting": silent,
            "extractorMessageReporting": silent,
            "tsdocMessageReporting": silent,
        },
    }


def _checkout(repo: Path, ref: str, dest: Path) -> None:
    archive = git_archive(repo, ref)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(fresh_dir(dest), filter="data")


def git_archive(repo: Path, ref: str) -> bytes:
    done = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", ref], capture_output=True, check=False
    )
    if done.returncode != 0:
        raise BenchError(f"git archive {ref} failed: {done.stderr.decode().strip()}")
    return done.stdout


def api_report(script: Path, repo: Path, ref: str, entry_point: str, work: Path) -> str:
    """API Extractor's report of ``entry_point`` at ``ref``."""
    project = work / ref / "tree"
    reports = fresh_dir(work / ref / "report")
    _checkout(repo, ref, project)
    config = project / "api-extractor.json"
    config.write_text(json.dumps(_config(project, entry_point, reports), indent=2))
    run_checked([str(script), "run", "--local", "--config", str(config)], cwd=project)
    written = sorted(reports.glob("*.md"))
    if not written:
        raise BenchError(f"API Extractor wrote no report for {ref} in {reports}")
    return written[0].read_text(encoding="utf-8")


def api_extractor_diff(script: Path, repo: Path, entry_point: str, work: Path) -> ApiReportDiff:
    """Both reports, compared: the anchor's whole job, timed as one step."""
    base = api_report(script, repo, BASE_REF, entry_point, work)
    head = api_report(script, repo, HEAD_REF, entry_point, work)
    return compare_reports(base, head)
