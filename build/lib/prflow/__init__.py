"""prflow: durable PR intelligence on Temporal."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("prflow")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"
