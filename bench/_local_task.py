"""What a task of ``python -m bench local-tasks`` is, and the helpers its checks read with.

A task is a folder of files, a prompt given to ``harness -p``, and a check that reads the
outcome: the files afterwards, commands run on them, the answer, the calls made. A task of
the fresh set also carries a reference solution (files changed as a person would, and an
answer), which ``tests/local/test_fresh_tasks.py`` runs through the check: the check passes
on the solution and fails on the untouched folder, so no check can pass by itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import yaml

Events = list[dict[str, Any]]
Check = Callable[[Events, Path], bool]
Solve = Callable[[Path], str]


@attrs.frozen
class Task:
    """One task: *files* written into an empty folder, *prompt* given to harness, *check*
    reading the events and the folder afterwards."""

    name: str
    prompt: str
    files: dict[str, str]
    check: Check
    writes: tuple[str, ...] = ()  # files the task may write
    max_turns: int = 6
    kind: str = ""
    solve: Solve | None = None  # the reference solution: change the folder, give the answer
    solve_calls: tuple[str, ...] = ()  # the tools the reference solution calls

    @property
    def half(self) -> str:
        """``A`` or ``B``: the parity of the first byte of the SHA-256 of the task's name,
        fixed whatever the set's order. Rules and prompts are tuned on A alone."""
        return "A" if hashlib.sha256(self.name.encode()).digest()[0] % 2 == 0 else "B"


def answer(events: Events) -> str:
    """The run's final answer ("" when it ended without one)."""
    result = next((e for e in events if e.get("type") == "result"), None)
    return str(result.get("text", "")) if result else ""


def calls(events: Events, name: str | None = None) -> list[dict[str, Any]]:
    """The calls the model asked for (*name*: of that tool only)."""
    return [
        e
        for e in events
        if e.get("type") == "tool_call_requested" and (name is None or e.get("name") == name)
    ]


def read(events: Events, path: str) -> bool:
    """Whether the model asked to read *path*."""
    return any(path in json.dumps(c.get("arguments", {})) for c in calls(events, "read_file"))


def passes(ws: Path, command: str) -> bool:
    """Whether *command* exits 0 in *ws*."""
    return run(ws, command)[0] == 0


def tests_catch(ws: Path, before: int, module: str, broken: str) -> bool:
    """Whether the project's tests, more than the *before* it had, pass in *ws*, and fail
    in a copy of it whose *module* reads *broken*: a test asked for that catches what it
    was asked to."""
    code, out = run(ws, "python3 -m unittest")
    ran = re.search(r"Ran (\d+) tests?", out)
    if code != 0 or not ran or int(ran[1]) <= before:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "project"
        shutil.copytree(ws, copy, ignore=shutil.ignore_patterns("__pycache__"))
        (copy / module).write_text(broken)
        return not passes(copy, "python3 -m unittest")


def run(ws: Path, command: str) -> tuple[int, str]:
    """*command*'s exit status and output (stdout and stderr) in *ws*; ``python3`` is the
    interpreter running the bench.

    No bytecode is written: a check run before a same-size edit made within the same second
    (``>`` to ``<``) would leave a ``.pyc`` that still looks current, and the next check
    would run the old code.
    """
    command = re.sub(r"\bpython3\b", sys.executable, command)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        command,
        shell=True,
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr


def text(ws: Path, path: str) -> str:
    """The file's text, "" when it is missing."""
    try:
        return (ws / path).read_text()
    except (OSError, UnicodeDecodeError):
        return ""


# what saying that a thing is not there looks like ("I could not find CHANGELOG.md",
# "there is no function compute_shipping", "redis_url is not set in config.json",
# "src/cart.js has no SUMMER20 coupon")
_ABSENT = re.compile(
    r"(does not|doesn't|did not|didn't|could not|couldn't|cannot|can't|can not|unable to|"
    r"was not|wasn't|is not|isn't|are no|there's no|there is no|no such|not)"
    r"\s+(\w+\s+){0,3}?(exist|find|found|locate|present|defined|contain|set|see|there|"
    r"available|include|have|listed|mention|specified|stated|documented|configured)"
    r"|\b(there is|there's|there are|has|have) no\b"
    r"|\bno (such|file|function|key|setting|entry|test|script|definition|mention)\b"
    r"|\bmissing\b|\bnot found\b|\bdoes ?n[o']t exist\b",
    re.I,
)


def says_absent(reply: str) -> bool:
    """Whether *reply* says that what was asked about is not there."""
    return _ABSENT.search(reply) is not None


def changed(ws: Path, files: dict[str, str]) -> bool:
    """Whether the folder differs from *files*: one of them changed or went, or a file
    was added (the bench's own events and the caches of Python and pytest runs aside)."""
    for name, body in files.items():
        if text(ws, name) != body:
            return True
    caches = {"__pycache__", ".harness", ".pytest_cache"}
    have = {
        str(p.relative_to(ws))
        for p in ws.rglob("*")
        if p.is_file() and not caches.intersection(p.parts)
    }
    return bool(have - set(files))


def toml_of(ws: Path, path: str) -> dict[str, object]:
    """The TOML file read, ``{}`` when it does not parse."""
    try:
        return tomllib.loads(text(ws, path))
    except tomllib.TOMLDecodeError:
        return {}


def json_of(ws: Path, path: str) -> object:
    """The JSON file read, ``None`` when it does not parse."""
    try:
        return json.loads(text(ws, path))
    except ValueError:
        return None


def yaml_of(ws: Path, path: str) -> object:
    """The YAML file read, ``None`` when it does not parse."""
    try:
        return yaml.safe_load(text(ws, path))
    except yaml.YAMLError:
        return None


def same_but(got: object, want: object, *path: str) -> bool:
    """Whether *got* equals *want* but at *path* (a key path into nested dicts), where
    the caller checked the value itself."""
    if not path:
        return True
    if not isinstance(got, dict) or not isinstance(want, dict) or got.keys() != want.keys():
        return False
    head, rest = path[0], path[1:]
    return all(got[k] == want[k] for k in want if k != head) and same_but(
        got[head], want[head], *rest
    )


def _sub(ws: Path, path: str, old: str, new: str) -> None:
    body = text(ws, path)
    assert old in body, (path, old)
    (ws / path).write_text(body.replace(old, new, 1))


def edits(reply: str, *edits: tuple[str, str, str]) -> Solve:
    """A solution: each (path, old, new) replaced once, then *reply*."""

    def solve(ws: Path) -> str:
        for path, old, new in edits:
            _sub(ws, path, old, new)
        return reply

    return solve


def write_files(reply: str, files: dict[str, str]) -> Solve:
    """A solution: *files* written, then *reply*."""

    def solve(ws: Path) -> str:
        for path, body in files.items():
            (ws / path).parent.mkdir(parents=True, exist_ok=True)
            (ws / path).write_text(body)
        return reply

    return solve
