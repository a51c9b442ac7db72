"""``harness`` / ``python -m harness``: parse the command line, then import what that needs.

Nothing heavy is imported at module level, so ``harness --version`` stays fast.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from harness.cli import main as cli_main

    return cli_main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
