"""Which doc lines name a changed symbol: code-like mentions count, plain words in prose don't."""

from __future__ import annotations

from prflow.changes import ChangedFile, FileCategory, FileStatus
from prflow.docsync.doc_index import DocGlobs
from prflow.docsync.finding import find_affected_docs
from prflow.docsync.mentions import changed_params, doc_lines
from prflow.docsync.models import Bucket, Change, Target, TargetKind
from prflow.docsync.targets import find_targets
from prflow.source_tree import MemoryTree

# A CLI function ``review`` whose signature changed (like prflow's own commands).
REVIEW = Target(
    kind=TargetKind.symbol,
    name="review",
    change=Change.signature,
    weight=0.9,
    source="prflow/cli/review_cmd.py",
    params=["deadline"],
)


def _buckets(docs: dict[str, str], *targets: Target) -> dict[str, Bucket]:
    found = find_affected_docs(list(targets or [REVIEW]), MemoryTree(docs))
    return {doc.path: doc.bucket for doc in found.docs}


def _removed(name: str, source: str) -> Target:
    return Target(
        kind=TargetKind.symbol, name=name, change=Change.removed, weight=1.0, source=source
    )


def test_a_plain_word_in_prose_or_a_command_line_is_not_a_mention() -> None:
    buckets = _buckets(
        {
            "README.md": "# Tool\n\n- **review** (`prflow review --repo .`): multi-agent.\n"
            "\n```bash\nprflow review --repo . --base main\n```\n\nWe review every PR.\n",
        }
    )
    assert buckets == {}


def test_a_call_or_a_code_span_of_the_name_counts() -> None:
    buckets = _buckets(
        {
            "call.md": "Run it from Python:\n\n```python\nreview(repo, 'main')\n```\n",
            "prose_call.md": "Call review(repo) to start.\n",
            "span.md": "The `review` function starts a run.\n",
            "qualified.rst": "See :func:`review_cmd.review`.\n",
        }
    )
    assert buckets["call.md"] == Bucket.must_update  # positional arguments: may be what changed
    assert buckets["prose_call.md"] == Bucket.must_update
    # a reference alone still points at the right function: listed, probably fine
    assert buckets["span.md"] == Bucket.probably_fine
    assert buckets["qualified.rst"] == Bucket.probably_fine


def test_a_changed_parameter_named_next_to_it_counts() -> None:
    buckets = _buckets(
        {
            "param.md": "The `review` function stops at `deadline`.\n",
            "kwarg.md": "```python\nreview(deadline=60)\n```\n",
            "about.md": "Keyword arguments of `review` are passed on.\n",
            "other_kwarg.md": "```python\nreview(quiet=True)\n```\n",
            "option.md": "The `review` command takes `--deadline 15m`.\n",
        }
    )
    assert buckets["param.md"] == Bucket.must_update
    assert buckets["kwarg.md"] == Bucket.must_update
    assert buckets["about.md"] == Bucket.must_update  # the line describes its parameters
    assert buckets["other_kwarg.md"] == Bucket.probably_fine  # `quiet` did not change
    assert buckets["option.md"] == Bucket.probably_fine  # a CLI option is not the parameter


def test_removed_common_words_count_only_as_identifiers_and_never_in_strings() -> None:
    removed = _removed("Map.charset", "src/werkzeug/routing.py")
    url = Target(kind=TargetKind.symbol, name="URL", change=Change.removed, weight=1.0)
    buckets = _buckets(
        {
            "string.rst": "Respond::\n\n    start_response('200 OK', [('Content-Type', "
            "'text/html; charset=utf-8')])\n",
            "comment.rst": ">>> # a requirement may name a URL\n>>> parse('x')\n",
            "attribute.md": "```python\nurl_map.charset = 'latin1'\n```\n",
            "used.md": "```python\nfrom werkzeug.urls import URL\n```\n",
        },
        removed,
        url,
    )
    assert buckets == {"attribute.md": Bucket.must_update, "used.md": Bucket.must_update}


def test_a_method_call_on_another_class_is_not_a_mention() -> None:
    invoke = Target(
        kind=TargetKind.symbol,
        name="Context.invoke",
        change=Change.signature,
        weight=0.9,
        params=["callback"],
    )
    buckets = _buckets(
        {
            "other.md": "```python\nresult = command.invoke(ctx)\n```\n",
            "ctx.md": "```python\nctx.invoke(other, count=3)\n```\n",
        },
        invoke,
    )
    assert buckets == {"ctx.md": Bucket.must_update}


def test_rst_code_directives_are_code() -> None:
    text = "Use it:\n\n.. code-block:: python\n\n    pprint(result)\n\nDone.\n"
    assert [(n, code) for n, _line, code in doc_lines(text, "a.rst") if code] == [(5, True)]
    removed = Target(kind=TargetKind.symbol, name="pprint", change=Change.removed, weight=1.0)
    assert _buckets({"a.rst": text}, removed) == {"a.rst": Bucket.must_update}


def test_changed_params_ignore_annotations_and_keyword_only_moves() -> None:
    before = "post_load(fn=None, pass_many=False, pass_original=False) -> Callable"
    after = "post_load(fn: Callable | None = None, *, pass_collection: bool = False, "
    after += "pass_original: bool = False) -> Callable"
    assert changed_params(before, after) == ["pass_collection", "pass_many"]
    assert changed_params("open(url, timeout=10)", "open(url, *, timeout)") == ["timeout"]
    assert changed_params("f(a", "f(a)") == []  # does not parse: unknown


def test_a_very_common_name_alone_in_a_code_span_is_not_a_mention() -> None:
    pr = Target(kind=TargetKind.symbol, name="PR", change=Change.removed, weight=1.0)
    buckets = _buckets(
        {
            "ui.md": "Search attributes `Repo`, `PR` and `Kind` are shown.\n",
            "code.md": "```python\nfrom worker.search_attributes import PR\n```\n",
        },
        pr,
    )
    assert buckets == {"code.md": Bucket.must_update}


def test_a_moved_config_key_is_stale_only_by_its_full_path() -> None:
    base = "services:\n  worker:\n    command: run\n    cpus: 2\n"
    head = "services:\n  workers:\n    command: run\n"
    changed = [
        ChangedFile(path="compose.yaml", status=FileStatus.modified, category=FileCategory.config)
    ]
    docs = {
        "moved.md": "Run `prflow <command> --help`; set `command: run`.\n",
        "full.md": "Set `services.worker.command` in the compose file.\n",
        "gone.md": "```yaml\ncpus: 2\n```\n",
    }
    targets = find_targets(
        changed, [], MemoryTree({"compose.yaml": base}), MemoryTree({"compose.yaml": head})
    )
    found = find_affected_docs(targets, MemoryTree(docs))
    assert {d.path: d.bucket for d in found.docs} == {
        "full.md": Bucket.must_update,
        "gone.md": Bucket.must_update,
    }


def _signature_target(name: str, before: str, after: str, source: str) -> Target:
    return Target(
        kind=TargetKind.symbol,
        name=name,
        change=Change.signature,
        weight=0.9,
        source=source,
        params=changed_params(before, after),
        before=before,
        after=after,
    )


def test_a_call_that_cannot_pass_what_changed_is_probably_fine() -> None:
    fetch = _signature_target(
        "fetch",
        "fetch(url, retries=3, timeout=10)",
        "fetch(url, retries=3, *, deadline=None)",
        "acme/client.py",
    )
    docs = {
        "one_positional.md": "```python\nfetch('https://example.org')\n```\n",
        "retries.md": "```python\nfetch('https://example.org', 5)\n```\n",
        "timeout.md": "```python\nfetch('https://example.org', timeout=3)\n```\n",
        "positional_timeout.rst": ">>> fetch('https://example.org', 5, 30)\n",
        "multi_line.md": "```python\nfetch(\n    'https://example.org',\n    timeout=3,\n)\n```\n",
    }
    found = {d.path: d for d in find_affected_docs([fetch], MemoryTree(docs)).docs}
    assert found["one_positional.md"].bucket == Bucket.probably_fine
    assert found["retries.md"].bucket == Bucket.probably_fine  # `retries` did not change
    for stale in ("timeout.md", "positional_timeout.rst", "multi_line.md"):
        assert found[stale].bucket == Bucket.must_update, stale
        assert found[stale].evidence[0].seen == ["timeout"], stale


def test_a_method_call_does_not_pass_self_and_a_new_required_parameter_is_seen() -> None:
    connect = _signature_target(
        "Pool.connect",
        "Pool.connect(self, host, port=5432)",
        "Pool.connect(self, host, port=5432, *, user)",
        "acme/pool.py",
    )
    found = find_affected_docs(
        [connect],
        MemoryTree({"pool.md": "```python\npool.connect('db', 5433)\n```\n"}),
    )
    doc = found.docs[0]
    assert doc.bucket == Bucket.must_update
    assert doc.evidence[0].seen == ["user"]  # the call lacks what is now required


def test_a_local_of_the_same_name_or_another_modules_member_is_not_a_use() -> None:
    random_state = Target(
        kind=TargetKind.symbol, name="random_state", change=Change.removed, weight=1.0
    )
    utils = Target(
        kind=TargetKind.symbol,
        name="networkx.algorithms.node_classification.utils",
        change=Change.removed,
        weight=1.0,
    )
    copy = Target(
        kind=TargetKind.symbol, name="FilterAtlas.copy", change=Change.removed, weight=1.0
    )
    buckets = _buckets(
        {
            "local.rst": ">>> random_state = numpy.random.RandomState(42)\n",
            "keyword.md": "```python\ndef shuffle(random_state=None):\n    pass\n```\n",
            "used.md": "```python\nfrom networkx.utils import random_state\n```\n",
            "other_utils.rst": ".. automodule:: networkx.algorithms.connectivity.utils\n",
            "other_import.md": "```python\nfrom networkx.utils import np_random_state\n```\n",
            "own_utils.rst": ".. automodule:: networkx.algorithms.node_classification.utils\n",
            "bare_copy.md": "```python\nH = G[v].copy()\nlinks = copy()\n```\n",
            "atlas_copy.md": "```python\ndef snapshot(self):\n    return self.copy()\n```\n",
        },
        random_state,
        utils,
        copy,
    )
    assert buckets == {
        "used.md": Bucket.must_update,
        "own_utils.rst": Bucket.must_update,
        "atlas_copy.md": Bucket.must_update,
    }


def test_a_variable_named_like_a_removed_member_is_the_docs_own() -> None:
    """tornado 5 removed ``TCPClient.io_loop``; a doc's ``io_loop = IOLoop.current()`` binds
    its own variable, while ``client.io_loop`` still reads the removed attribute."""
    io_loop = Target(
        kind=TargetKind.symbol, name="TCPClient.io_loop", change=Change.removed, weight=1.0
    )
    buckets = _buckets(
        {
            "local.rst": "Run::\n\n    io_loop = IOLoop.current()\n    io_loop.start()\n",
            "attribute.md": "```python\nclient = TCPClient()\nclient.io_loop.start()\n```\n",
        },
        io_loop,
    )
    assert buckets == {"attribute.md": Bucket.must_update}


def test_release_notes_in_their_own_folders_are_history() -> None:
    globs = DocGlobs()
    assert not globs.matches("doc/release/api_1.0.rst")
    assert not globs.matches("docs/whatsnew/v2.0.rst")
    assert not globs.matches("docs/news/1234.feature.md")
    assert not globs.matches("doc/release_2.0.rst")
    # markdown 3.0's change log lives in docs/change_log/, spelt with an underscore
    assert not globs.matches("docs/change_log/index.md")
    assert not globs.matches("docs/change-log.md")
    assert globs.matches("docs/releasing.md")  # how to make a release is a guide
    assert globs.matches("docs/api.rst")


def test_migration_and_upgrade_guides_are_history() -> None:
    globs = DocGlobs()
    assert not globs.matches("docs/how-to-guides/migrate_from_0_21.rst")
    assert not globs.matches("docs/upgrading.md")
    assert not globs.matches("doc/migration-guide.rst")
    assert not globs.matches("docs/porting_to_v2.rst")
    assert globs.matches("docs/database_migrations_howto.rst")  # not by its name


def test_history_files_named_after_a_version_or_a_year_and_guides_folders_are_history() -> None:
    globs = DocGlobs()
    assert not globs.matches("docs/versionhistory.rst")  # anyio's changelog
    assert not globs.matches("docs/source/2019-news.rst")  # gunicorn's news of a year
    assert not globs.matches("doc/2.0-changes.md")
    assert not globs.matches("docs/upgrade_guides/5.0.0.md")  # isort's, one per release
    assert not globs.matches("docs/migration/v3.md")
    assert not globs.matches("doc/extdev/deprecated.rst")  # a register of what went, and when
    assert globs.matches("docs/version.rst")  # how to read the version is no history
    assert globs.matches("docs/deprecation_policy.rst")  # a policy is a guide


def test_definitions_capital_words_and_other_classes_attributes_are_not_uses() -> None:
    crawler = _signature_target(
        "Queue.from_crawler",
        "Queue.from_crawler(cls, crawler, downstream_queue_cls, key)",
        "Queue.from_crawler(cls, crawler, downstream_queue_cls, key, start_queue_cls)",
        "scrapy/pqueues.py",
    )
    null = Target(kind=TargetKind.symbol, name="NULL", change=Change.removed, weight=1.0)
    comparator = Target(
        kind=TargetKind.symbol, name="Comparator", change=Change.removed, weight=1.0
    )
    buckets = _buckets(
        {
            "own_method.rst": "Write one::\n\n    def from_crawler(cls, crawler):\n        pass\n",
            "declared.rst": ".. method:: from_crawler(cls, crawler)\n",
            "sql.rst": "    user_name VARCHAR(40) NOT NULL,\n",
            "other_class.rst": "::\n\n    class PointComparator(CompositeProperty.Comparator):\n",
            "imported.md": "```python\nfrom acme.types import NULL, Comparator\n```\n",
        },
        crawler,
        null,
        comparator,
    )
    assert buckets == {"declared.rst": Bucket.probably_fine, "imported.md": Bucket.must_update}


def test_super_names_the_class_whose_base_member_is_called() -> None:
    from_crawler = Target(
        kind=TargetKind.symbol,
        name="PriorityQueue.from_crawler",
        change=Change.signature,
        weight=0.9,
        params=["startprios"],
    )
    own = "    spider = super(DmozSpider, cls).from_crawler(crawler, *args, **kwargs)\n"
    queue = "    queue = super(MyPriorityQueue, cls).from_crawler(crawler, *args)\n"
    buckets = _buckets(
        {
            "spider.rst": "Example::\n\n" + own,
            "queue.rst": "Example::\n\n" + queue,
            "bare.rst": "Example::\n\n    q = super().from_crawler(crawler, *args)\n",
        },
        from_crawler,
    )
    assert buckets == {"queue.rst": Bucket.must_update, "bare.rst": Bucket.must_update}


def test_a_class_directive_or_role_does_not_name_a_removed_module_of_that_name() -> None:
    """pexpect 4.0 removed the top-level shim module ``ANSI``; ``.. autoclass:: ANSI`` under
    ``.. automodule:: pexpect.ANSI`` documents the class ``pexpect.ANSI.ANSI``, still there.
    An import or a ``:mod:`` role of the module is a use of it."""
    module = _removed("ANSI", "ANSI.py").model_copy(update={"detail": "module `ANSI` was removed"})
    buckets = _buckets(
        {
            "api/ansi.rst": ".. automodule:: pexpect.ANSI\n\n.. autoclass:: ANSI\n   :members:\n",
            "role.rst": "The :class:`ANSI` terminal emulates a screen.\n",
            "imported.rst": "Old code did::\n\n    import ANSI\n",
            "mod_role.rst": "See :mod:`ANSI`.\n",
        },
        module,
    )
    assert buckets == {"imported.rst": Bucket.must_update, "mod_role.rst": Bucket.must_update}


def test_titles_links_and_prose_do_not_use_a_removed_name() -> None:
    """markdown 3.0 removed the ``WikiLinks`` pattern class and the ``smart_strong`` module;
    its docs still say "WikiLinks" as the extension's name, in a ``title:`` line, a link's
    text and prose, and link to ``smart_strong.md``. None of those is a use of the class or
    the module: only code is (a code span, a call, an import). Prose that names a removed
    identifier is listed, probably fine."""
    wikilinks = Target(kind=TargetKind.symbol, name="WikiLinks", change=Change.removed, weight=1.0)
    strong = _removed("markdown.extensions.smart_strong", "markdown/extensions/smart_strong.py")
    buckets = _buckets(
        {
            "title.md": "title: WikiLinks Extension\n\n# WikiLinks\n",
            "link.md": "* [WikiLinks](wikilinks.md)\n* [Smart Strong](smart_strong.md)\n",
            "prose.md": "The WikiLinks extension adds support for [WikiLinks][].\n",
            "code.md": "Subclass `WikiLinks` to change the pattern.\n",
            "import.md": "```python\nfrom markdown.extensions.smart_strong import X\n```\n",
            "code_title.md": "# The `WikiLinks` class\n",
        },
        wikilinks,
        strong,
    )
    assert buckets == {
        "prose.md": Bucket.probably_fine,
        "code.md": Bucket.must_update,
        "import.md": Bucket.must_update,
        "code_title.md": Bucket.must_update,
    }


def test_an_import_names_a_module_s_name_never_a_class_member() -> None:
    """peewee 2.0 removed ``BaseModel.Meta.database``; ``from peewee import database``
    imports a module-level name, which no change to a class's member can affect."""
    member = Target(
        kind=TargetKind.symbol, name="Model.database", change=Change.removed, weight=1.0
    )
    top = Target(kind=TargetKind.symbol, name="connect_db", change=Change.removed, weight=1.0)
    buckets = _buckets(
        {
            "imported.rst": "Connect::\n\n    >>> from peewee import database\n",
            "used.rst": "Connect::\n\n    >>> db = Model.database\n",
            "top.md": "```python\nfrom peewee import connect_db\n```\n",
        },
        member,
        top,
    )
    assert buckets == {"used.rst": Bucket.must_update, "top.md": Bucket.must_update}


def test_a_role_with_a_title_names_its_target_not_its_title() -> None:
    """scrapy's ``:signal:`open_spider <spider_opened>``` is the ``spider_opened`` signal, not
    the removed ``HttpCompressionMiddleware.open_spider``; the title alone decides nothing."""
    removed = Target(
        kind=TargetKind.symbol,
        name="HttpCompressionMiddleware.open_spider",
        change=Change.removed,
        weight=1.0,
    )
    buckets = _buckets(
        {
            "signals.rst": "Runs on the :signal:`open_spider <spider_opened>` signal.\n",
            "target.rst": "See :meth:`the hook <HttpCompressionMiddleware.open_spider>`.\n",
        },
        removed,
    )
    assert buckets == {"target.rst": Bucket.must_update}


def test_an_autodoc_directive_s_parentheses_are_a_signature_not_a_call() -> None:
    group = _signature_target(
        "OptionGroup.__init__",
        "OptionGroup.__init__(self, name, description='', parser=None)",
        "OptionGroup.__init__(self, arggroup, name, description, parser=None, *, _ispytest=False)",
        "src/_pytest/config/argparsing.py",
    )
    buckets = _buckets(
        {
            "reference.rst": ".. autoclass:: pytest.OptionGroup()\n    :members:\n",
            "plugin.md": "```python\ngroup = OptionGroup('custom')\n```\n",
        },
        group,
    )
    # pytest 9 hides the constructor with ``()``; a call leaving out the new ``arggroup`` breaks
    assert buckets == {"plugin.md": Bucket.must_update}


def test_a_declared_signature_listing_a_changed_parameter_must_update() -> None:
    cursor = _signature_target(
        "Cursor.__init__",
        "Cursor.__init__(self, collection, filter=None, manipulate=True, hint=None)",
        "Cursor.__init__(self, collection, filter=None, hint=None)",
        "pymongo/cursor.py",
    )
    buckets = _buckets(
        {
            # pymongo 4 dropped ``manipulate``; the page still declares it
            "cursor.rst": ".. autoclass:: pymongo.cursor.Cursor(collection, filter=None, "
            "manipulate=True, hint=None)\n",
            "other.rst": ".. autoclass:: pymongo.cursor.Cursor(collection, filter=None)\n",
            "elsewhere.rst": ".. method:: Batch.Cursor(collection, manipulate=True)\n",
            "typed.rst": ".. py:class:: Cursor(collection, manipulate: bool = True)\n",
            # Sphinx's optional-argument brackets and ``<object>`` defaults are no Python
            "sphinx.rst": ".. class:: Cursor(collection[, manipulate[, hint]])\n",
            "kept.rst": ".. class:: Cursor(collection, filter=<object>[, hint])\n",
        },
        cursor,
    )
    assert buckets == {
        "cursor.rst": Bucket.must_update,
        "typed.rst": Bucket.must_update,
        "sphinx.rst": Bucket.must_update,
    }


def test_a_receiver_named_after_the_class_s_last_word_may_be_its_instance() -> None:
    authenticate = _removed("AgnosticDatabase.authenticate", "motor/core.py")
    buckets = _buckets(
        {
            # motor 2.0 removed it; motor's docs name the generated ``MotorDatabase``
            "auth.rst": "Log in::\n\n    yield client.my_database.authenticate('user', 'pw')\n",
            "api.rst": "Use :meth:`~MotorDatabase.authenticate` to log in.\n",
            "other.rst": "Then::\n\n    yield client.admin.authenticate('user', 'pw')\n",
            "base.rst": "Then::\n\n    yield model.base.authenticate('user', 'pw')\n",
        },
        authenticate,
    )
    assert buckets == {"auth.rst": Bucket.must_update, "api.rst": Bucket.must_update}


def test_a_top_level_name_reached_through_another_member_is_that_member_s() -> None:
    fetch = _signature_target(
        "fetch_page", "fetch_page(url, retries=3)", "fetch_page(url, *, attempts=3)", "acme/net.py"
    )
    buckets = _buckets(
        {
            # a client object's method of that name, not the function whose keyword changed
            "client.rst": "Fetch::\n\n    self.client.fetch_page(url, retries=5)\n",
            "module.rst": "Fetch::\n\n    net.fetch_page(url, retries=5)\n",
            "path.rst": "Fetch::\n\n    acme.net.fetch_page(url, retries=5)\n",
        },
        fetch,
    )
    assert buckets == {"module.rst": Bucket.must_update, "path.rst": Bucket.must_update}


def test_a_bare_role_under_another_module_of_the_package_is_that_module_s_name() -> None:
    histogram = _removed("histogram", "scipy/stats/stats.py")
    buckets = _buckets(
        {
            # scipy 1.0 removed ``scipy.stats.histogram``; ndimage has its own
            "ndimage.rst": ".. currentmodule:: scipy.ndimage\n\nThe :func:`histogram` counts.\n",
            "stats.rst": ".. currentmodule:: scipy.stats\n\nThe :func:`histogram` counts.\n",
            "elsewhere.rst": ".. currentmodule:: numpy\n\nSee :obj:`histogram`.\n",
            "qualified.rst": ".. currentmodule:: scipy.ndimage\n\n:func:`scipy.stats.histogram`\n",
        },
        histogram,
    )
    assert buckets == {
        "stats.rst": Bucket.must_update,
        "elsewhere.rst": Bucket.must_update,
        "qualified.rst": Bucket.must_update,
    }


def test_a_member_named_like_a_class_needs_its_receiver() -> None:
    handler = _removed("AskEvenHandler.Float", "sympy/assumptions/handlers/ntheory.py")
    buckets = _buckets(
        {
            # sympy 1.0 dropped the handler method; ``Float`` alone is sympy's number class
            "guide.rst": "Write ``Integer(5)`` or ``Float(34.3)``.\n",
            "gotchas.rst": ">>> S(6.2)  # SymPy Float has no such problems\n",
            "handlers.rst": "::\n\n    >>> AskEvenHandler.Float(expr, assumptions)\n",
        },
        handler,
    )
    assert buckets == {"handlers.rst": Bucket.must_update}
    constant = _removed("X509StoreFlags.CB_ISSUER_CHECK", "src/OpenSSL/crypto.py")
    # pyopenssl 21: a constant's name is no class's; the page declares the removed member
    page = {"crypto.rst": ".. class:: X509StoreFlags\n\n    .. data:: CB_ISSUER_CHECK\n"}
    assert _buckets(page, constant) == {"crypto.rst": Bucket.must_update}


def test_a_bare_function_directive_declares_no_member() -> None:
    real_roots = _removed("RootOf.real_roots", "sympy/polys/rootoftools.py")
    buckets = _buckets(
        {
            # sympy 1.0 dropped the method; the polys reference documents the function
            "reference.rst": ".. currentmodule:: sympy.polys.polytools\n\n"
            ".. autofunction:: real_roots\n",
            "method.rst": ".. automethod:: RootOf.real_roots\n",
        },
        real_roots,
    )
    assert buckets == {"method.rst": Bucket.must_update}


def test_a_test_fixture_or_a_json_schema_has_no_config_keys_for_users() -> None:
    """pymdown-extensions 7.0 dropped a test's ``tests.yml`` (key ``extensions``), altair 4 a
    Vega-Lite JSON Schema (``definitions.Config.properties.color``): neither is a file a user
    writes. A project config that only names its schema still has keys."""
    fixture = "extrarawhtml:\n  extensions:\n    - pymdownx.extrarawhtml\n"
    schema = '{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": '
    schema += '{"Config": {"properties": {"colour_scheme": {}}}}}'
    settings = '{"$schema": "https://example.org/settings.json", "colour_scheme": "dark"}'
    deleted = ("tests/ext/tests.yml", "pkg/schema/vega-lite-schema.json", "settings.json")
    changed = [
        ChangedFile(path=path, status=FileStatus.deleted, category=FileCategory.config)
        for path in deleted
    ]
    base = MemoryTree(dict(zip(deleted, (fixture, schema, settings), strict=True)))
    targets = find_targets(changed, [], base, MemoryTree({}))
    keys = {(t.name, t.source) for t in targets if t.kind is TargetKind.config_key}
    assert keys == {("colour_scheme", "settings.json")}
    docs = {"ext.md": "```python\nmd = markdown.Markdown(extensions=['pymdownx.b64'])\n```\n"}
    assert not find_affected_docs(targets, MemoryTree(docs)).docs


def test_an_import_names_modules_not_a_removed_object_named_like_one() -> None:
    """statsd 3.0 dropped ``statsd.statsd``, an instance its package made: ``import statsd``
    and ``from statsd import StatsClient`` import the package; ``from statsd import statsd``
    and ``client = statsd.statsd`` use the instance. A removed module is used by its import."""
    instance = _removed("statsd", "statsd/__init__.py").model_copy(
        update={"detail": "attribute `statsd` was removed"}
    )
    docs = {
        "import.rst": "Example::\n\n    >>> import statsd\n    >>> c = statsd.StatsClient()\n",
        "from.rst": "Example::\n\n    from statsd import StatsClient\n",
        "instance.rst": "Example::\n\n    from statsd import statsd\n",
        "attribute.rst": "Example::\n\n    client = statsd.statsd\n",
    }
    assert _buckets(docs, instance) == {
        "instance.rst": Bucket.must_update,
        "attribute.rst": Bucket.must_update,
    }
    module = _removed("statsd", "statsd.py").model_copy(
        update={"detail": "module `statsd` was removed"}
    )
    assert "import.rst" in _buckets(docs, module)
