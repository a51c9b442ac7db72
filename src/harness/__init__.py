"""harness: a terminal AI coding agent built on supervised worker processes."""

from harness._version import __version__

__all__ = ["__version__"]
