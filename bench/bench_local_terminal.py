"""A new user's first questions in the terminal, on the embedded model: ``python -m bench
local-terminal``.

Starts ``harness --provider local`` on a real pty in a fresh folder holding ``calc.py``
(whose ``add`` returns ``a - b``) and a fresh ``HARNESS_HOME``, waits for the first prompt,
and asks, one after the other:

1. "What does calc.py do? Is there a bug?"
2. "Read calc.py and tell me if add is correct."

A call that asks for approval (a command, an edit) is answered no, so the turn goes on
without it. For each turn the table gives the tool calls made, whether the answer names the bug
(says that ``add`` subtracts, and calls that wrong: a bug, incorrect, "should be
``a + b``"), the time from Enter to the model's first text on the screen,
and the time to the end of the turn. Beside the first text's time: how many prompt tokens
the model read before it (what it did not find in its cache), from the session's usage
events. Calls and answers come from the session's events
file; the first text is found in the pty's output, timed as it arrives. Each session runs
``BENCH_RUNS`` times (default 1), always in the same folder, so the first run of a machine
is a cold start and the others find the system prompt's state in the model cache.

Not part of ``make bench`` (minutes on two cores). ``BENCH_ARGS`` adds ``harness``
arguments (another provider, say). ``BENCH_ASK_AFTER`` (seconds, default 0) holds the first
question until that long after the terminal opened, as a user typing it would (issue 36's
goal counts from 10 s after the terminal opens; the model loads meanwhile): without it the
question goes as soon as the prompt shows, and its first text waits for the load too.
``HARNESS_MODEL_CACHE`` (passed on to harness) points at another model cache: a folder
holding only links to the cache's model file, its ``.verified`` stamp, ``runtime-ok`` and
``wheels`` is a brand-new machine's (nothing saved in ``state/``); ``harness prime`` there
is what ``make install`` does on one.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import attrs
import pexpect

from bench.bench_local_tasks import CALC, names_bug

QUESTIONS = (
    "What does calc.py do? Is there a bug?",
    "Read calc.py and tell me if add is correct.",
)
TURN_LIMIT = 600.0
ALLOW = "[y]es / [N]o / [a]lways"
"""What the terminal shows when a call waits for approval (``cli/tui/_approval.py``)."""
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-B]|\x1b[=>]")
_WORDS = re.compile(r"[A-Za-z0-9]+")


@attrs.frozen
class Turn:
    question: str
    calls: list[str]
    answer: str
    first_text: float | None
    seconds: float
    finished: bool
    read_first: int | None = None
    """Prompt tokens the model read before its first reply (the rest were cached)."""

    @property
    def names_bug(self) -> bool:
        """Whether the answer says that add subtracts, and that this is wrong ("add
        correctly subtracts" says what it does, and calls it right)."""
        return names_bug(self.answer)


class _Screen:
    """The pty's output with the time each piece arrived."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child
        self.pieces: list[tuple[float, str]] = []

    def pump(self, wait: float) -> None:
        try:
            got = self.child.read_nonblocking(65536, timeout=wait)
        except pexpect.TIMEOUT:
            return
        self.pieces.append((time.perf_counter(), got))

    def plain(self) -> str:
        return ANSI.sub("", "".join(p for _, p in self.pieces))

    def first_time(self, since: float, words: list[str]) -> float | None:
        """When the first of *words* appeared, in order, in what arrived after *since*."""
        if not words:
            return None
        text = ""
        pattern = re.compile(r"\W+".join(re.escape(w) for w in words))
        for at, piece in self.pieces:
            if at < since:
                continue
            text += piece
            if pattern.search(ANSI.sub("", text)):
                return at
        return None


def _events(home: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for log in sorted(home.glob("projects/*/sessions/*/events.jsonl")):
        for line in log.read_text(errors="replace").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def _first_words(events: list[dict[str, Any]]) -> list[str]:
    """The opening words of the first thing the model showed in a turn: its text, else
    the name of its first call."""
    for e in events:
        if e.get("type") == "assistant_message":
            words = _WORDS.findall(str(e.get("text", "")))
            if words:
                return words[:3]
            calls = e.get("tool_calls") or []
            if calls:
                return [str(calls[0].get("name", ""))]
    return []


def _read_first(events: list[dict[str, Any]]) -> int | None:
    """How many prompt tokens the turn's first request read: its prompt less what the
    model's cache held (``None``: the provider did not say)."""
    for e in events:
        if e.get("type") == "usage":
            prompt, cached = e.get("prompt_tokens"), e.get("cached_tokens")
            if isinstance(prompt, int) and isinstance(cached, int):
                return prompt - cached
            return None
    return None


def _session(ws: Path, home: Path, extra: list[str]) -> list[Turn]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        HARNESS_HOME=str(home),
        TERM="xterm-256color",
        OLLAMA_BASE_URL="http://127.0.0.1:9",
        PROMPT_TOOLKIT_NO_CPR="1",
        COLUMNS="120",
        LINES="40",
    )
    child = pexpect.spawn(
        sys.executable,
        ["-m", "harness", *extra],
        cwd=str(ws),
        env=env,
        dimensions=(40, 120),
        encoding="utf-8",
        codec_errors="replace",
    )
    opened = time.perf_counter()
    screen = _Screen(child)
    turns: list[Turn] = []
    try:
        deadline = opened + 120
        while "❯" not in screen.plain() and time.perf_counter() < deadline:
            screen.pump(1.0)
        ask_at = opened + float(os.environ.get("BENCH_ASK_AFTER", "0") or 0)
        while time.perf_counter() < ask_at:  # the user is still typing
            screen.pump(min(0.5, max(0.0, ask_at - time.perf_counter())))
        for question in QUESTIONS:
            before = len(_events(home))
            child.send(question)
            child.send("\r")
            sent = time.perf_counter()
            finished = False
            asked = screen.plain().count(ALLOW)
            while time.perf_counter() - sent < TURN_LIMIT:
                screen.pump(0.5)
                if any(e.get("type") == "result" for e in _events(home)[before:]):
                    finished = True
                    break
                if screen.plain().count(ALLOW) > asked:
                    # a call that asks first (a command, an edit): the bench says no, as a
                    # user who asked a question might, and the model goes on without it
                    asked += 1
                    child.send("n")
            seconds = time.perf_counter() - sent
            for _ in range(4):  # what the terminal still had to draw
                screen.pump(0.25)
            new = _events(home)[before:]
            calls = [
                f"{e.get('name')}({json.dumps(e.get('arguments', {}))})"
                for e in new
                if e.get("type") == "tool_call_requested"
            ]
            answer = next((str(e.get("text", "")) for e in new if e.get("type") == "result"), "")
            first = screen.first_time(sent, _first_words(new))
            turns.append(
                Turn(
                    question,
                    calls,
                    answer,
                    None if first is None else first - sent,
                    seconds,
                    finished,
                    _read_first(new),
                )
            )
            if not finished:
                child.sendcontrol("c")
                break
    finally:
        if child.isalive():
            child.sendcontrol("c")
            time.sleep(0.3)
            child.sendcontrol("d")
            try:
                child.expect(pexpect.EOF, timeout=10)
            except (pexpect.TIMEOUT, pexpect.EOF):
                pass
        child.close(force=True)
    return turns


def run() -> list[tuple[str, str, str]]:
    runs = int(os.environ.get("BENCH_RUNS", "1"))
    extra = shlex.split(os.environ.get("BENCH_ARGS", "")) or ["--provider", "local"]
    ws = Path(tempfile.gettempdir()) / "harness-bench-terminal" / "project"
    rows: list[tuple[str, str, str]] = []
    for i in range(runs):
        shutil.rmtree(ws, ignore_errors=True)
        ws.mkdir(parents=True)
        (ws / "calc.py").write_text(CALC)
        with tempfile.TemporaryDirectory(prefix="bench-terminal-") as tmp:
            turns = _session(ws, Path(tmp), extra)
        for n, turn in enumerate(turns, 1):
            first = "-" if turn.first_text is None else f"{turn.first_text:.1f} s"
            if turn.read_first is not None:
                first += f" (read {turn.read_first} new tokens first)"
            verdict = "names the bug" if turn.names_bug else "does not name the bug"
            if not turn.finished:
                verdict = f"no answer in {TURN_LIMIT:.0f} s"
            rows.append(
                (
                    f"run {i + 1} turn {n}: {turn.question}",
                    f"first text {first}, done {turn.seconds:.0f} s",
                    f"{', '.join(turn.calls) or 'no call'}; {verdict}",
                )
            )
            print(f"turn {n} answer: {turn.answer!r}", file=sys.stderr, flush=True)
    return rows
