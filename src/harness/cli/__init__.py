"""The command line and the terminal frontends."""

from __future__ import annotations

import argparse

from harness.cli._main import main
from harness.cli._parser import build_parser

__all__ = ["build_batch_parser", "build_parser", "build_trust_parser", "main"]


def build_batch_parser() -> argparse.ArgumentParser:
    """The command line of ``harness batch`` (its module, and the batch runs it
    drives, load on the first call)."""
    from harness.cli._batch import build_batch_parser as build

    return build()


def build_trust_parser() -> argparse.ArgumentParser:
    """The command line of ``harness trust``."""
    from harness.cli._trust import build_trust_parser as build

    return build()
