"""prflow: durable PR intelligence on Temporal."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """``__version__`` on first use: reading the installed metadata costs a command that
    never prints it (the launcher, a forked command) a scan of ``sys.path``."""
    if name != "__version__":
        raise AttributeError(f"module 'prflow' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("prflow")
    except PackageNotFoundError:  # running from a source tree without installation
        found = "0.0.0"
    globals()["__version__"] = found
    return found
