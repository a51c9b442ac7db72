"""``harness prime``: the system prompt's shared part read once, ahead of the first question.

On the tiny model (``_tiny.py``: the default model's tokenizer and chat template, random
weights), in a model cache of this file's own: a prime into an empty cache saves the state
that a session in a folder never seen then loads (its usage says the shared tokens came
cached); a second prime loads no model; a model that is not installed, or a llama.cpp that
crashes, is one line and exit status 0.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

# A llama.cpp that takes its process down as it is imported: whoever imports it dies.
CRASHING_RUNTIME = "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"
# One that takes as long as a slow machine's reading.
SLOW_RUNTIME = "import time\ntime.sleep(60)\n"


def _env(cache: Path, home: Path, **more: str) -> dict[str, str]:
    return {**os.environ, "HARNESS_MODEL_CACHE": str(cache), "HARNESS_HOME": str(home), **more}


def _harness(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # a bound against a hang, not a speed check
        check=False,
    )


def _cache(tmp: Path, default_model_path: Path) -> Path:
    """A model cache holding nothing but the runtime's proof on this machine."""
    cache = tmp / "cache"
    cache.mkdir()
    shutil.copytree(default_model_path.parent / "runtime-ok", cache / "runtime-ok")
    return cache


def _crashing_runtime(tmp: Path, code: str = CRASHING_RUNTIME) -> str:
    shadow = tmp / "shadow" / "llama_cpp"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(code)
    return str(shadow.parent)


@pytest.fixture(scope="module")
def primed_cache(
    tmp_path_factory: pytest.TempPathFactory, default_model_path: Path, tiny_model_path: Path
) -> tuple[Path, Path, subprocess.CompletedProcess[str]]:
    """A cache the tiny model was primed into once: (cache, home, the prime's run)."""
    tmp = tmp_path_factory.mktemp("primed")
    cache = _cache(tmp, default_model_path)
    home = tmp / "home"
    home.mkdir()
    run = _harness(["prime", str(tiny_model_path)], _env(cache, home), tmp)
    return cache, home, run


def _states(cache: Path) -> list[Path]:
    return sorted((cache / "state").glob("*.state"))


def test_a_prime_saves_the_state_a_session_in_a_new_folder_then_loads(
    primed_cache: tuple[Path, Path, subprocess.CompletedProcess[str]],
    tiny_model_path: Path,
    tmp_path: Path,
) -> None:
    cache, home, run = primed_cache
    assert run.returncode == 0, run.stderr
    assert "reading the embedded model's shared prompt once" in run.stderr
    assert "Traceback" not in run.stderr
    [state] = _states(cache)
    # a folder never seen: the first request finds the shared part's state and reads
    # only the folder's own lines and the question
    folder = tmp_path / "never-seen"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello\n")
    env = _env(cache, home, HARNESS_MAX_OUTPUT="16")
    args = ["-p", "What is in notes.txt?", "--provider", "local", "--model"]
    # two turns: the first is the read of notes.txt the rules write (read-named)
    args += [str(tiny_model_path), "--max-turns", "2", "--output-format", "stream-json"]
    session = _harness(args, env, folder)
    assert "Traceback" not in session.stderr, session.stderr
    events: list[dict[str, Any]] = [
        json.loads(line) for line in session.stdout.splitlines() if line.strip()
    ]
    usage = [e for e in events if "cached_tokens" in e]
    assert usage, [e.get("type") for e in events]
    first = usage[0]
    # the shared part is well over a thousand tokens; what is left is a few dozen
    assert first["cached_tokens"] > 1000, first
    assert first["prompt_tokens"] - first["cached_tokens"] < 300, first
    assert state.is_file()  # loaded, not read again under another name
    assert state in _states(cache)


def test_a_second_prime_loads_no_model(
    primed_cache: tuple[Path, Path, subprocess.CompletedProcess[str]],
    tiny_model_path: Path,
    tmp_path: Path,
) -> None:
    cache, home, first = primed_cache
    assert first.returncode == 0, first.stderr
    before = _states(cache)
    # were the model loaded, llama.cpp would crash the child and the prime would say so
    env = _env(cache, home, PYTHONPATH=_crashing_runtime(tmp_path))
    again = _harness(["prime", str(tiny_model_path)], env, tmp_path)
    assert again.returncode == 0
    assert again.stderr == ""
    assert _states(cache) == before


def test_a_crash_while_reading_is_one_line_and_the_install_goes_on(
    tmp_path: Path, default_model_path: Path, tiny_model_path: Path
) -> None:
    cache = _cache(tmp_path, default_model_path)
    env = _env(cache, tmp_path, PYTHONPATH=_crashing_runtime(tmp_path))
    run = _harness(["prime", str(tiny_model_path)], env, tmp_path)
    assert run.returncode == 0
    lines = run.stderr.splitlines()
    assert len(lines) == 2, run.stderr  # what it does, then why it did not
    assert "SIGSEGV" in lines[1], lines
    assert "the first question will read" in lines[1], lines
    assert _states(cache) == []


def test_a_model_not_installed_is_skipped_with_one_line(tmp_path: Path) -> None:
    cache = tmp_path / "empty-cache"
    cache.mkdir()
    run = _harness(["prime"], _env(cache, tmp_path), tmp_path)
    assert run.returncode == 0
    assert run.stderr.count("\n") == 1, run.stderr
    assert "is not installed" in run.stderr
    assert "skipped" in run.stderr
    assert not (cache / "state").exists()


def test_ctrl_c_while_reading_is_one_line(
    tmp_path: Path, default_model_path: Path, tiny_model_path: Path
) -> None:
    cache = _cache(tmp_path, default_model_path)
    env = _env(cache, tmp_path, PYTHONPATH=_crashing_runtime(tmp_path, SLOW_RUNTIME))
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "prime", str(tiny_model_path)],
        cwd=tmp_path,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stderr is not None
    first = proc.stderr.readline()
    assert "reading the embedded model's shared prompt once" in first
    time.sleep(0.3)  # the child is in its (slow) import of llama.cpp by now
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl+C reaches the whole foreground group
    rest = proc.communicate(timeout=60)[1]
    assert proc.returncode == 130
    assert "Traceback" not in rest
    assert rest.splitlines() == [
        "harness: interrupted; the first question will read the shared prompt itself"
    ]
