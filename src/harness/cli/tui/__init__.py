"""The interactive terminal (prompt_toolkit input, rich output, slash commands).

Only :func:`run`, :func:`builtin_command_names` and :func:`saved_model` are public; each
imports what it needs when called, so importing this package costs nothing on the
headless path.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = ["builtin_command_names", "run", "saved_model"]


def run(args: argparse.Namespace) -> int:
    """Open the interactive terminal in the current folder; the exit status.

    *args* is the parsed command line (``provider``, ``model``, ``base_url``,
    ``permission_mode``, ``resume``, ``continue_`` ... are read when present).
    """
    from harness.cli.tui._start import run_app

    return run_app(args)


def builtin_command_names() -> list[str]:
    """The terminal's own command names and aliases (a command file may not take one)."""
    from harness.cli.tui._dispatch import COMMANDS

    return COMMANDS.names()


def saved_model(home: Path, workspace: Path) -> dict[str, Any]:
    """The provider, model and base URL ``/connect`` saved for *workspace* (a resolved
    path) under *home*; empty when none was saved."""
    from harness.cli.tui._prefs import Prefs

    return Prefs(home, workspace).get()
