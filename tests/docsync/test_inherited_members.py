"""A member impact reports removed that the head's class still has (defined, or inherited
from a base class of the package) is no removed target: pexpect 4.0 moved ``spawn.expect``
into ``SpawnBase`` and ``child.expect(...)`` works as before."""

from __future__ import annotations

from prflow.analysis.findings import BreakingChange, BreakingKind
from prflow.docsync.finding import find_affected_docs
from prflow.docsync.inherited import kept_members
from prflow.docsync.models import TargetKind
from prflow.docsync.targets import find_targets
from prflow.severity import Severity
from prflow.source_tree import MemoryTree

SPAWNBASE = """
class SpawnBase(object):
    def __init__(self):
        self.logfile_read = None

    def expect(self, pattern, timeout=-1, searchwindowsize=-1, async=False):
        pass
"""
"""Not today's Python (``async`` is a keyword now): read by indentation."""
PTY_SPAWN = """
from .spawnbase import SpawnBase

class spawn(SpawnBase):
    def isalive(self):
        return True
"""
FDPEXPECT = "from .spawnbase import SpawnBase\n\nclass fdspawn(SpawnBase):\n    pass\n"
HEAD = {
    "pexpect/__init__.py": "from .pty_spawn import spawn\n",
    "pexpect/spawnbase.py": SPAWNBASE,
    "pexpect/pty_spawn.py": PTY_SPAWN,
    "pexpect/fdpexpect.py": FDPEXPECT,
}


def _removed(symbol: str) -> BreakingChange:
    return BreakingChange(
        symbol=symbol,
        kind=BreakingKind.removed_export,
        severity=Severity.high,
        file="pexpect/__init__.py",
        language="python",
        detail=f"function `{symbol}` was removed",
    )


def test_members_defined_or_inherited_in_the_head_are_kept() -> None:
    """Found through the class's own body, its ``self.x = ...`` assignments and its bases
    (read by indentation where the file is not today's Python); a member no class has, or a
    class the head lacks, is not kept."""
    wanted = {
        ("spawn", "expect"),
        ("spawn", "isalive"),
        ("spawn", "logfile_read"),
        ("fdspawn", "expect"),
        ("spawn", "interact"),
        ("Gone", "expect"),
    }
    kept = kept_members(MemoryTree(HEAD), {"pexpect"}, wanted)
    assert kept == {
        ("spawn", "expect"),
        ("spawn", "isalive"),
        ("spawn", "logfile_read"),  # an instance attribute the base's __init__ sets
        ("fdspawn", "expect"),
    }


def test_only_members_the_head_lacks_become_removed_targets() -> None:
    """A nested class's member (``BaseModel.Meta.database``) is not judged by the nested
    class's name alone: many classes have a ``Meta``."""
    breaking = [_removed("spawn.expect"), _removed("spawn.interact")]
    breaking.append(_removed("BaseModel.Meta.database"))
    head = {**HEAD, "pexpect/models.py": "class Other:\n    class Meta:\n        database = 1\n"}
    targets = find_targets([], breaking, MemoryTree({}), MemoryTree(head))
    names = {t.name for t in targets if t.kind == TargetKind.symbol}
    assert names == {"spawn.interact", "BaseModel.Meta.database"}


def test_a_member_a_class_stopped_inheriting_is_that_member_removed() -> None:
    """altair 4's ``Chart`` no longer inherits ``savechart``: ``alt.Chart(data)`` is as right
    as before, ``chart.savechart(...)`` is not."""
    lost = _removed("Chart").model_copy(
        update={"detail": "no longer inherits `savechart` from `TopLevelMixin`"}
    )
    head = {"altair/api.py": "class TopLevelMixin:\n    pass\n\nclass Chart(TopLevelMixin):\n"}
    targets = find_targets([], [lost], MemoryTree({}), MemoryTree(head))
    assert [t.name for t in targets if t.kind == TargetKind.symbol] == ["Chart.savechart"]
    docs = {
        "make.md": "```python\nalt.Chart(cars).mark_point()\n```\n",
        "save.md": "```python\nchart = alt.Chart(cars)\nchart.savechart('c.html')\n```\n",
    }
    found = find_affected_docs(targets, MemoryTree(docs))
    assert [d.path for d in found.docs] == ["save.md"]
