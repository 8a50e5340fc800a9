"""What a doc's own code says about a name: a doctest's output calls nothing, a module alias
is no instance, prose about one parameter is not about the others, and a module that became
a package is still importable."""

from __future__ import annotations

from prflow.docsync.finding import find_affected_docs
from prflow.docsync.mentions import doctest_output, module_aliases
from prflow.docsync.models import Bucket, Change, Target, TargetKind
from prflow.source_tree import MemoryTree

ATTRIBUTE = Target(
    kind=TargetKind.symbol,
    name="Attribute.__init__",
    change=Change.signature,
    weight=0.9,
    source="src/attr/_make.py",
    params=["inherited"],
    before="Attribute.__init__(self, name, default, validator)",
    after="Attribute.__init__(self, name, default, validator, inherited=False)",
)


def _buckets(targets: list[Target], files: dict[str, str]) -> dict[str, Bucket]:
    found = find_affected_docs(targets, MemoryTree(files))
    return {doc.path: doc.bucket for doc in found.docs}


def test_a_doctest_output_line_is_no_call() -> None:
    """attrs' docs show a validator's ``TypeError`` whose repr spells ``Attribute(name=...)``:
    output of the example, not a call of the changed constructor (probably fine); the same
    text typed at the prompt is a call and must be updated. A reST doctest block needs no
    ``::``: its output need not read as code."""
    session = (
        "Validators\n\n.. doctest::\n\n   >>> C('42')\n   Traceback (most recent call last):\n"
        "      ...\n   TypeError: (\"'x' must be int\", Attribute(name='x', default=NOTHING,"
        " validator=None, inherited=False), '42')\n"
    )
    block = (
        "Or at the prompt, no ``::``:\n\n   >>> C('42')\n   Traceback (most recent call last):\n"
        "   TypeError: (Attribute(name='x', default=NOTHING, validator=None, inherited=False))\n"
    )
    typed = (
        "Make one::\n\n   >>> Attribute(name='x', default=None, validator=None, inherited=True)\n"
    )
    docs = {"docs/api.rst": session, "docs/init.rst": block, "docs/make.rst": typed}
    buckets = _buckets([ATTRIBUTE], docs)
    assert buckets["docs/api.rst"] is Bucket.probably_fine
    assert buckets["docs/init.rst"] is Bucket.probably_fine
    assert buckets["docs/make.rst"] is Bucket.must_update


def test_doctest_output_ends_at_a_blank_line() -> None:
    lines = [
        (1, ">>> f()", True),
        (2, "1", True),
        (3, "...", True),
        (4, "", True),
        (5, "x = f()", True),
        (6, ">>> g()", False),
        (7, "TypeError: g() takes no arguments", False),
        (8, "", False),
        (9, "prose again", False),
    ]
    assert doctest_output(lines) == {2, 7}


def test_a_module_alias_is_no_receiver_of_a_class_member() -> None:
    """soupsieve 2.0 removed ``SoupSieve.comments``; ``sv.comments(soup)`` after ``import
    soupsieve as sv`` calls the module's function, which stays. ``sv`` abbreviates the class
    name, so without the import it reads as an instance: still flagged."""
    target = Target(
        kind=TargetKind.symbol,
        name="SoupSieve.comments",
        change=Change.removed,
        weight=1.0,
        source="soupsieve/css_match.py",
    )
    imported = "```pycon\n>>> import soupsieve as sv\n>>> sv.comments(soup)\n```\n"
    instance = "```pycon\n>>> sv = soupsieve.compile('p')\n>>> sv.comments(soup)\n```\n"
    buckets = _buckets([target], {"docs/module.md": imported, "docs/instance.md": instance})
    assert "docs/module.md" not in buckets
    assert buckets["docs/instance.md"] is Bucket.must_update
    assert module_aliases(
        [">>> import soupsieve as sv", "import a.b, json", "from x import y"]
    ) == {
        "sv",
        "a",
        "json",
    }


def test_prose_about_an_unchanged_parameter_is_not_about_the_changed_one() -> None:
    """beanie 2.0 removed ``init_beanie``'s ``multiprocessing_mode``; a line describing
    "the document_models argument" talks about a parameter that stays (probably fine),
    while a line talking about its arguments in general still points at the change."""
    target = Target(
        kind=TargetKind.symbol,
        name="init_beanie",
        change=Change.signature,
        weight=0.9,
        source="beanie/odm/utils/init.py",
        params=["multiprocessing_mode"],
        before="init_beanie(database=None, document_models=None, multiprocessing_mode=False)",
        after="init_beanie(database=None, document_models=None)",
    )
    one = "`init_beanie` supports a list of classes as the document_models argument.\n"
    general = "`init_beanie` takes these arguments:\n"
    buckets = _buckets([target], {"docs/one.md": one, "docs/general.md": general})
    assert buckets["docs/one.md"] is Bucket.probably_fine
    assert buckets["docs/general.md"] is Bucket.must_update


def test_a_module_file_that_became_a_package_is_still_importable() -> None:
    """celery 1.0 replaced ``celery/execute.py`` with ``celery/execute/__init__.py``: a doc's
    ``.. currentmodule:: celery.execute`` still imports; the removed ``celery/pool.py`` has no
    such package, so ``celery.pool`` is gone and its doc must be updated."""
    targets = [
        Target(kind=TargetKind.path, name=name, change=Change.removed, weight=1.0)
        for name in ("celery/execute.py", "celery/pool.py")
    ]
    files = {
        "celery/execute/__init__.py": "def apply_async(): ...\n",
        "docs/execute.rst": "Execute\n=======\n\n.. currentmodule:: celery.execute\n",
        "docs/pool.rst": "Pool\n====\n\n.. currentmodule:: celery.pool\n",
        "docs/path.rst": "The code lives in ``celery/execute.py``.\n",
    }
    buckets = _buckets(targets, files)
    assert "docs/execute.rst" not in buckets
    assert buckets["docs/pool.rst"] is Bucket.must_update
    assert buckets["docs/path.rst"] is Bucket.must_update  # the file's path is gone


def test_a_name_the_doc_binds_is_no_use_of_a_removed_module_of_that_name() -> None:
    """flask 1.0 removed the example module ``simple_page.simple_page``; its blueprint docs
    bind their own ``simple_page = Blueprint(...)`` and use it (``@simple_page.route``): the
    doc's variable. An import of the module still names it."""
    target = Target(
        kind=TargetKind.symbol,
        name="simple_page.simple_page",
        change=Change.removed,
        weight=1.0,
        source="examples/blueprintexample/simple_page/simple_page.py",
    )
    bound = (
        "Blueprints::\n\n    simple_page = Blueprint('simple_page', __name__)\n\n"
        "    @simple_page.route('/')\n    def show(): ...\n"
    )
    imported = "Use it::\n\n    import simple_page.simple_page\n"
    buckets = _buckets([target], {"docs/bound.rst": bound, "docs/imported.rst": imported})
    assert "docs/bound.rst" not in buckets
    assert buckets["docs/imported.rst"] is Bucket.must_update
