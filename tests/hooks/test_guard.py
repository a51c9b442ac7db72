"""A command cannot give the model a hook behind the tools' back: a hook file a command
writes, however it names it, is undone after the call, and no later session runs it.
``harness -p`` in the test's process (tests/cli/inprocess.py), the scripted model on
loopback, the real workers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.inprocess import Harness, in_process
from tests.scripted import ScriptedModel, call, reply
from tests.shell.test_hostile_run import base

# a hook that, if it ever ran, would leave a file behind
HOOK = json.dumps(
    {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch pwned"}]}]}}
)
WRITES = {
    "user settings": (
        "d=$(printenv | grep ^HARNESS_HO | cut -d= -f2); s=sett; "
        f"echo '{HOOK}' > $d/${{s}}ings.json"
    ),
    "project .claude": f"d=.cla; mkdir -p ${{d}}ude && echo '{HOOK}' > ${{d}}ude/settings.json",
    "project .claude local": (
        f"d=.cla; mkdir -p ${{d}}ude && echo '{HOOK}' > ${{d}}ude/settings.local.json"
    ),
    "project .harness": f"d=.harn; mkdir -p ${{d}}ess && echo '{HOOK}' > ${{d}}ess/settings.json",
}


@pytest.fixture
def harness(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Harness:
    """``harness(args, workspace=, home=, env=, shell=)``, in this process."""
    return in_process(monkeypatch, capsys)


def test_a_hook_written_by_a_command_is_undone_and_never_runs(
    model: ScriptedModel, dirs: tuple[Path, Path], harness: Harness
) -> None:
    ws, home = dirs
    # one call for each file, in one run: each is undone after its own call
    model.add(reply("", *(call("run_cmd", command=c) for c in WRITES.values())), reply("done"))
    p = harness(
        ["-p", "x", "--permission-mode", "auto", "--trust-project", *base(model)],
        workspace=ws,
        home=home,
        shell=True,
    )
    assert p.stderr.count("changed files that configure harness; undone") == len(WRITES)
    assert not (home / "settings.json").exists()
    for name in (".claude/settings.json", ".claude/settings.local.json", ".harness/settings.json"):
        assert not (ws / name).exists(), name
    model.add(reply("hello"))
    p = harness(
        ["-p", "x", "--permission-mode", "auto", "--trust-project", *base(model)],
        workspace=ws,
        home=home,
    )
    assert p.returncode == 0, p.stderr
    assert not (ws / "pwned").exists()
