"""Drive the real interactive harness on a real pty (pexpect), with a scripted model."""

from __future__ import annotations

import json
import os
import re
import sys
import termios
import time
from pathlib import Path
from typing import Any

import pexpect

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-B]|\x1b[=>]")

# Test-only workers from tests/conversation stand in for a real worker that is not on
# this branch yet; the model one speaks OpenAI's wire format to the scripted model.
TEST_WORKERS = {
    "model": "tests.conversation.workers.model_openai",
    "tools": "tests.conversation.workers.tools_min",
    "shell": "tests.conversation.workers.tools_min",
}


def _exists(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def worker_modules() -> dict[str, str] | None:
    """Worker modules for the harness under test: the real ones, or stand-ins where a
    real one is missing (``None`` when every real worker is there)."""
    chosen = {
        name: f"harness.actors.{name}"
        if _exists(f"harness.actors.{name}.__main__")
        else TEST_WORKERS[name]
        for name in TEST_WORKERS
    }
    return None if all(v.startswith("harness.") for v in chosen.values()) else chosen


def harness_opens_terminal() -> bool:
    """Whether ``harness`` (no -p) dispatches to the terminal on this branch; until the
    command line does, the tests start the same frontend as ``-m harness.cli.tui``."""
    return "harness.cli.tui" in (ROOT / "src/harness/cli/_main.py").read_text()


def squeezed(text: str) -> str:
    """*text* without its whitespace, so a line the terminal wrapped still matches:
    a long temporary path makes lines wider than the pty, and rich breaks them
    between words or, in a path, inside one."""
    return "".join(text.split())


class Term:
    """A harness process on a pty, and what it printed (with ANSI codes removed)."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child
        self.raw = ""  # everything the process wrote, escape codes and all
        self._seen = 0  # where in the plain text the next expect starts

    def expect(self, pattern: str, timeout: float = 20) -> str:
        """Wait for *pattern* (a regex over the plain text); the text before and at it."""
        deadline = time.monotonic() + timeout
        while True:
            plain = ANSI.sub("", self.raw)
            m = re.compile(pattern).search(plain, self._seen)
            if m:
                text = plain[self._seen : m.end()]
                self._seen = m.end()
                return text
            left = deadline - time.monotonic()
            if left <= 0:
                seen = plain[self._seen :][-3000:]
                raise AssertionError(f"{pattern!r} did not appear; screen text:\n{seen}")
            try:
                self.raw += self.child.read_nonblocking(65536, timeout=min(left, 1.0))
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF as exc:
                seen = plain[self._seen :][-3000:]
                raise AssertionError(f"harness exited; screen text:\n{seen}") from exc

    def send(self, text: str) -> None:
        self.child.send(text)

    def line(self, text: str) -> None:
        """Type *text* and press Enter."""
        self.child.send(text)
        self.child.send("\r")

    def close(self, timeout: float = 10) -> None:
        """Leave harness the way a user does (Ctrl+C, then Ctrl+D at the prompt), so it
        shuts its workers down itself; killed only if it has not exited in *timeout*."""
        if self.child.isalive():
            self._wait_for_keys()
            self.child.sendcontrol("c")  # cancels a run, or clears the line
            # A Ctrl+D that arrives while the cancelled run is still winding down is
            # dropped (keys typed during a run are not the prompt's), so it is sent again
            # until harness exits. Ctrl+C is not: once the prompt has left raw mode it
            # would be a SIGINT in the middle of the shutdown.
            deadline = time.monotonic() + timeout
            while True:
                self.child.sendcontrol("d")
                try:
                    self.child.expect(pexpect.EOF, timeout=0.5)
                    break
                except pexpect.TIMEOUT:
                    if time.monotonic() >= deadline:
                        self.child.terminate(force=True)
                        break
        self.child.close()

    def _wait_for_keys(self, timeout: float = 2.0) -> None:
        """Wait (a bounded while) until harness reads keys itself: the pty out of its
        signal mode, so a Ctrl+C is a key, not a SIGINT. Between two prompts (a session
        opening, the prompt being set up) the pty is in its cooked mode, and a SIGINT
        there ends harness with a KeyboardInterrupt whose exit takes seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                lflag = termios.tcgetattr(self.child.child_fd)[3]
            except termios.error:
                return
            if not lflag & termios.ISIG:
                return
            time.sleep(0.02)


def spawn(
    workspace: Path,
    home: Path,
    *,
    base_url: str | None,
    args: list[str] | None = None,
    env: dict[str, str] | None = None,
    raw_output: Any = None,
) -> Term:
    """Start ``harness`` (the interactive terminal) in *workspace* on a 40x120 pty."""
    e = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and k not in ("HARNESS_WORKERS",)
    }
    e.update(
        HARNESS_HOME=str(home),
        TERM="xterm-256color",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        OLLAMA_BASE_URL="http://127.0.0.1:9",  # no Ollama here, and fast to fail
        HARNESS_EMBEDDED="off",  # nor the embedded model (make install puts it on CI)
        PROMPT_TOOLKIT_NO_CPR="1",  # pexpect does not answer cursor position requests
        COLUMNS="120",
        LINES="40",
    )
    workers = worker_modules()
    if workers is not None:
        e["HARNESS_WORKERS"] = json.dumps(workers)
    e["OPENAI_API_KEY"] = "sk-test-scripted"  # the scripted model takes any key
    e.update(env or {})
    argv = ["-m", "harness"] if harness_opens_terminal() else ["-m", "harness.cli.tui"]
    if base_url is not None:
        argv += ["--provider", "openai", "--model", "scripted", "--base-url", base_url]
    argv += args or []
    child = pexpect.spawn(
        sys.executable,
        argv,
        cwd=str(workspace),
        env=e,
        dimensions=(40, 120),
        encoding="utf-8",
        codec_errors="replace",
        logfile=raw_output,
    )
    return Term(child)
