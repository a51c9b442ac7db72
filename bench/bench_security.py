"""What the hardening costs: harness's own git calls, and a permission decision for a command.

- ``git status`` as harness runs it (every program-running setting overridden, the
  repository's filter and diff drivers looked up and emptied) against a bare
  ``git status`` in the same repository, in interleaved pairs.
- A permission decision for a compound shell command with deny rules (parsed with
  tree-sitter-bash, every simple command checked) against one for a read-only tool,
  which parses nothing.
- The workspace-trust check the terminal makes before its first prompt (read
  ``.mcp.json`` and ``.permissions.json``, hash them, look them up among 200 trusted
  workspaces), in process against the check for a workspace with neither file; and in a
  fresh interpreter after the first prompt's imports (the import of harness.trust
  included) against the two stat calls start makes when there is nothing to trust.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench._timing import ms, paired
from harness.actors.tools import Permissions, builtin_table
from harness.actors.tools._git import git
from harness.trust import TrustStore, project_files

# In a fresh interpreter, after the first prompt's imports (json among them: the slash
# commands' table imports it before the first prompt either way): what start does with
# nothing to trust (two stat calls), and the import of harness.trust plus the whole check.
# Each run times itself, so the interpreter's own start (noisy on a busy machine) is left out.
_TIMED = """
import os, sys, time, json, prompt_toolkit, harness.home
ws, home, check = sys.argv[1], sys.argv[2], sys.argv[3] == "check"
t = time.perf_counter()
if check:
    from harness.trust import TrustStore, project_files
    TrustStore(home).untrusted(ws, project_files(ws))
else:
    any(os.path.exists(os.path.join(ws, n)) for n in (".mcp.json", ".permissions.json"))
print(time.perf_counter() - t)
"""


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
        rows.extend(_trust_rows(Path(tmp)))
    return rows


def _trust_rows(tmp: Path) -> list[tuple[str, str, str]]:
    ws, empty, home = tmp / "trusted-ws", tmp / "empty-ws", tmp / "home"
    for folder in (ws, empty, home):
        folder.mkdir()
    servers = {f"s{i}": {"command": "npx", "args": ["-y", f"server-{i}"]} for i in range(5)}
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2))
    rules = {"allow": [f"run_cmd(make {i})" for i in range(20)], "deny": ["run_cmd(rm *)"]}
    (ws / ".permissions.json").write_text(json.dumps(rules, indent=2))
    store = TrustStore(home)
    for i in range(200):
        other = tmp / f"other{i}"
        other.mkdir()
        (other / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {"command": str(i)}}}))
        store.approve(other, project_files(other))
    store.approve(ws, project_files(ws))

    def nothing_to_trust() -> None:
        for _ in range(100):
            assert store.untrusted(empty, project_files(empty)) == []

    def trusted() -> None:
        for _ in range(100):
            assert store.untrusted(ws, project_files(ws)) == []

    b, t, _ = paired(nothing_to_trust, trusted, 15)
    rows = [
        ("100 trust checks, no project files (baseline)", ms(b, 2), ""),
        ("100 trust checks, 2 trusted files, 201 workspaces", ms(t, 2), f"{t * 10:.3f} ms a check"),
    ]
    # bytecode as an installed harness has it (the first runs write it)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def timed(what: str) -> float:
        argv = [sys.executable, "-c", _TIMED, str(ws), str(home), what]
        out = subprocess.run(argv, check=True, env=env, capture_output=True, text=True)
        return float(out.stdout)

    timed("check")
    stats, checks = [], []
    for _ in range(15):
        stats.append(timed("stat"))
        checks.append(timed("check"))
    stat, check = statistics.median(stats), statistics.median(checks)
    rows.append(("fresh interpreter: the start's stat calls (baseline)", ms(stat, 3), ""))
    rows.append(
        (
            "fresh interpreter: import harness.trust and check",
            ms(check, 2),
            # the fastest run too: on a busy machine the median is mostly waiting for a core
            f"+{(check - stat) * 1000:.2f} ms at start (fastest run +"
            f"{(min(checks) - min(stats)) * 1000:.2f} ms)",
        )
    )
    return rows
