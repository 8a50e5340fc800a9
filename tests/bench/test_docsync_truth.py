"""The doc sync bench's oracles: the strict truth counts a doc only when upstream's edit
changed a line that writes a changed name as code; the old truth counts any edited doc
that names it as a word."""

from __future__ import annotations

from bench.docsync.truth import (
    code_edit_truth_docs,
    code_lines,
    code_names,
    mentions_in_code,
    truth_docs,
)

NAMES = {"spider", "fetch_token", "schedule"}


def _strict(base: str, head: str | None, names: set[str] = NAMES) -> dict[str, set[str]]:
    heads = {} if head is None else {"doc.rst": head}
    return code_edit_truth_docs({"doc.rst": base}, heads, names)


def test_prose_word_edited_for_another_reason_is_old_truth_only() -> None:
    base = "Writing a spider\n================\n\nA spider crawls a site.\nSee the tutorail.\n"
    head = base.replace("tutorail", "tutorial")
    assert truth_docs({"doc.rst": base}, {"doc.rst": head}, NAMES) == {"doc.rst"}
    assert _strict(base, head) == {}


def test_a_prose_line_naming_the_word_edited_is_still_not_code() -> None:
    base = "A spider crawls a site.\n"
    head = "A spider crawls a whole site.\n"
    assert _strict(base, head) == {}


def test_inline_code_and_roles_on_an_edited_line_count() -> None:
    for line in (
        "Call ``spider`` first.",
        "Call `spider` first.",
        "See :meth:`Crawler.spider` first.",
        "Pass ``client.fetch_token`` the secret.",
    ):
        got = _strict(line + "\n", "Something else.\n")
        assert got, line
    assert _strict("See :meth:`Crawler.spider`.\n", "Gone.\n") == {"doc.rst": {"spider"}}


def test_code_shapes_in_prose_count() -> None:
    assert _strict("then spider(url) runs\n", "x\n") == {"doc.rst": {"spider"}}
    assert _strict("set crawler.spider to it\n", "x\n") == {"doc.rst": {"spider"}}
    assert _strict("with spider=None as default\n", "x\n") == {"doc.rst": {"spider"}}
    assert _strict("if spider == other\n", "x\n") == {}


def test_an_edit_elsewhere_in_a_doc_with_code_mentions_does_not_count() -> None:
    base = "Use ``spider``.\n\nUnrelated paragraph.\n"
    head = "Use ``spider``.\n\nA better unrelated paragraph.\n"
    assert _strict(base, head) == {}


def test_only_inserted_lines_do_not_count() -> None:
    base = "Use ``spider``.\n"
    head = "Use ``spider``.\nAnd ``schedule``.\n"
    assert _strict(base, head) == {}


def test_whitespace_only_edits_do_not_count() -> None:
    base = "Use ``spider``  here.\n"
    head = "    Use ``spider`` here.\n"
    assert _strict(base, head) == {}


def test_reST_literal_block_lines_are_code() -> None:
    base = (
        "Example::\n\n    observer.schedule(handler, '.')\n    spider = 1\n\n"
        "A spider again in prose.\n"
    )
    assert code_lines(base) == {3, 4}
    head = base.replace("spider = 1", "crawler = 1")
    assert _strict(base, head) == {"doc.rst": {"spider"}}
    prose = base.replace("A spider again", "The spider again")
    assert _strict(base, prose) == {}


def test_code_directive_bodies_are_code_but_notes_are_prose() -> None:
    base = (
        ".. code-block:: python\n\n   spider\n\n"
        ".. note::\n\n   a spider here\n\n"
        "```python\nschedule\n```\n"
        ">>> spider\n"
    )
    assert code_lines(base) == {3, 9, 10, 11, 12}


def test_fenced_block_edit_counts_with_a_bare_name() -> None:
    base = "Intro\n\n```python\nresult = spider\n```\n"
    head = "Intro\n\n```python\nresult = crawler\n```\n"
    assert _strict(base, head) == {"doc.rst": {"spider"}}


def test_sphinx_directive_arguments_name_api_objects() -> None:
    line = ".. automethod:: Crawler.spider"
    assert mentions_in_code(line, False, NAMES) == {"spider"}
    assert mentions_in_code(".. note:: the spider is slow", False, NAMES) == set()


def test_whole_words_only() -> None:
    assert mentions_in_code("``spiders``", False, NAMES) == set()
    assert mentions_in_code("spider_name = 1", True, NAMES) == set()
    assert mentions_in_code("``fetch_token``", False, NAMES) == {"fetch_token"}


def test_a_removed_doc_counts_when_any_line_writes_a_name_as_code() -> None:
    assert _strict("Title\n\nUse ``schedule``.\n", None) == {"doc.rst": {"schedule"}}
    assert _strict("Title\n\nA spider in prose.\n", None) == {}


def test_no_names_no_truth() -> None:
    assert _strict("Use ``spider``.\n", "x\n", set()) == {}


def test_words_in_string_literals_and_comments_of_code_are_text() -> None:
    assert mentions_in_code("u'errmsg': u'duplicate key spider'", True, NAMES) == set()
    assert mentions_in_code('tags = ["bulk", "spider"]  # a spider', True, NAMES) == set()
    assert mentions_in_code("run(spider)  # the spider", True, NAMES) == {"spider"}


def test_hyperlinks_and_text_roles_are_not_code() -> None:
    line = "- `spider <https://pypi.org/project/spider>`_ adds support"
    assert mentions_in_code(line, False, NAMES) == set()
    assert mentions_in_code("see `spider`_ below", False, NAMES) == set()
    assert mentions_in_code("a :term:`spider` crawls", False, NAMES) == set()
    assert mentions_in_code("see :py:meth:`spider`", False, NAMES) == {"spider"}


def test_quote_style_and_u_prefix_edits_are_formatting() -> None:
    base = "    observer.schedule(handler, '.', recursive=True)\n"
    assert _strict("Example::\n\n" + base, "Example::\n\n" + base.replace("'", '"')) == {}
    old = "    spider(u'test')\n"
    assert _strict("Example::\n\n" + old, "Example::\n\n    spider('test')\n") == {}
    changed = "Example::\n\n    spider('test', depth=2)\n"
    assert _strict("Example::\n\n" + old, changed) == {"doc.rst": {"spider"}}


def test_a_word_before_a_parenthesis_in_prose_is_no_call() -> None:
    assert mentions_in_code("Long spider (~350 hours)", False, NAMES) == set()


def test_whole_dotted_paths_count_whatever_the_last_part() -> None:
    objects = ["pkg.algorithms.hmn", "Graph.add", "src.pkg.io.commands", "Graph.__init__"]
    names = code_names(objects, "pkg")
    assert names == {
        "pkg.algorithms.hmn",
        "algorithms.hmn",
        "Graph.add",
        "pkg.io.commands",
        "io.commands",
        "Graph",
    }
    assert mentions_in_code("commands = pytest {posargs}", True, names) == set()
    assert mentions_in_code("from pkg.io import commands", True, names) == set()
    assert mentions_in_code("pkg.io.commands.run()", True, names) == {"pkg.io.commands"}
    line = ".. automodule:: pkg.algorithms.hmn"
    assert "pkg.algorithms.hmn" in mentions_in_code(line, False, names)
    assert mentions_in_code("see :meth:`pkg.Graph.add`", False, names) == {"Graph.add"}
    assert mentions_in_code("the hmn module", False, names) == set()


def test_string_literals_inside_inline_code_are_text() -> None:
    names = {"next", "follow"}
    line = "``response.follow(response.css('li.next a'))`` is not valid"
    assert mentions_in_code(line, False, names) == {"follow"}
    assert mentions_in_code("``response.css('li.next a')`` works", False, names) == set()
