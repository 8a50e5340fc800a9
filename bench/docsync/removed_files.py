"""The use truth's second half: docs upstream edited on a line naming a file the release
removed or moved away (an image, an example script, a build file).

``griffe`` sees the import package's API only. flask 1.0 renamed
``docs/_static/flask-logo.png`` and removed the ``examples/flaskr/flaskr/flaskr.py``
module; upstream edited ``.. image:: _static/flask-logo.png`` and ``export
FLASK_APP=flaskr.flaskr``, which name no API object. The files come from the two sdists,
independent of prflow: a file of the base release (not a doc) that the head release does
not ship. A line names it by a path of two or more of its trailing parts (``_static/flaskr.png``
in ``../_static/flaskr.png``; Windows separators read as ``/``), or, for a Python module no
head file provides again (``pkg/mod.py`` and ``pkg/mod/__init__.py`` import alike), by a
dotted name of two or more trailing parts written as code (``flaskr.flaskr``).
"""

from __future__ import annotations

import re
import tarfile
from pathlib import Path, PurePosixPath

from bench.docsync.truth import edited_line_uses, mentions_in_code
from prflow.docsync.doc_index import DocGlobs


def archive_files(archive: Path) -> set[str]:
    """Every file of a release archive, its top directory stripped."""
    with tarfile.open(archive) as tar:
        return {
            "/".join(PurePosixPath(m.name).parts[1:])
            for m in tar.getmembers()
            if m.isfile() and len(PurePosixPath(m.name).parts) > 1
        }


def removed_files(base: set[str], head: set[str], docs: DocGlobs) -> set[str]:
    """Files of the base release, not docs, that the head release does not ship."""
    return {path for path in base - head if not docs.matches(path)}


def _modules(files: set[str]) -> set[str]:
    """The dotted module each Python file provides (``a/b/__init__.py`` -> ``a.b``)."""
    found = set()
    for path in files:
        if path.endswith(".py"):
            found.add(path.removesuffix(".py").removesuffix("/__init__").replace("/", "."))
    return found


def _suffixes(parts: list[str]) -> set[str]:
    return {"/".join(parts[i:]) for i in range(len(parts) - 1)}


def file_names(removed: set[str], head: set[str]) -> tuple[set[str], set[str]]:
    """What a line may name removed files by: trailing paths, and dotted module names no
    head file provides."""
    paths: set[str] = set()
    for path in removed:
        paths |= _suffixes(path.split("/"))
    provided = _modules(head)
    still_named = {".".join(m.split(".")[i:]) for m in provided for i in range(m.count(".") + 1)}
    dotted: set[str] = set()
    for module in _modules(removed) - provided:
        parts = module.split(".")
        dotted |= {".".join(parts[i:]) for i in range(len(parts) - 1)} - still_named
    return paths, dotted


def _path_pattern(paths: set[str]) -> re.Pattern[str] | None:
    if not paths:
        return None
    words = "|".join(map(re.escape, sorted(paths, key=lambda p: (-len(p), p))))
    return re.compile(r"(?<![\w.-])(?:" + words + r")(?![\w/-])")


def file_use_docs(
    base_docs: dict[str, str], head_docs: dict[str, str], paths: set[str], dotted: set[str]
) -> dict[str, set[str]]:
    """Docs upstream edited on a line naming a removed file, with the names found."""
    pattern = _path_pattern(paths)

    def uses(lines: list[str], index: int, is_code: bool) -> set[str]:
        line = lines[index]
        named = set() if pattern is None else set(pattern.findall(line.replace("\\", "/")))
        return named | (mentions_in_code(line, is_code, dotted) if dotted else set())

    return edited_line_uses(base_docs, head_docs, uses)
