"""What a ``harness -p`` run loads is what it uses: the session's pieces a run may never
need (what runs hooks, the file commands) load when a file configures them or the prompt
names one, not with every session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scripted import ScriptedModel, reply

ROOT = Path(__file__).resolve().parents[2]
PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

# the run as `harness -p` runs it, then what it had loaded
_RUN = """
import sys
from harness.__main__ import main
status = main(sys.argv[1:])
print("modules:", *sorted(sys.modules))
sys.exit(status)
"""

#: What runs hooks (the settings files are read by every session).
HOOK_RUNNER = ("harness.hooks._hooks", "harness.hooks._run", "harness.hooks._verdict")


def _loaded(model: ScriptedModel, workspace: Path, home: Path) -> set[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(HARNESS_HOME=str(home), PYTHONPATH=PYTHONPATH)
    argv = ["-p", "capital of France?", "--provider", "openai", "--model", "scripted"]
    done = subprocess.run(
        [sys.executable, "-c", _RUN, *argv, "--base-url", model.base_url],
        capture_output=True,
        text=True,
        cwd=workspace,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "Paris."
    assert lines[-1].startswith("modules:")
    return set(lines[-1].split()[1:])


@pytest.mark.parametrize("hooked", [False, True])
def test_what_runs_hooks_loads_only_when_a_hook_is_configured(
    model: ScriptedModel, workspace: Path, home: Path, hooked: bool
) -> None:
    if hooked:
        stop = [{"matcher": "", "hooks": [{"type": "command", "command": "true"}]}]
        (home / "settings.json").write_text(json.dumps({"hooks": {"Stop": stop}}))
    model.add(reply("Paris."))
    loaded = _loaded(model, workspace, home)
    assert "harness.hooks._config" in loaded  # the files were read either way
    assert sorted(loaded.intersection(HOOK_RUNNER)) == (list(HOOK_RUNNER) if hooked else [])


def test_a_plain_prompt_loads_no_file_command(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    model.add(reply("Paris."))
    loaded = _loaded(model, workspace, home)
    assert "harness.custom._agents" in loaded  # the named agents are offered either way
    commands = ("harness.cli._filecmd", "harness.custom._commands", "harness.custom._expand")
    assert sorted(loaded.intersection(commands)) == []
