"""``python -m harness.cli.tui``: the interactive terminal, with the common flags."""

from __future__ import annotations

import argparse
import sys

from harness.cli.tui import run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="harness-tui")
    parser.add_argument("--provider")
    parser.add_argument("--model")
    parser.add_argument("--base-url", dest="base_url")
    parser.add_argument("--permission-mode", dest="permission_mode")
    parser.add_argument("--tool-protocol", dest="tool_protocol")
    parser.add_argument("--resume")
    parser.add_argument("--continue", dest="continue_", action="store_true")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
