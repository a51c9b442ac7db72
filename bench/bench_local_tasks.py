"""Two task sets, run for real on the embedded model: ``python -m bench local-tasks``.

Each task is a folder of files, a prompt given to ``harness -p`` (auto permissions, the
embedded default model, the whole program), and a check of the outcome: the answer, the
files afterwards, a command that must pass, the calls made. Two sets:

- the first set (:data:`TASKS`, eleven tasks the nudge rules were written beside);
- the fresh set (:mod:`bench._local_fresh`, 305 tasks of eight kinds on eight small
  projects' files: a shop, a bike station, a greenhouse, a library's lending desk, a
  bakery, a sailing club, a theatre's box office and a village community minibus, written
  after the rules), split in two halves by a fixed hash of each task's name: rules are
  tuned on half A only, and kept only if they do not lose on half B.

The table gives each task's success rate and median time, then each set's figure and each
half's, and counts runs that ended without an answer, writes nobody asked for that went
through (a refused one changed nothing), runs that ended ``ok`` on a task asking for a
change with nothing changed (a change claimed and never made), and runs that ended ``ok``
on a task whose check failed (the run said done; the work was not); and for each part, the
runs in which a nudge rule asked the model again, each rule with the runs it asked in
and how many of them ended ok (read from the runs' ``nudged`` status events). Every task
runs in the same folder, emptied and filled with the task's files before each run, as a
user works in one project. The events of every run are left in
``harness-bench-tasks/TASK/failed-RUN.jsonl`` (or ``ok-RUN.jsonl``) under the temp folder
(RUN counts from 1; the files of an earlier bench are removed when it starts). One run
at a time: a second one started beside it stops at once with an error.

Not part of ``make bench`` (the two sets take about an hour a run on two cores). Settings,
from the environment:

- ``BENCH_RUNS``: runs per task (default 1). Run 1 works in ``harness-bench-tasks/project``
  under the temp folder, each later run N in ``harness-bench-tasks/N/project``: decoding is
  greedy, so a second run at the same path gives the same replies, while the path, which
  the system prompt names, changes them and flipped 3-4 tasks a half. With runs at two or
  three paths the table gives each part's figure at each path and the tasks whose outcome
  moved with it, so a change is judged on what holds across paths;
- ``BENCH_SET``: ``first``, ``fresh``, ``later`` (the fresh set's 36 tasks of the first two
  batches written after the rules, :data:`bench._local_fresh.LATER`), ``third`` (the 18
  of a third such batch, :data:`bench._local_fresh.THIRD`), ``fourth`` (the 19 of a
  fourth, :data:`bench._local_fresh.FOURTH`), ``fifth`` (the 20 of a fifth,
  :data:`bench._local_fresh.FIFTH`), ``sixth`` (the 24 of a sixth, on a second project,
  :data:`bench._local_fresh.SIXTH`), ``seventh`` (the 24 of a seventh, on a third project,
  :data:`bench._local_fresh.SEVENTH`), ``eighth`` (the 24 of an eighth, on a fourth project,
  :data:`bench._local_fresh.EIGHTH`), ``ninth`` (the 24 of a ninth, on a fifth project,
  :data:`bench._local_fresh.NINTH`), ``tenth`` (the 24 of a tenth, on a sixth project,
  :data:`bench._local_fresh.TENTH`), ``eleventh`` (the 24 of an eleventh, on a seventh
  project, :data:`bench._local_fresh.ELEVENTH`), ``twelfth`` (the 24 of a twelfth, on an
  eighth project, :data:`bench._local_fresh.TWELFTH`), ``reworded`` (half A's change
  requests the rules finish alone, each put as other users might put it, on the same
  files and checks: :func:`bench._local_reworded.reworded_tasks`; ``reworded-later``,
  ``reworded-third``, ``reworded-fourth``, ``reworded-fifth``, ``reworded-sixth``,
  ``reworded-seventh``, ``reworded-eighth``, ``reworded-ninth``, ``reworded-tenth``,
  ``reworded-eleventh``, ``reworded-twelfth``: the sets written after it), or ``all``
  (default);
- ``BENCH_HALF``: ``A`` or ``B``: only that half of the fresh set;
- ``BENCH_TASKS``: a comma-separated list of task names (default: all);
- ``BENCH_OFF``: ``grammar``, ``nudge``, ``stop`` (comma-separated): run with those
  switched off, to measure what each brings;
- ``BENCH_ARGS``: extra ``harness`` arguments (``--provider openai --base-url URL
  --tool-protocol text`` to run the set against an OpenAI-compatible server).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

import attrs

from bench._local_fresh import (
    EIGHTH,
    ELEVENTH,
    FIFTH,
    FOURTH,
    FRESH,
    LATER,
    NINTH,
    SEVENTH,
    SIXTH,
    TENTH,
    THIRD,
    TWELFTH,
)
from bench._local_reworded import WORDINGS, reworded_tasks
from bench._local_task import Events, Task, answer, calls, changed, passes, read
from harness.actors.model.local._guide import (
    ASKED_PREFIX,
    KNOWN_PREFIX,
    NUDGED_PREFIX,
    TAKEN_PREFIX,
)
from harness.actors.model.local._turn import Step

_answer = answer
_calls = calls
_read = read
_passes = passes


CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"

# what calls something wrong ("there is no bug" and "add correctly subtracts" do not;
# "subtracts, which is the opposite of what it is supposed to do" and "subtracts b from a,
# not adds them" do)
_FAULT = re.compile(
    r"\b(is a bug|the bug|a bug in|bug:|incorrect|wrong|mistake|should (be|return|add)"
    r"|instead of add|(is not|isn't|not) correct|opposite of|not (the )?(intended|expected)"
    r"|not what|not adds?\b|(does not|doesn't|do not) match)"
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def changed_a_file(events: Events) -> set[object]:
    """The ids of the calls whose tool says they changed a file, read as the nudges read
    a write (:attr:`Step.wrote`): a refused call, or one the tool says left the file as
    it was ("x.sh unchanged (the edits change nothing …)"), is not one."""
    named = {c.get("call_id"): str(c.get("name")) for c in calls(events)}
    return {
        e.get("call_id")
        for e in events
        if e.get("type") == "tool_call_finished"
        and e.get("ok")
        and Step(named.get(e.get("call_id"), ""), result=str(e.get("output") or "")).wrote
    }


def names_bug(answer: str) -> bool:
    """Whether *answer* says that calc.py's ``add`` subtracts, and that this is wrong, and
    calls ``mul`` wrong in no sentence of its own ("mul multiplies, which does not match
    the name mul" is a second bug that is not there)."""
    text = answer.lower()
    subtracts = any(w in text for w in ("subtract", "minus", "difference", "a - b", "- b"))
    mul_wrong = any(
        "mul" in s and "add" not in s and _FAULT.search(s) for s in _SENTENCE.split(text)
    )
    return "add" in text and subtracts and _FAULT.search(text) is not None and not mul_wrong


TASKS = (
    Task(
        "read-answer",
        "Read the file secret.txt and tell me the launch code.",
        {"secret.txt": "Launch notes\nThe launch code is ORCHID-4471.\n", "main.py": "print(1)\n"},
        lambda ev, ws: _read(ev, "secret.txt") and "ORCHID-4471" in _answer(ev),
    ),
    Task(
        "read-config",
        "Which port does config.ini set? Read it and answer with the number.",
        {"config.ini": "[server]\nhost = 0.0.0.0\nport = 8731\n", "app.py": "pass\n"},
        lambda ev, ws: _read(ev, "config.ini") and "8731" in _answer(ev),
    ),
    Task(
        "list-pick",
        "List the files in this folder and tell me which one holds the licence text.",
        {"LICENSE": "MIT License\n", "main.py": "print(1)\n", "notes.md": "# notes\n"},
        lambda ev, ws: (
            bool(_calls(ev, "list_dir") or _calls(ev, "find_files")) and "LICENSE" in _answer(ev)
        ),
    ),
    Task(
        "fix-line",
        "Fix the bug in calc.py so that this command passes: "
        "python3 -c 'import calc; assert calc.add(2, 3) == 5'",
        {"calc.py": CALC},
        lambda ev, ws: (
            _passes(ws, "python3 -c 'import calc; assert calc.add(2, 3) == 5'")
            and _passes(ws, "python3 -c 'import calc; assert calc.mul(2, 3) == 6'")
        ),
        writes=("calc.py",),
        max_turns=8,
    ),
    Task(
        "rename-two-files",
        "Rename the function helper to compute, in util.py and in main.py.",
        {
            "util.py": "def helper(x):\n    return x * 2\n",
            "main.py": "from util import helper\n\nprint(helper(21))\n",
        },
        lambda ev, ws: (
            _passes(ws, "python3 main.py | grep -qx 42")
            and "helper" not in (ws / "util.py").read_text() + (ws / "main.py").read_text()
        ),
        writes=("util.py", "main.py"),
        max_turns=10,
    ),
    Task(
        "run-report",
        "Run the command `python3 hello.py` and tell me what it prints.",
        {"hello.py": "print('hello', 6 * 7)\n"},
        lambda ev, ws: bool(_calls(ev, "run_cmd")) and "hello 42" in _answer(ev),
    ),
    Task(
        "no-tool",
        "What is 12 times 12? Answer with just the number.",
        {"main.py": "print(1)\n"},
        lambda ev, ws: not _calls(ev) and "144" in _answer(ev),
    ),
    Task(
        "no-invent",
        "Read the file missing.txt and tell me what it says.",
        {"main.py": "print(1)\n"},
        lambda ev, ws: not (ws / "missing.txt").exists() and bool(_answer(ev).strip()),
    ),
    Task(
        "rename-param",
        "In greet.py, rename the parameter nam to name.",
        {"greet.py": "def greet(nam):\n    return 'hello ' + nam\n"},
        lambda ev, ws: _passes(
            ws,
            'python3 -c \'import greet, inspect; assert greet.greet("x") == "hello x"; '
            'assert list(inspect.signature(greet.greet).parameters) == ["name"]\'',
        ),
        writes=("greet.py",),
        max_turns=8,
    ),
    Task(
        "find-bug",
        "What does calc.py do? Is there a bug?",
        {"calc.py": CALC},
        lambda ev, ws: _read(ev, "calc.py") and names_bug(_answer(ev)),
    ),
    Task(
        "search-def",
        "Which file defines the function parse_date? Answer with the file name.",
        {
            "app.py": "from dates import parse_date\n\nprint(parse_date('2024-01-02'))\n",
            "dates.py": "def parse_date(text):\n    return text.split('-')\n",
            "util.py": "def helper():\n    return 1\n",
        },
        lambda ev, ws: "dates.py" in _answer(ev),
    ),
)


@attrs.frozen
class Outcome:
    ok: bool
    seconds: float
    answered: bool
    stray_writes: int
    unmade: bool = False  # ended ok on a task asking for a change, with nothing changed
    said_done: bool = False  # ended ok, and the task's check failed
    nudges: tuple[str, ...] = ()  # the nudge rules that asked the model again, in order


def _written(ws: Path, call: dict[str, Any]) -> str:
    """The file a write or edit that went through changed, as the tools read its path
    (``project/calc.py`` in the workspace ``project`` is ``calc.py``)."""
    from harness.actors.tools import Workspace
    from harness.errors import ToolError

    path = str(call.get("arguments", {}).get("path", ""))
    jail = Workspace(ws)
    try:
        return jail.rel(jail.resolve(path, alias=call.get("name") != "write_file"))
    except ToolError:
        return path


def _base() -> Path:
    """The bench's own folder under the temp folder: the workspaces, logs and lock."""
    return Path(tempfile.gettempdir()) / "harness-bench-tasks"


def workspace(run: int) -> Path:
    """Where run *run* (from 1) works: ``project`` for the first, ``N/project`` for run N.

    One folder for every task of a run, as a user works in one project (one state after
    the system prompt, which names it, for all of them; measured: a folder per task cycled
    11 states through the 8 the model cache keeps, and every run was cold). Named
    "project": the model reads the folder's name in its prompt, and took a task's name for
    the answer. Each run at its own path: the path is the one part of the prompt that
    differs, so runs at several paths show what of a figure is the path's."""
    return _base() / "project" if run == 1 else _base() / str(run) / "project"


def _run(task: Task, env: dict[str, str], extra: list[str], run: int) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="bench-task-") as tmp:
        ws = workspace(run)
        shutil.rmtree(ws, ignore_errors=True)
        ws.mkdir(parents=True)
        for name, body in task.files.items():
            (ws / name).parent.mkdir(parents=True, exist_ok=True)
            (ws / name).write_text(body)
        home = Path(tmp) / "home"
        home.mkdir()
        cmd = [sys.executable, "-m", "harness", "-p", task.prompt]
        cmd += ["--permission-mode", "auto", "--output-format", "stream-json"]
        cmd += ["--max-turns", str(task.max_turns), *extra]
        started = time.perf_counter()
        try:
            proc = subprocess.run(
                cmd,
                cwd=ws,
                env={**env, "HARNESS_HOME": str(home)},
                capture_output=True,
                text=True,
                timeout=900,
                check=False,
            )
            out = proc.stdout
        except subprocess.TimeoutExpired as exc:
            raw = exc.stdout
            out = raw.decode(errors="replace") if isinstance(raw, bytes) else (raw or "")
        seconds = time.perf_counter() - started
        events: Events = []
        for line in out.splitlines():
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
        done = changed_a_file(events)
        writes = [
            c
            for c in calls(events)
            if c.get("name") in ("write_file", "edit_file")
            and c.get("call_id") in done
            and _written(ws, c) not in task.writes
        ]
        try:
            ok = task.check(events, ws)
        except (OSError, subprocess.SubprocessError):
            ok = False
        result = next((e for e in events if e.get("type") == "result"), {})
        unmade = bool(task.writes) and result.get("ok") is True and not changed(ws, task.files)
        # what the model did, to read afterwards (a run that succeeded may still have
        # ended without an answer)
        (_base() / task.name).mkdir(exist_ok=True)
        (_base() / task.name / f"{'ok' if ok else 'failed'}-{run}.jsonl").write_text(out)
        said_done = not ok and result.get("ok") is True
        return Outcome(
            ok,
            seconds,
            bool(answer(events).strip()),
            len(writes),
            unmade,
            said_done,
            nudged(events),
        )


def nudged(events: Events) -> tuple[str, ...]:
    """The nudge rules that asked the model again in a run, from its status events."""
    return tuple(
        e["message"]
        .removeprefix(NUDGED_PREFIX)
        .removeprefix(TAKEN_PREFIX)
        .removeprefix(KNOWN_PREFIX)
        .removeprefix(ASKED_PREFIX)
        for e in events
        if e.get("type") == "model_progress" and e.get("stage") == "nudged"
    )


def _rules(outcomes: list[Outcome]) -> str:
    """Each rule that asked in *outcomes*: in how many runs, and how many of those ended
    ok (a rule that asks on a half's tasks and never on the other's was fitted to it)."""
    fired: dict[str, list[bool]] = {}
    for o in outcomes:
        for rule in dict.fromkeys(o.nudges):
            fired.setdefault(rule, []).append(o.ok)
    if not fired:
        return "none"
    return ", ".join(f"{rule} {len(oks)} ({sum(oks)} ok)" for rule, oks in sorted(fired.items()))


def _by_path(
    part: str, tasks: list[tuple[str, Task]], results: dict[str, list[Outcome]], runs: int
) -> tuple[str, str]:
    """A part's tasks done at each run's path, and the tasks whose outcome moved with the
    path (``name 1/3``: done at one path of three)."""
    names = [t.name for p, t in tasks if p == part]
    at = [sum(results[n][i].ok for n in names) for i in range(runs)]
    moved = [n for n in names if 0 < sum(o.ok for o in results[n]) < runs]
    figure = ", ".join(f"{ok}/{len(names)}" for ok in at)
    flips = "; ".join(f"{n} {sum(o.ok for o in results[n])}/{runs}" for n in moved)
    return figure, f"moved with the path: {flips}" if moved else "no task moved with the path"


def _chosen() -> list[tuple[str, Task]]:
    """The tasks to run, each with the name of its part: ``first``, ``fresh A``,
    ``fresh B``."""
    which = os.environ.get("BENCH_SET", "all").strip().lower() or "all"
    half = os.environ.get("BENCH_HALF", "").strip().upper()
    wanted = {n for n in os.environ.get("BENCH_TASKS", "").split(",") if n}
    parts = {
        "fresh": FRESH,
        "later": LATER,
        "third": THIRD,
        "fourth": FOURTH,
        "fifth": FIFTH,
        "sixth": SIXTH,
        "seventh": SEVENTH,
        "eighth": EIGHTH,
        "ninth": NINTH,
        "tenth": TENTH,
        "eleventh": ELEVENTH,
        "twelfth": TWELFTH,
    }
    if which in WORDINGS:
        tasks = reworded_tasks(FRESH, WORDINGS[which])
        return [(f"{which} A", t) for t in tasks if not wanted or t.name in wanted]
    if which not in ("all", "first", *parts):
        raise SystemExit(
            f"BENCH_SET={which}: not one of all, first, {', '.join(parts)}, {', '.join(WORDINGS)}"
        )
    chosen: list[tuple[str, Task]] = []
    if which in ("all", "first") and not half:
        chosen += [("first", t) for t in TASKS]
    if which != "first":
        fresh = parts.get(which, FRESH)
        chosen += [(f"fresh {t.half}", t) for t in fresh if not half or t.half == half]
    return [(part, t) for part, t in chosen if not wanted or t.name in wanted]


def _figure(outcomes: list[Outcome]) -> str:
    ok = sum(o.ok for o in outcomes)
    pct = 100 * ok / len(outcomes) if outcomes else 0
    minutes = sum(o.seconds for o in outcomes) / 60
    return f"{ok}/{len(outcomes)} ({pct:.0f}%), {minutes:.1f} min"


def _one_at_a_time() -> TextIO:
    """Hold the shared folder for this run, or stop with a clear error.

    Every task runs in the same folder (see :func:`_run`); two runs at once empty and fill
    it under each other, and a model then reads the other run's files (measured: a run
    read a bug already fixed, "fixed" nothing, and counted as a task failed). The lock is
    the kernel's, so it is gone with the process however that ends."""
    base = _base()
    base.mkdir(exist_ok=True)
    held = (base / ".lock").open("w")
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        held.close()
        raise SystemExit(
            f"another `python -m bench local-tasks` is running in {base}: its tasks share "
            "one folder with this run's; wait for it to end"
        ) from None
    return held


def run() -> list[tuple[str, str, str]]:
    held = _one_at_a_time()
    try:
        return _run_all()
    finally:
        held.close()


def _run_all() -> list[tuple[str, str, str]]:
    runs = int(os.environ.get("BENCH_RUNS", "1"))
    env = dict(os.environ)
    for part in (p for p in os.environ.get("BENCH_OFF", "").split(",") if p):
        env[f"HARNESS_LOCAL_{part.strip().upper()}"] = "off"
    extra = shlex.split(os.environ.get("BENCH_ARGS", "")) or ["--provider", "local"]
    tasks = _chosen()
    results: dict[str, list[Outcome]] = {t.name: [] for _, t in tasks}
    for _, task in tasks:
        for old in (_base() / task.name).glob("*.jsonl"):
            old.unlink()
    for i in range(runs):  # round-robin, so every task sees the same machine
        for _, task in tasks:
            outcome = _run(task, env, extra, i + 1)
            results[task.name].append(outcome)
            verdict = "ok" if outcome.ok else "FAILED"
            print(f"{task.name}: {verdict} in {outcome.seconds:.0f} s", file=sys.stderr, flush=True)
    rows = []
    parts: dict[str, list[Outcome]] = {}
    for part, task in tasks:
        outcomes = results[task.name]
        parts.setdefault(part, []).extend(outcomes)
        ok = sum(o.ok for o in outcomes)
        median = statistics.median(o.seconds for o in outcomes)
        notes = [part if part == "first" else f"{part}, {task.kind}"]
        if unanswered := sum(not o.answered for o in outcomes):
            notes.append(f"{unanswered} without an answer")
        if stray := sum(o.stray_writes for o in outcomes):
            notes.append(f"{stray} writes nobody asked for")
        if unmade := sum(o.unmade for o in outcomes):
            notes.append(f"{unmade} ended ok with the change not made")
        elif said := sum(o.said_done for o in outcomes):
            notes.append(f"{said} ended ok on the task failed")
        rows.append((task.name, f"{ok}/{len(outcomes)}  {median:.0f} s", "; ".join(notes)))
    off = os.environ.get("BENCH_OFF", "")
    how = f"off: {off}" if off else "grammar and nudge on"
    for part in sorted(parts):
        rows.append((f"{part}: all tasks", _figure(parts[part]), how))
    if runs > 1:
        for part in sorted(parts):
            rows.append((f"{part}: by path", *_by_path(part, tasks, results, runs)))
    for part in sorted(parts):
        asked = sum(bool(o.nudges) for o in parts[part])
        rows.append((f"{part}: runs nudged", str(asked), _rules(parts[part])))
    every = [o for outcomes in parts.values() for o in outcomes]
    unmade = sum(o.unmade for o in every)
    rows.append(("ended ok on a change never made", str(unmade), "goal: 0"))
    said = sum(o.said_done for o in every)
    rows.append(
        (
            "ended ok on a task failed",
            str(said),
            f"of {sum(not o.ok for o in every)} failed: the run said done, the check says not",
        )
    )
    return rows
