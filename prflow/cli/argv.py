"""What a command line names, read before any parsing library is loaded.

The launcher decides with it whether a command may be forked, and the CLI which one
command module to import; both must read the same word.
"""

from __future__ import annotations


def command_word(args: list[str]) -> str | None:
    """The command ``args`` name: the first word that is not an option (the global options
    take no values); None after ``--`` or when there is none."""
    for arg in args:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg
    return None
