"""The command line and the terminal frontends."""

from harness.cli._main import main

__all__ = ["main"]
