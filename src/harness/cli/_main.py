"""Argument parsing and dispatch to the interactive or headless frontend."""

from __future__ import annotations

import argparse

from harness._version import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness",
        description="A terminal AI coding agent. Run it in a project folder and ask.",
    )
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    parser.add_argument(
        "-p",
        "--print",
        dest="prompt",
        metavar="TASK",
        help="run one task headless and exit ('-' reads it from stdin)",
    )
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    parser.parse_args(argv)
    return 0
