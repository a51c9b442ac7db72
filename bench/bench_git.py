"""What a hardened git call costs (:func:`harness.git.run_git`), against plain git.

Every git call harness makes on the user's behalf (the git tools, autocommit and
undo, a batch's copies and diffs) first asks git for every setting it reads
(``git config --list --includes --show-scope --show-origin``) to find the drivers to
empty and the work tree to check, then runs the call itself with the overrides in
``GIT_CONFIG_*``: two processes where plain git starts one. Measured in interleaved
pairs, in a repository of 200 files with one change:

- ``git status --short``, plain, against the same call through ``run_git``;
- the same in a repository whose config names 20 filter drivers (40 overrides more:
  each emptied, and marked not required);
- ``git diff --cached`` (what ``git_diff`` runs), plain against hardened.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from bench._timing import ms, paired
from harness.git import run_git


def _repo(folder: Path, drivers: int) -> Path:
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    for i in range(200):
        (folder / f"f{i}.txt").write_text(f"{i}\n")
    subprocess.run(["git", "add", "."], cwd=folder, check=True)
    for i in range(drivers):
        subprocess.run(["git", "config", f"filter.d{i}.clean", "cat"], cwd=folder, check=True)
    (folder / "f1.txt").write_text("changed\n")
    return folder


def _pair(repo: Path, args: tuple[str, ...], what: str) -> list[tuple[str, str, str]]:
    def plain() -> None:
        subprocess.run(["git", *args], cwd=repo, capture_output=True, check=False)

    def hardened() -> None:
        run_git(repo, *args)

    p, h, ratio = paired(plain, hardened, 21)
    return [
        (f"{what}, plain git (baseline)", ms(p, 2), ""),
        (f"{what}, hardened", ms(h, 2), f"{ratio:.2f}x plain"),
    ]


def run() -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-git-") as tmp:
        small = _repo(Path(tmp) / "plain", 0)
        busy = _repo(Path(tmp) / "drivers", 20)
        rows += _pair(small, ("status", "--short"), "git status")
        rows += _pair(busy, ("status", "--short"), "git status, 20 drivers in the config")
        rows += _pair(small, ("diff", "--cached", "--no-ext-diff"), "git diff --cached")
    return rows
