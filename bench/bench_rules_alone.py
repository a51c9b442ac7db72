"""``python -m bench rules-alone``: how far the small model's rules carry a change with no model.

Before the model writes a word, a rule may know the whole call to make
(:func:`~harness.actors.model.local._nudge.known_call`): the search for a value to
change, the read of the file it is in, its edit, the next file's. Those calls are
written with no generation, so how many tasks they finish alone is a property of the
rules, not of the model, and it can be measured in seconds. For each task of the fresh
set that changes files (not those that create one), in a folder holding the task's
files, every call a rule knows is made by the tools' own code
(:mod:`bench._rules_run`: the search, read, edit and shell tools) and its result added
to the history, until no rule knows one more (or twelve calls); then the task's check
reads the folder.

The rules read a request's words, so a rule made on half A's prompts may hear them and
miss the same request put another way. Each of half A's change prompts the rules finish
alone is also run as users might put it instead (:mod:`bench._local_reworded`: other
words, another order, the value in words or with its unit), in three sets, the second
and the third each written after the rules made on the sets before it: the share of a
set no rule was made on that the rules still finish says how far their reading is
general, on the projects it was made on, before any model run.

The table gives, for each half, the tasks the rules finish alone, by kind, and where
they stop on the others: no call known from the prompt, or a handover to the model
after some calls (the model then writes the rest; what it does is ``local-tasks``'
to measure). ``BENCH_TASKS``: only these tasks (names separated by commas);
``BENCH_HALF``: only this half (``A`` or ``B``).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import attrs

from bench._local_fresh import FRESH
from bench._local_reworded import REWORDED, REWORDED_LATER, REWORDED_THIRD
from bench._local_reworded_held import (
    REWORDED_EIGHTH,
    REWORDED_ELEVENTH,
    REWORDED_FIFTH,
    REWORDED_FOURTH,
    REWORDED_NINTH,
    REWORDED_SEVENTH,
    REWORDED_SIXTH,
    REWORDED_TENTH,
    REWORDED_TWELFTH,
)
from bench._local_task import Events, Task
from bench._rules_run import run_known
from bench.bench_change_words import a_change

# the calls the rules may make in one task before the driver stops them
_MAX_CALLS = 12


@attrs.frozen
class Alone:
    """What the rules did alone with one prompt: the check's verdict, the calls made (by
    the rules that knew them), and ``stopped``, where they stopped short of an answer:
    ``""`` when a rule wrote the answer, ``"nothing known"`` when no call was known from
    the prompt, else the tool of the last call made."""

    ok: bool
    calls: tuple[str, ...]
    stopped: str


def _folder(task: Task, root: Path) -> Path:
    ws = root / "ws"
    ws.mkdir()
    for name, body in task.files.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(body)
    return ws


def alone(task: Task, prompt: str | None = None) -> Alone:
    """Run the calls the rules know for *task* (with *prompt* in place of its own), in a
    fresh folder of its files, and check the folder."""
    prompt = task.prompt if prompt is None else prompt
    with tempfile.TemporaryDirectory(prefix="bench-alone-") as tmp:
        ws = _folder(task, Path(tmp))
        made, steps, stop = run_known(ws, prompt, [], limit=_MAX_CALLS)
        events: Events = []
        for n, (tool, arguments, output) in enumerate(steps):
            call = {"call_id": f"alone-{n}", "name": tool}
            events.append({"type": "tool_call_requested", **call, "arguments": arguments})
            events.append({"type": "tool_call_finished", **call, "output": output})
        answered = stop is not None and stop.answer
        text = stop.text if stop is not None and stop.answer else ""
        events.append({"type": "result", "ok": True, "text": text})
        try:
            ok = task.check(events, ws)
        except (OSError, subprocess.SubprocessError):
            ok = False
        calls = tuple(f"{k.rule}:{k.tool}" for k in made)
        stopped = "" if answered else (made[-1].tool if made else "nothing known")
        return Alone(ok, calls, stopped)


def _chosen() -> list[Task]:
    names = {n for n in os.environ.get("BENCH_TASKS", "").split(",") if n}
    return [t for t in FRESH if a_change(t) and (not names or t.name in names)]


def _stops(results: list[Alone]) -> str:
    where = Counter(
        "no call known" if r.stopped == "nothing known" else f"after {r.stopped}"
        for r in results
        if not r.ok
    )
    return ", ".join(f"{k} {v}" for k, v in where.most_common()) or "none"


def run() -> list[tuple[str, str, str]]:
    tasks = _chosen()
    rows: list[tuple[str, str, str]] = []
    finished: dict[str, Alone] = {}
    halves = os.environ.get("BENCH_HALF", "AB")
    for half in (h for h in ("A", "B") if h in halves):
        mine = [t for t in tasks if t.half == half]
        results = {t.name: alone(t) for t in mine}
        finished.update(results)
        done = [t for t in mine if results[t.name].ok]
        rows.append(
            (
                f"fresh set, half {half}: changes the rules finish alone",
                f"{len(done)}/{len(mine)}",
                f"stopped: {_stops(list(results.values()))}",
            )
        )
        for kind in sorted({t.kind for t in mine}):
            of_kind = [t for t in mine if t.kind == kind]
            won = [t.name for t in of_kind if results[t.name].ok]
            rows.append(
                (
                    f"  half {half}, {kind}",
                    f"{len(won)}/{len(of_kind)}",
                    ", ".join(won) or "none",
                )
            )
    by_name = {t.name: t for t in tasks}
    for what, wordings in (
        ("half A, the same changes put otherwise", REWORDED),
        ("half A, put otherwise again (written after the first set's rules)", REWORDED_LATER),
        ("half A, put otherwise a third time (after the second set's rules)", REWORDED_THIRD),
        ("half A, put otherwise a fourth time (after the third set's rules)", REWORDED_FOURTH),
        ("half A, put otherwise a fifth time (after the fourth set's rules)", REWORDED_FIFTH),
        ("half A, put otherwise a sixth time (before the fifth set's misses)", REWORDED_SIXTH),
        ("half A, put otherwise a seventh time (before the sixth set's misses)", REWORDED_SEVENTH),
        ("half A, put otherwise an eighth time (before the seventh set's misses)", REWORDED_EIGHTH),
        ("half A, put otherwise a ninth time (after the seventh set's misses)", REWORDED_NINTH),
        ("half A, put otherwise a tenth time (before the ninth set's misses)", REWORDED_TENTH),
        (
            "half A, put otherwise an eleventh time (before the tenth set's misses)",
            REWORDED_ELEVENTH,
        ),
        (
            "half A, put otherwise a twelfth time (before the eleventh set's misses)",
            REWORDED_TWELFTH,
        ),
    ):
        reworded = [(by_name[n], p) for n, ps in wordings.items() if n in by_name for p in ps]
        if not reworded:
            continue
        results = [alone(t, p) for t, p in reworded]
        missed = sorted({t.name for (t, _), r in zip(reworded, results, strict=True) if not r.ok})
        rows.append(
            (
                what,
                f"{sum(r.ok for r in results)}/{len(results)}",
                f"stopped: {_stops(results)}; tasks missed: " + (", ".join(missed) or "none"),
            )
        )
    return rows
