"""The doc sync bench's headline oracle: upstream edited a line that uses a broken object the
way griffe's breakage touches it (a call passing the changed slot, a result used, a member read
through its receiver), or that names a file the release removed."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

from bench.docsync.__main__ import _stale_left
from bench.docsync.breakages import Breakage, _still_there, pair_breakages
from bench.docsync.later_fix import later_release
from bench.docsync.removed_files import file_names, file_use_docs, removed_files
from bench.docsync.use_truth import line_judge, use_truth_docs
from bench.eval_sets.registry import Release
from bench.impact.pairs import PythonPair
from prflow.docsync.doc_index import DocGlobs

INIT_REMOVED = Breakage(
    "PARAMETER_REMOVED", "flask.app.Flask.__init__", "Flask.__init__", parameter="static_path",
    old_slot=1,
)  # fmt: skip
SEND_RENAMED = [
    Breakage("PARAMETER_REMOVED", "zmq.Socket.send", "Socket.send", parameter="msg", old_slot=0),
    Breakage(
        "PARAMETER_ADDED_REQUIRED", "zmq.Socket.send", "Socket.send", parameter="data",
        new_slot=0, new_kind="positional or keyword",
    ),
]  # fmt: skip
BIND_RETURNS = Breakage("RETURN_CHANGED_TYPE", "zmq.Socket.bind", "Socket.bind")
NAME_REMOVED = Breakage("OBJECT_REMOVED", "flask.app.Flask.logger_name", "Flask.logger_name")
LOGGER_PROPERTY = Breakage(
    "OBJECT_CHANGED_KIND", "flask.app.Flask.logger", "Flask.logger", same_access=True
)


def _edited(lines: dict[str, str], breakages: list[Breakage]) -> set[str]:
    """Which one-line docs count when upstream rewrote their only line."""
    base = {path: f"Example::\n\n    {line}\n" for path, line in lines.items()}
    head = {path: "Example::\n\n    rewritten()\n" for path in lines}
    return set(use_truth_docs(base, head, breakages, "flask"))


def test_a_call_counts_only_when_it_passes_the_slot_or_keyword_that_changed() -> None:
    found = _edited(
        {
            "plain.rst": "app = Flask(__name__)",
            "slot.rst": "app = Flask(__name__, '/static')",
            "keyword.rst": "app = Flask(__name__, static_path='/s')",
            "unpacked.rst": "app = Flask(*args)",
            "reference.rst": "app.add_url_rule('/', view_func=flask.Flask.route)",
            "subclass.rst": "class Flask(Base): pass",
        },
        [INIT_REMOVED],
    )
    assert found == {"slot.rst", "keyword.rst", "unpacked.rst"}


def test_a_renamed_parameter_breaks_keyword_callers_only() -> None:
    found = _edited(
        {
            "positional.rst": "sock.send(payload)",
            "keyword.rst": "sock.send(msg=payload)",
            "bare.rst": "send(msg=payload)",
        },
        SEND_RENAMED,
    )
    assert found == {"keyword.rst"}


def test_a_changed_return_counts_where_the_result_is_used() -> None:
    found = _edited(
        {
            "statement.rst": "sock.bind('tcp://*:5555')",
            "bound.rst": "port = sock.bind('tcp://*:5555')",
            "chained.rst": "sock.bind('tcp://*:5555').close()",
        },
        [BIND_RETURNS],
    )
    assert found == {"bound.rst", "chained.rst"}


def test_a_member_is_read_through_a_receiver_and_a_property_reads_the_same() -> None:
    found = _edited(
        {
            "attribute.rst": "print(app.logger_name)",
            "local.rst": "for logger_name in names: pass",
            "property.rst": "app.logger.addHandler(handler)",
        },
        [NAME_REMOVED, LOGGER_PROPERTY],
    )
    assert found == {"attribute.rst"}


def test_a_sphinx_signature_listing_a_removed_parameter_counts_and_unedited_lines_never() -> None:
    base = {
        "sig.rst": ".. method:: Flask(import_name, static_path=None)\n",
        "same.rst": "Example::\n\n    app = Flask(__name__, static_path='/s')\n",
    }
    head = {"sig.rst": ".. method:: Flask(import_name)\n", "same.rst": base["same.rst"]}
    assert set(use_truth_docs(base, head, [INIT_REMOVED], "flask")) == {"sig.rst"}


def test_a_line_naming_a_removed_file_or_its_module_counts() -> None:
    base_files = {
        "docs/_static/flaskr.png",
        "examples/flaskr/flaskr/flaskr.py",
        "flask/json.py",
        "docs/index.rst",
    }
    head_files = {"flask/json/__init__.py", "docs/_static/logo.png"}
    removed = removed_files(base_files, head_files, DocGlobs())
    assert "docs/index.rst" not in removed
    base = {
        "image.rst": ".. image:: ../_static/flaskr.png\n",
        "module.rst": "Run ``export FLASK_APP=flaskr.flaskr``.\n",
        "package.rst": "Use ``flask.json.dumps``.\n",
    }
    head = {path: "Rewritten.\n" for path in base}
    found = file_use_docs(base, head, *file_names(removed, head_files))
    assert set(found) == {"image.rst", "module.rst"}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_griffe_breakages_carry_the_slot_a_caller_passes(tmp_path: Path) -> None:
    """The records come from griffe's own comparison of two commits of a real package."""
    repo = tmp_path / "repo"
    package = repo / "acme"
    package.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "user.name", "t")
    (package / "__init__.py").write_text(
        "class Client:\n"
        "    def __init__(self, url, timeout=1, retries=0):\n        pass\n\n"
        "    def send(self, msg):\n        pass\n\n"
        "def gone():\n    pass\n\n"
        "def tool():\n    pass\n"
    )
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    _git(repo, "tag", "base")
    (package / "__init__.py").write_text(
        "class Client:\n"
        "    def __init__(self, url, retries=0):\n        pass\n\n"
        "    def send(self, data):\n        pass\n\n"
        "def wrap(f):\n    return f\n\n"
        "def _tool():\n    pass\n\n"
        "tool = wrap(_tool)\n"
    )
    _git(repo, "commit", "-q", "-am", "head")
    _git(repo, "tag", "head")
    pair = PythonPair("acme", "1", "2", import_package="acme")
    found = pair_breakages(repo, pair, tmp_path / "breakages.json")
    by_kind = {(b.kind, b.name, b.parameter): b for b in found}
    removed = by_kind[("PARAMETER_REMOVED", "Client.__init__", "timeout")]
    assert removed.old_slot == 1  # ``self`` is not a caller's slot
    assert by_kind[("PARAMETER_MOVED", "Client.__init__", "retries")].new_slot == 1
    assert by_kind[("PARAMETER_ADDED_REQUIRED", "Client.send", "data")].new_slot == 0
    assert ("OBJECT_REMOVED", "gone", None) in by_kind
    assert by_kind[("OBJECT_CHANGED_KIND", "tool", None)].same_access  # rebound, called alike
    assert (tmp_path / "breakages.json").is_file()


def test_the_later_release_is_the_last_of_the_head_s_line_within_a_year() -> None:
    history = [
        Release("1.9", "2020-01-01T00:00:00Z"),
        Release("2.0", "2021-01-01T00:00:00Z"),
        Release("2.1", "2021-06-01T00:00:00Z"),
        Release("2.2", "2021-11-01T00:00:00Z", has_sdist=False),
        Release("2.3", "2022-03-01T00:00:00Z"),
        Release("3.0", "2021-09-01T00:00:00Z"),
    ]
    assert later_release(history, "2.0") == "2.1"
    assert later_release(history, "3.0") is None
    assert later_release(history, "9.9") is None


def test_a_module_the_head_still_ships_is_no_removal() -> None:
    """griffe reported celery 1.0's ``celery/registry.py`` removed although the release still
    ships it; a doc line importing it is then no use of a removed module."""
    module = Breakage("OBJECT_REMOVED", "acme.registry", "acme.registry", is_module=True)
    assert _still_there(module, {"acme/registry.py"}, ".")
    assert _still_there(module, {"src/acme/registry/__init__.py"}, "src")
    assert not _still_there(module, {"src/acme/registry.py"}, ".")
    base = {"doc.rst": "Example::\n\n    from acme.registry import tasks\n"}
    head = {"doc.rst": "Example::\n\n    from acme import tasks\n"}
    assert set(use_truth_docs(base, head, [module], "acme")) == {"doc.rst"}
    marked = replace(module, still_there=True)
    assert set(use_truth_docs(base, head, [marked], "acme")) == set()


def test_a_directive_declaring_a_removed_member_counts_even_indented_in_a_block() -> None:
    """pyopenssl 21 removed ``X509StoreFlags.CB_ISSUER_CHECK``; its ``.. data::`` line sits
    in an indented block that reads as code, where a bare member name would be a local."""
    removed = Breakage(
        "OBJECT_REMOVED", "OpenSSL.crypto.X509StoreFlags.CB_ISSUER_CHECK",
        "X509StoreFlags.CB_ISSUER_CHECK",
    )  # fmt: skip
    base = {"doc.rst": "Flags::\n\n    .. data:: CB_ISSUER_CHECK\n    CB_ISSUER_CHECK = 1\n"}
    head = {"doc.rst": "Flags::\n\n    .. data:: OTHER\n    OTHER = 1\n"}
    assert use_truth_docs(base, head, [removed], "OpenSSL") == {"doc.rst": {"CB_ISSUER_CHECK"}}
    only_local = {"doc.rst": "Flags::\n\n    CB_ISSUER_CHECK = 1\n"}
    assert (
        use_truth_docs(only_local, {"doc.rst": "Flags::\n\n    X = 1\n"}, [removed], "OpenSSL")
        == {}
    )


def test_a_flagged_doc_whose_broken_line_upstream_left_is_counted_stale() -> None:
    """The bench's diagnostic: a doc flagged outside the truth that points at a line upstream
    left, where that line uses a broken object the way the breakage touches it."""
    base_docs = {
        "stale.rst": "Example::\n\n    app = Flask(__name__, static_path='/s')\n",
        "fine.rst": "Example::\n\n    app = Flask(__name__)\n",
    }

    def flagged(path: str) -> dict[str, object]:
        return {"path": path, "bucket": "must_update", "evidence": [{"line": 3, "kind": "mention"}]}

    findings: dict[str, object] = {"docs": [flagged("stale.rst"), flagged("fine.rst")]}
    judge = line_judge([INIT_REMOVED], "flask")
    assert _stale_left(findings, set(base_docs), {}, base_docs, judge) == 1
    assert _stale_left(findings, set(base_docs), {"stale.rst": {3}}, base_docs, judge) == 0
