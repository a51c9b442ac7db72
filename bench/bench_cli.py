"""The command line alone: ``harness --version`` and ``harness --help``, beside
``python -c pass``, in alternation in the same run (goal: at most 3x).

Neither starts anything: the command line is parsed before anything heavy is imported
(see ``harness.__main__``), so what is left is argparse and harness's own command line.
The command is the ``harness`` script installed beside this interpreter, as a user runs
it (``python -m harness`` when there is none).

Run: ``python -m bench cli``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bench._timing import ms, paired

ROOT = Path(__file__).resolve().parents[1]
RUNS = 21


def _harness() -> list[str]:
    script = Path(sys.executable).with_name("harness")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "harness"]


def run() -> list[tuple[str, str, str]]:
    """The rows: each command's median wall time, and its median ratio to ``python -c pass``."""
    # As in a user's install, the bytecode of the modules is written once and then read.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT / "src")

    def command(argv: list[str]) -> None:
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)

    def bare() -> None:
        command([sys.executable, "-c", "pass"])

    rows: list[tuple[str, str, str]] = []
    for flag in ("--version", "--help"):
        base, ours, ratio = paired(bare, lambda f=flag: command([*_harness(), f]), RUNS)
        rows.append(
            (
                f"harness {flag}, p50",
                ms(ours),
                f"python -c pass {ms(base)}; ratio {ratio:.2f}x (goal <= 3x; load "
                f"{os.getloadavg()[0]:.1f})",
            )
        )
    return rows


if __name__ == "__main__":
    for what, figure, note in run():
        print(f"{what:<28} {figure:>10}  {note}")
