"""Evidence that needs the whole doc: names its own code binds, and autosummary entries."""

from __future__ import annotations

from prflow.docsync.finding import find_affected_docs
from prflow.docsync.mentions import autosummary_entries, bound_names, doc_lines
from prflow.docsync.models import AffectedDoc, Bucket, Change, Target, TargetKind
from prflow.source_tree import MemoryTree

# networkx 3.0 removed the ``random_state`` decorator, ``info`` and ``coverage``.
RANDOM_STATE = Target(
    kind=TargetKind.symbol,
    name="random_state",
    change=Change.removed,
    weight=1.0,
    source="networkx/utils/decorators.py",
)
INFO = Target(
    kind=TargetKind.symbol,
    name="info",
    change=Change.removed,
    weight=1.0,
    source="networkx/classes/function.py",
)
COVERAGE = Target(
    kind=TargetKind.symbol,
    name="coverage",
    change=Change.removed,
    weight=1.0,
    source="networkx/algorithms/community/quality.py",
)
UNION = Target(
    kind=TargetKind.symbol,
    name="union",
    change=Change.signature,
    weight=0.9,
    source="networkx/algorithms/operators/binary.py",
    params=["name"],
    before="union(G, H, rename=(None, None), name=None)",
    after="union(G, H, rename=())",
)


def _found(docs: dict[str, str], *targets: Target) -> dict[str, AffectedDoc]:
    findings = find_affected_docs(list(targets), MemoryTree(docs))
    return {doc.path: doc for doc in findings.docs}


def test_bound_names_are_what_the_docs_own_code_binds() -> None:
    code = [
        ">>> random_state = numpy.random.RandomState(42)",
        "    def create(seed=None, *args, **kwargs):",
        "for node, data in G.nodes(data=True):",
        "import numpy as np",
        "pos = layout(G, seed=random_state)  # use your own RNG",
        "x == y",
    ]
    assert bound_names(code) == {
        "random_state",
        "seed",
        "args",
        "kwargs",
        "node",
        "data",
        "np",
        "pos",
    }


def test_a_name_the_doc_binds_itself_is_its_variable_not_the_removed_api() -> None:
    found = _found(
        {
            "randomness.rst": "Reuse your RNG::\n\n"
            "    >>> random_state = numpy.random.RandomState(42)\n"
            "    >>> pos = random_layout(G, seed=random_state)\n",
            "nxep.rst": "Today::\n\n    def create_random_state(random_state=None):\n"
            "        if isinstance(random_state, np.random.RandomState):\n"
            "            return random_state\n",
            "decorated.rst": "Use it::\n\n    random_state = 1\n\n"
            "    @random_state('seed')\n    def f(seed): ...\n",
            "imported.rst": "Use it::\n\n    from networkx.utils import random_state\n"
            "    random_state = random_state(1)\n",
            "used.rst": "Use it::\n\n    @random_state('seed')\n    def f(seed): ...\n",
        },
        RANDOM_STATE,
    )
    assert "randomness.rst" not in found
    assert "nxep.rst" not in found
    # a decorator or an import is the API object even where the doc binds the name too
    assert found["decorated.rst"].bucket == Bucket.must_update
    assert found["decorated.rst"].evidence[0].excerpt == "@random_state('seed')"
    assert found["imported.rst"].bucket == Bucket.must_update
    assert found["used.rst"].bucket == Bucket.must_update


def test_autosummary_entries_are_the_indented_names_under_the_directive() -> None:
    text = (
        "Measuring partitions\n--------------------\n"
        ".. autosummary::\n   :toctree: generated/\n\n   coverage\n   ~quality.modularity\n"
        "\nThe coverage of a partition is a ratio.\n"
    )
    assert autosummary_entries(doc_lines(text, "community.rst")) == {6, 7}


def test_an_autosummary_entry_of_a_removed_plain_word_name_must_be_updated() -> None:
    page = (
        ".. automodule:: networkx.algorithms.community.quality\n"
        ".. autosummary::\n   :toctree: generated/\n\n   coverage\n   modularity\n"
    )
    found = _found(
        {
            "community.rst": page,
            "prose.rst": "The coverage of a partition is a ratio.\n",
            "functions.rst": ".. autosummary::\n   :toctree: generated/\n\n   info\n   nodes\n",
            "other_module.rst": ".. autosummary::\n\n   pandas.info\n",
        },
        COVERAGE,
        INFO,
    )
    assert found["community.rst"].bucket == Bucket.must_update
    assert (found["community.rst"].evidence[0].target, found["community.rst"].evidence[0].line) == (
        "coverage",
        5,
    )
    assert found["functions.rst"].bucket == Bucket.must_update
    assert "prose.rst" not in found  # the English word is no evidence
    assert "other_module.rst" not in found  # another module's `info`


def test_an_autosummary_entry_of_a_changed_signature_is_probably_fine() -> None:
    """Sphinx renders the new signature from the code: the entry itself does not go stale."""
    found = _found(
        {"operators.rst": ".. autosummary::\n   :toctree: generated/\n\n   union\n"}, UNION
    )
    assert found["operators.rst"].bucket == Bucket.probably_fine


def test_a_glossary_term_a_label_or_a_bare_member_role_names_no_top_level_object() -> None:
    iterable = Target(
        kind=TargetKind.symbol,
        name="iterable",
        change=Change.removed,
        weight=1.0,
        source="networkx/utils/misc.py",
    )
    logger = Target(
        kind=TargetKind.symbol,
        name="logger",
        change=Change.removed,
        weight=1.0,
        source="scrapy/utils/log.py",
    )
    found = _found(
        {
            "tutorial.rst": "Add nodes from any :py:term:`iterable` container.\n",
            "label.rst": "See :ref:`logger <topics-logging>` for more.\n",
            "spiders.rst": "Sends a message through the Spider's :attr:`logger`.\n",
            "func.rst": "Use :func:`~networkx.utils.misc.iterable` to check.\n",
            "qualified.rst": "Use :attr:`scrapy.utils.log.logger`.\n",
        },
        iterable,
        logger,
    )
    assert set(found) == {"func.rst", "qualified.rst"}
    assert found["func.rst"].bucket == Bucket.must_update


def test_a_member_declared_inside_another_class_directive_is_not_this_member() -> None:
    open_spider = Target(
        kind=TargetKind.symbol,
        name="HttpCompressionMiddleware.open_spider",
        change=Change.removed,
        weight=1.0,
        source="scrapy/downloadermiddlewares/httpcompression.py",
    )
    found = _found(
        {
            "api.rst": ".. class:: StatsCollector\n\n    .. method:: open_spider(spider)\n\n"
            "        Open the given spider for stats collection.\n",
            "mw.rst": ".. class:: HttpCompressionMiddleware\n\n"
            "    .. method:: open_spider(spider)\n",
            "elsewhere.rst": "Call ``HttpCompressionMiddleware.open_spider`` first.\n",
        },
        open_spider,
    )
    assert set(found) == {"mw.rst", "elsewhere.rst"}


def test_words_about_arguments_inside_a_string_literal_are_no_prose_about_parameters() -> None:
    perror = Target(
        kind=TargetKind.symbol,
        name="CmdLineApp.perror",
        change=Change.signature,
        weight=0.9,
        params=["msg"],
        before="CmdLineApp.perror(msg: Any, *, end: str = '\\n') -> None",
        after="CmdLineApp.perror(self, msg: Any = '', *, end: str = '\\n') -> None",
    )
    found = _found(
        {
            "args.rst": "Complain::\n\n"
            '    self.perror("dir does not take any positional arguments:")\n',
            "prose.rst": "The arguments of ``CmdLineApp.perror`` are printed to stderr.\n",
        },
        perror,
    )
    # the call passes `msg` as before: it cannot see the new default
    assert found["args.rst"].bucket == Bucket.probably_fine
    assert found["prose.rst"].bucket == Bucket.must_update


def test_strong_evidence_names_the_changed_parameters_even_when_the_line_passes_unknown_ones() -> (
    None
):
    fetch = Target(
        kind=TargetKind.symbol,
        name="fetch_token",
        change=Change.signature,
        weight=0.9,
        params=["client_secret", "timeout"],
    )
    found = _found(
        {
            "about.md": "The keyword arguments of `fetch_token` go to the session.\n",
            "positional.md": "```python\nfetch_token(url, secret, 30)\n```\n",
            "named.md": "```python\nfetch_token(token_url=url, timeout=30)\n```\n",
        },
        fetch,
    )
    seen = {path: doc.evidence[0].seen for path, doc in found.items()}
    assert seen == {
        "about.md": ["client_secret", "timeout"],
        "positional.md": ["client_secret", "timeout"],  # which slot is which is unknown
        "named.md": ["timeout"],
    }
    assert {doc.bucket for doc in found.values()} == {Bucket.must_update}


def test_a_rest_section_underlined_with_tildes_is_prose_not_a_fence() -> None:
    """``~~~~`` under a reST title is the title's underline; Markdown's ``~~~`` fence does not
    exist there (notebook's "Docker CMD" section read as code down to the next underline).
    In Markdown it still opens a fence."""
    rst = "Proxies\n~~~~~~~\n\nUse your Dockerfile here.\n\nExample::\n\n    run()\n"
    assert [(n, code) for n, _line, code in doc_lines(rst, "server.rst")] == [
        (1, False),
        (2, False),
        (3, False),
        (4, False),
        (5, False),
        (6, False),
        (7, False),
        (8, True),
    ]
    markdown = "~~~\nrun()\n~~~\nprose\n"
    assert [code for _n, _line, code in doc_lines(markdown, "server.md")] == [
        False,
        True,
        False,
        False,
    ]
