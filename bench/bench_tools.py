"""Benchmarks of the tools worker's file tools.

- ``search_text`` over a 20,000-file tree: the tool (which runs ``rg`` when it is
  on PATH) beside ``rg`` itself in the same run (goal: within 1.5x), and the
  Python fallback beside the same ``rg``;
- ``read_file`` of a 10 MB file's first page (goal: under 20 ms; it must not read
  the whole file), beside a bare ``readline()`` of the same 400 lines.

Run: ``python -m bench.bench_tools`` (or ``make bench``).
"""

from __future__ import annotations

import random
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench._timing import median, ms, paired
from harness.actors.tools._jail import Workspace
from harness.actors.tools._readfile import read_file
from harness.actors.tools._search import search_text

FILES = 20_000
PER_DIR = 100
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
]


def make_tree(root: Path) -> None:
    """20,000 small source files; one in 50 holds the needle; an ignored build folder."""
    rng = random.Random(7)
    (root / ".gitignore").write_text("build/\n")
    for i in range(FILES):
        folder = root / f"pkg{i // PER_DIR:03d}"
        if i % PER_DIR == 0:
            folder.mkdir()
        lines = [" ".join(rng.choices(WORDS, k=8)) for _ in range(30)]
        if i % 50 == 0:
            lines[rng.randrange(30)] += " needle_token"
        (folder / f"mod{i:05d}.py").write_text("\n".join(lines) + "\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("needle_token\n" * 1000)


def run() -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-tools-") as tmp:
        root = Path(tmp) / "tree"
        root.mkdir()
        make_tree(root)
        ws = Workspace(root)
        args = {"pattern": "needle_token", "path": ".", "regex": False}
        rg = shutil.which("rg")
        hits = search_text(ws, args, use_rg=False).data["matches"]
        if rg:
            # Interleaved pairs, so load from anything else on the machine hits both
            # sides alike; the ratio is the median of the per-pair ratios.
            def bare_rg() -> None:
                subprocess.run([rg, "-n", "needle_token", "."], cwd=root, capture_output=True)

            bare, tool, ratio = paired(bare_rg, lambda: search_text(ws, args, use_rg=True), 9)
            assert search_text(ws, args, use_rg=True).data["matches"] == hits
            rows.append((f"rg -n over {FILES} files (baseline)", ms(bare), f"{hits} matches"))
            rows.append(("search_text with rg", ms(tool), f"{ratio:.2f}x rg (goal <= 1.5x)"))
            _, fb, slow = paired(bare_rg, lambda: search_text(ws, args, use_rg=False), 5)
            rows.append(("search_text, Python fallback", ms(fb), f"{slow:.1f}x rg"))
        else:
            fallback = median(lambda: search_text(ws, args, use_rg=False), 3)
            rows.append(
                ("search_text, Python fallback", ms(fallback), "rg not on PATH: no baseline")
            )

        big = Path(tmp) / "big.log"
        with open(big, "w") as f:
            line = "2026-01-01T00:00:00 INFO some request handled in 12 ms by worker 7\n"
            f.write(line * (10_000_000 // len(line) + 1))
        size_mb = big.stat().st_size / 1e6

        def bare_page() -> None:
            with open(big, "rb") as fh:
                for _ in range(400):
                    fh.readline().decode()

        base = median(bare_page, 50)
        page = median(lambda: read_file(big, "big.log"), 50)
        rows.append((f"readline x400 of a {size_mb:.0f} MB file (baseline)", ms(base), ""))
        rows.append(
            (
                "read_file first page",
                ms(page),
                f"{page / base:.1f}x baseline; goal < 20 ms: {'met' if page < 0.020 else 'MISSED'}",
            )
        )
    return rows


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
