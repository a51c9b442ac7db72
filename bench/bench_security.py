"""What the hardening costs: harness's own git calls, and a permission decision for a command.

- ``git status`` as harness runs it (every program-running setting overridden, the
  repository's filter and diff drivers looked up and emptied) against a bare
  ``git status`` in the same repository, in interleaved pairs.
- A permission decision for a compound shell command with deny rules (parsed with
  tree-sitter-bash, every simple command checked) against one for a read-only tool,
  which parses nothing.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from bench._timing import ms, paired
from harness.actors.tools import Permissions, builtin_table
from harness.actors.tools._git import git


def run() -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-security-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        for i in range(200):
            (repo / f"f{i}.txt").write_text(f"{i}\n")
        subprocess.run(["git", "add", "."], cwd=repo, check=True)
        (repo / "f1.txt").write_text("changed\n")

        def bare() -> None:
            subprocess.run(["git", "status", "--short"], cwd=repo, capture_output=True)

        def hardened() -> None:
            git(repo, "status", "--short")

        b, h, ratio = paired(bare, hardened, 15)
        rows.append(("git status, bare (baseline)", ms(b, 2), ""))
        rows.append(("git status as harness runs it", ms(h, 2), f"{ratio:.2f}x bare"))

        perms = Permissions(
            builtin_table(),
            workspace=repo,
            home=tmp,
            extra={"deny": ["run_cmd(rm *)", "run_cmd(curl *)"], "allow": ["run_cmd(make *)"]},
        )
        command = {"command": "make test 2>&1 | tail -20 && (cd docs && make html) || echo failed"}
        read = {"path": "f1.txt"}
        perms.decide("run_cmd", command)  # the grammar loads once, on first use

        def read_decision() -> None:
            for _ in range(100):
                perms.decide("read_file", read)

        def shell_decision() -> None:
            for _ in range(100):
                perms.decide("run_cmd", command)

        rd, sd, ratio = paired(read_decision, shell_decision, 15)
        rows.append(("100 decisions for read_file (baseline)", ms(rd, 2), ""))
        rows.append(
            (
                "100 decisions for a compound command",
                ms(sd, 2),
                f"{ratio:.0f}x baseline, {sd * 10:.3f} ms a decision",
            )
        )
    return rows
