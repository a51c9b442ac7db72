"""``python -m bench endings``: the honest endings replayed on the task bench's recorded runs.

An ending rule changes no run's calls, only how the run ends, so it can be measured on
runs already made: each run ``python -m bench local-tasks`` left in its folder (the last
of every task it ran) is read back (its prompt, its replies, how each call ended) through
the same record the conversation keeps (:class:`~harness.conversation._run_log.RunLog`),
and its ending asked again of the rules as they are now. The table says, for each half
of the fresh set, how many runs end otherwise than they did: a run that passed its check
and now ends not done is a rule that loses (goal: none); a run that failed its check and
ended ``ok`` that now ends not done is one that wins. Runs that ended some other way (the
output limit, the turn limit, a failure) are counted and left as they were. Needs the
recorded runs: run ``python -m bench local-tasks`` first.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from bench._local_fresh import FRESH
from bench.bench_local_tasks import _base
from harness.actors.tools import builtin_table
from harness.conversation._endings import run_ending
from harness.conversation._run_log import RunLog

# the ends a reply with no call can reach: the rules' reasons and a plain "done"
ENDED_BY_RULES = frozenset(
    {
        "done",
        "unbacked_claim",
        "described_not_made",
        "change_not_made",
        "still_failing",
        "left_broken",
        "stopped_early",
        "unfounded_answer",
        "no_answer",
        "stopped_by_cap",
    }
)


def replay(events: list[dict[str, Any]]) -> tuple[str, str] | None:
    """How a recorded run ended, and how it ends now; ``None`` for a run that did not end
    on a reply with no call."""
    result = next((e for e in events if e.get("type") == "result"), {})
    recorded = result.get("reason")
    if recorded not in ENDED_BY_RULES:
        return None
    table = builtin_table()
    prompt = next(
        (
            e["text"]
            for e in events
            if e.get("type") == "user_message" and e.get("source") == "prompt"
        ),
        "",
    )
    log = RunLog()
    for e in events:
        kind = e.get("type")
        if kind == "assistant_message":
            log.said.append(e.get("text", ""))
        elif kind == "tool_call_finished":
            log.call_finished(
                e["name"], bool(e.get("ok")), e.get("data") or {}, e.get("output") or ""
            )
    finish = "repeat_cap" if recorded == "stopped_by_cap" else "stop"
    ending = run_ending(log, table.kind_of, prompt=prompt, finish=finish)
    return recorded, ending.reason if ending else "done"


def replay_folder(base: Path) -> list[tuple[str, str, bool, str, str]]:
    """(task, half, passed its check, ended, ends now) for each recorded run in *base*."""
    halves = {t.name: t.half for t in FRESH}
    out = []
    for path in sorted(base.glob("*/*-*.jsonl")):
        verdict = path.name.split("-", 1)[0]
        if verdict not in ("ok", "failed"):
            continue
        events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        ends = replay(events)
        if ends is not None:
            task = path.parent.name
            out.append((task, halves.get(task, "-"), verdict == "ok", *ends))
    return out


def rows_for(runs: list[tuple[str, str, bool, str, str]]) -> list[tuple[str, str, str]]:
    rows = []
    for half in sorted({r[1] for r in runs}):
        mine = [r for r in runs if r[1] == half]
        passed = [r for r in mine if r[2]]
        lost = [r for r in passed if r[3] == "done" and r[4] != "done"]
        failed_ok = [r for r in mine if not r[2] and r[3] == "done"]
        won = [r for r in failed_ok if r[4] != "done"]
        freed = [r for r in mine if r[3] != "done" and r[4] == "done"]
        name = f"half {half}" if half != "-" else "other tasks"
        rows.append(
            (
                f"{name}: runs replayed",
                str(len(mine)),
                f"{len(passed)} passed their check, {len(mine) - len(passed)} failed",
            )
        )
        rows.append(
            (
                f"{name}: passed, now not done",
                str(len(lost)),
                "goal: 0. " + ", ".join(f"{r[0]} ({r[4]})" for r in lost),
            )
        )
        rows.append(
            (
                f"{name}: failed and ended ok, now not done",
                f"{len(won)}/{len(failed_ok)}",
                ", ".join(f"{r[0]} ({r[4]})" for r in won),
            )
        )
        if freed:
            rows.append(
                (
                    f"{name}: ended not done, now done",
                    str(len(freed)),
                    ", ".join(f"{r[0]} (was {r[3]}, passed: {r[2]})" for r in freed),
                )
            )
    every = Counter(r[4] for r in runs)
    rows.append(
        ("endings now", str(len(runs)), ", ".join(f"{k} {v}" for k, v in every.most_common()))
    )
    return rows


def run() -> list[tuple[str, str, str]]:
    base = _base()
    runs = replay_folder(base)
    if not runs:
        return [("recorded runs", "0", f"none in {base}: run `python -m bench local-tasks` first")]
    return rows_for(runs)
