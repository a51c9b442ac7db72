"""What the README and docs/api.md say of a refused change in ``harness -p``, checked:
in ``ask`` mode, with nobody to ask, the change is refused and the run ends with status 1;
a change a deny rule refuses does not end the run (issue 36: the README said a rule's
refusal ended it with 1, which was not true)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli.test_headless_edges import _argv, _env
from tests.scripted import ScriptedModel, call, reply

pytestmark = pytest.mark.slow


def _run(
    model: ScriptedModel, workspace: Path, home: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    model.add(reply("", call("write_file", path="x.txt", content="x")), reply("I could not."))
    return subprocess.run(
        _argv(model, "-p", "write x.txt", *extra),
        cwd=workspace,
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_change_nobody_can_approve_ends_the_run_with_1(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    p = _run(model, workspace, home)
    assert p.returncode == 1, p.stderr
    assert "no terminal to ask for approval" in p.stderr
    assert p.stdout == ""  # the model was not asked again
    assert not (workspace / "x.txt").exists()


def test_a_change_a_deny_rule_refuses_lets_the_run_go_on(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    p = _run(model, workspace, home, "--deny", "write_file")
    assert p.returncode == 0, p.stderr
    assert "denied by rule write_file" in p.stderr
    assert p.stdout == "I could not.\n"
    assert not (workspace / "x.txt").exists()
