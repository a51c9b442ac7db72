"""What the README and docs/api.md say of a refused change in ``harness -p``, checked:
in ``ask`` mode, with nobody to ask, the change is refused and the run ends with status 1;
a change a deny rule refuses does not end the run (issue 36: the README said a rule's
refusal ended it with 1, which was not true)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.inprocess import in_process
from tests.scripted import ScriptedModel, call, reply

pytestmark = pytest.mark.slow

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def write_x(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], model: ScriptedModel
) -> Run:
    """``write_x(model, workspace, home, *extra)``: ``harness -p "write x.txt"`` against a model
    that writes x.txt, in this process (tests/cli/inprocess.py)."""
    harness = in_process(monkeypatch, capsys)

    def run(
        model: ScriptedModel, workspace: Path, home: Path, *extra: str
    ) -> subprocess.CompletedProcess[str]:
        model.add(reply("", call("write_file", path="x.txt", content="x")), reply("I could not."))
        base = ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url]
        return harness(["-p", "write x.txt", *extra, *base], workspace=workspace, home=home)

    return run


def test_a_change_nobody_can_approve_ends_the_run_with_1(
    model: ScriptedModel, workspace: Path, home: Path, write_x: Run
) -> None:
    p = write_x(model, workspace, home)
    assert p.returncode == 1, p.stderr
    assert "no terminal to ask for approval" in p.stderr
    assert p.stdout == ""  # the model was not asked again
    assert not (workspace / "x.txt").exists()


def test_a_change_a_deny_rule_refuses_lets_the_run_go_on(
    model: ScriptedModel, workspace: Path, home: Path, write_x: Run
) -> None:
    p = write_x(model, workspace, home, "--deny", "write_file")
    assert p.returncode == 0, p.stderr
    assert "denied by rule write_file" in p.stderr
    assert p.stdout == "I could not.\n"
    assert not (workspace / "x.txt").exists()
