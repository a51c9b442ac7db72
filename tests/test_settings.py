"""The settings file in HARNESS_HOME, and the settings harness reads from the environment,
through the real command line against the scripted model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from harness.settings import load_settings, parse_env_file
from tests.conversation.conftest import MODULES, PYTHONPATH
from tests.scripted import ScriptedModel, reply

ENV_FILE = """\
# harness settings
export HARNESS_PROVIDER=openai
HARNESS_MODEL = scripted   # the model
HARNESS_SYSTEM_PROMPT_FILE='{prompt}'
GREETING="two\\nlines \\"quoted\\""
HARNESS_HOME=/elsewhere
this line is broken
"""


def test_the_file_is_read_as_a_shell_would_and_the_environment_wins(tmp_path: Path) -> None:
    values, problems = parse_env_file(ENV_FILE.format(prompt="/p x.md"), "f")
    assert values == {
        "HARNESS_PROVIDER": "openai",
        "HARNESS_MODEL": "scripted",
        "HARNESS_SYSTEM_PROMPT_FILE": "/p x.md",
        "GREETING": 'two\nlines "quoted"',
        "HARNESS_HOME": "/elsewhere",
    }
    assert problems == ["f line 7 is not NAME=value; ignored"]
    (tmp_path / ".env").write_text(ENV_FILE.format(prompt="p.md"))
    env = {"HARNESS_HOME": str(tmp_path), "HARNESS_MODEL": "from-the-shell"}
    problems = load_settings(env)
    assert env["HARNESS_MODEL"] == "from-the-shell"
    assert env["HARNESS_PROVIDER"] == "openai"
    assert env["HARNESS_HOME"] == str(tmp_path)
    assert any("HARNESS_HOME cannot be set" in p for p in problems)
    assert load_settings({"HARNESS_HOME": str(tmp_path / "none")}) == []


def test_provider_model_window_output_prompt_and_thinking_from_the_settings_file(
    tmp_path: Path,
) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    (home / "prompt.md").write_text("You are a terse reviewer.\n")
    with ScriptedModel([reply("ok", thinking="mulling")]) as model:
        (home / ".env").write_text(
            "HARNESS_PROVIDER=openai\n"
            "HARNESS_MODEL=scripted\n"
            f"OPENAI_BASE_URL={model.base_url}\n"
            "OPENAI_API_KEY=sk-from-the-file\n"
            "HARNESS_CONTEXT_WINDOW=other=4096,scripted=20000,9000\n"
            "HARNESS_MAX_OUTPUT=scripted=1234\n"
            f"HARNESS_SYSTEM_PROMPT_FILE={home / 'prompt.md'}\n"
            "HARNESS_KEEP_THINKING=1\n"
        )
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.endswith("_API_KEY") and not k.startswith(("HARNESS_", "OPENAI_"))
        }
        env.update(
            HARNESS_HOME=str(home),
            PYTHONPATH=PYTHONPATH,
            HARNESS_WORKERS=json.dumps({k: v for k, v in MODULES.items() if k != "shell"}),
        )
        p = subprocess.run(
            [sys.executable, "-m", "harness", "-p", "hi", "--output-format", "stream-json"],
            cwd=ws,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert p.returncode == 0, p.stderr
        sent = model.requests[0]
    assert sent["model"] == "scripted"
    assert sent["max_tokens"] == 1234
    assert sent["messages"][0]["role"] == "system"
    assert sent["messages"][0]["content"].startswith("You are a terse reviewer.\n\nWorkspace: ")
    assert "You are harness" not in sent["messages"][0]["content"]
    assert model.headers[0].get("authorization") == "Bearer sk-from-the-file"
    events = [json.loads(line) for line in p.stdout.splitlines()]
    said = [e for e in events if e["type"] == "assistant_message"]
    assert said[0]["thinking"] == "mulling"  # kept, because the file asked


def test_a_bad_setting_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_text("HARNESS_CONTEXT_WINDOW=big\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(HARNESS_HOME=str(home), PYTHONPATH=PYTHONPATH)
    p = subprocess.run(
        [sys.executable, "-m", "harness", "-p", "hi", "--provider", "openai"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2
    assert "HARNESS_CONTEXT_WINDOW must be a number of tokens" in p.stderr
