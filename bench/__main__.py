"""``make bench``: run every ``bench/bench_*.py`` (or the ones named) and print their tables.

Each module exposes ``run() -> list[tuple[str, str, str]]``: rows of
(what was measured, the figure, how it compares with its baseline or goal).
Every figure is measured beside its baseline in the same run, never against a
number remembered from another machine.

    python -m bench              # all of them (but the ones run only on request)
    python -m bench runtime tui  # just these
    python -m bench permissions     # what one permission decision for a command costs
    python -m bench local-tasks     # the embedded model on real tasks (an hour; on request)
    python -m bench local-server    # the same tasks through llama-server beside it (on request)
    python -m bench local-terminal  # a new user's two questions in the terminal (on request)
    python -m bench endings         # the honest endings replayed on local-tasks' runs
    python -m bench nudges          # the nudge rules replayed on local-tasks' runs
    python -m bench search-words    # where a search by a request's words sends the model
    python -m bench change-words    # which prompts the words hear as asking for a change
    python -m bench described-programs  # which program described-program runs
    python -m bench rules-alone     # the changes the small model's rules finish with no model
"""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from pathlib import Path

from rich.console import Console
from rich.table import Table

# Too slow for `make bench`: run by name.
ON_REQUEST = {"local_tasks", "local_server", "local_terminal", "endings", "nudges"}


def discover() -> list[str]:
    here = Path(__file__).parent
    names = (p.stem.removeprefix("bench_") for p in here.glob("bench_*.py"))
    return sorted(n for n in names if n not in ON_REQUEST)


def main(argv: list[str]) -> int:
    console = Console()
    names = argv or discover()
    failed = 0
    for name in names:
        started = time.perf_counter()
        try:
            module = importlib.import_module(f"bench.bench_{name.replace('-', '_')}")
            rows = module.run()
        except Exception:
            failed += 1
            console.print(f"[red]bench {name} failed[/red]")
            console.print(traceback.format_exc(), markup=False, highlight=False)
            continue
        table = Table(
            title=f"{name}  ({time.perf_counter() - started:.1f} s)", title_justify="left"
        )
        table.add_column("measured")
        table.add_column("figure", justify="right")
        table.add_column("beside")
        for what, figure, note in rows:
            table.add_row(what, figure, note)
        console.print(table)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
