"""Which paths are the source code prflow's analyses read: Python and JavaScript/TypeScript.

The import graph, the Python package model and the stale-docs check each ask
"is this a Python file" or "is this analysed source"; they ask it here, so a suffix
added for one is seen by all (the JavaScript half lives in :mod:`prflow.js_files`).
A plain module of tuples: a reader pays no import for it.
"""

from __future__ import annotations

from prflow.js_files import JS_TS_SUFFIXES

PYTHON_SUFFIXES = (".py", ".pyi")
ANALYSED_SOURCE_SUFFIXES = PYTHON_SUFFIXES + JS_TS_SUFFIXES
"""Every suffix of source the analyses parse or grep for definitions."""
