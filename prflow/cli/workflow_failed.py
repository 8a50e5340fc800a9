"""The one error a run's failure becomes on the client, apart from the client itself.

The entry point catches it for every command; defining it here keeps the Temporal
SDK out of commands that never start a run (``--version``, ``costs``, ``--help``).
"""

from __future__ import annotations


class WorkflowFailed(Exception):
    """The workflow failed for a reason that is not the user's; the message says where to look."""
