"""``harness hooks list`` and ``harness hooks test``, the command's own code run in the test's
process (tests/cli/inprocess.py), on the example folder the docs ship (copied into a
project's ``.claude/`` as its README says)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.inprocess import in_process

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "hooks"


Harness = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def harness(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Harness:
    """``harness(*args, home=, cwd=)``: ``harness ARGS`` in *cwd*, in this process."""
    run = in_process(monkeypatch, capsys)

    def command(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
        return run(list(args), workspace=cwd, home=home)

    return command


@pytest.fixture
def project(dirs: tuple[Path, Path]) -> tuple[Path, Path]:
    ws, home = dirs
    (ws / ".claude").mkdir()
    shutil.copy(EXAMPLES / "settings.json", ws / ".claude" / "settings.json")
    shutil.copytree(EXAMPLES, ws / ".claude" / "hooks", ignore=shutil.ignore_patterns("*.json"))
    return ws, home


def test_list_says_what_is_ignored_until_trusted(
    project: tuple[Path, Path], harness: Harness
) -> None:
    ws, home = project
    out = harness("hooks", "list", home=home, cwd=ws)
    assert out.returncode == 0, out.stderr
    assert "no hooks are active" in out.stdout
    assert "ignored: .claude/settings.json" in out.stdout
    # what a run with --trust-project would load, recording no trust
    flagged = harness("hooks", "list", "--trust-project", home=home, cwd=ws)
    assert flagged.stdout.startswith("PreToolUse [Bash]:"), flagged.stdout
    assert "ignored:" not in flagged.stdout
    assert "no hooks are active" in harness("hooks", "list", home=home, cwd=ws).stdout
    trust = harness("trust", "--yes", home=home, cwd=ws)
    assert "hook PreToolUse [Bash]: runs" in trust.stdout
    out = harness("hooks", "list", home=home, cwd=ws)
    lines = out.stdout.splitlines()
    assert lines[0].startswith('PreToolUse [Bash]: "$CLAUDE_PROJECT_DIR"/.claude/hooks/block-rm.sh')
    assert "(.claude/settings.json, timeout 60 s, fails closed)" in lines[0]
    assert lines[1].startswith("PostToolUse [Edit|MultiEdit|Write]:")
    assert lines[2].startswith("Stop:")


def test_test_runs_the_guard_on_a_sample(project: tuple[Path, Path], harness: Harness) -> None:
    ws, home = project
    assert harness("trust", "--yes", home=home, cwd=ws).returncode == 0
    bad = json.dumps({"command": "rm -rf build"})
    out = harness(
        "hooks", "test", "PreToolUse", "--tool", "Bash", "--input", bad, home=home, cwd=ws
    )
    assert out.returncode == 0, out.stderr
    assert '"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}' in out.stdout
    assert "block-rm.sh (.claude/settings.json): deny (exit 2" in out.stdout
    assert "together: deny: Blocked: rm -rf is not allowed in this project." in out.stdout
    fine = harness("hooks", "test", "PreToolUse", "--tool", "run_cmd", home=home, cwd=ws)
    assert "no decision (exit 0" in fine.stdout
    assert "together: no decision" in fine.stdout
    none = harness("hooks", "test", "PreToolUse", "--tool", "Read", home=home, cwd=ws)
    assert "no active hook matches PreToolUse on Read" in none.stdout
    usage = harness("hooks", "test", "PreToolUse", home=home, cwd=ws)
    assert usage.returncode == 2
    assert "needs --tool" in usage.stderr
