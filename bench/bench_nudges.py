"""``python -m bench nudges``: the small model's nudge rules replayed on recorded runs.

A rule is made on one half of the fresh set; before it is run with the model, what it
would ask of every reply already recorded says how far it reaches, and whether it would
ask anything of a run that passed. Each run ``python -m bench local-tasks`` left in its
folder (the last of every task it ran; ``BENCH_RUNS``: other folders of such records,
separated by ``:``) is read back: after each call's result, the reply the model wrote
(its text as recorded, any nudged words after it included; a reply that made a call of
its own is left out) is asked of the rules as they are now, with the prompt and the calls
before it. The table says, for each half and rule, how many tasks have a reply it
answers, in runs that passed their check and in runs that failed, and names those where
the run had not recorded that rule asking there (``BENCH_RULES``: only these rules). A
new ask in a run that passed is a place to look before the model runs, not a verdict:
the record keeps a reply's text, not the reply as the rules read it then (a call a rule
wrote before any reply, a nudged reply's words), so rules that write their calls ahead
show there too. No model runs; it takes seconds.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench._local_fresh import FRESH
from bench.bench_local_tasks import _base
from harness.actors.model.local._nudge import nudge_for
from harness.actors.model.local._turn import Step, Turn
from harness.actors.tools import SMALL_MODEL_TOOLS

# the tasks named in a row, at most
_NAMED = 8


def _made_calls(events: list[dict[str, Any]], at: int) -> bool:
    """Whether the reply recorded at *at* made a call: one was asked for before the next
    reply or the end."""
    for e in events[at + 1 :]:
        if e.get("type") == "tool_call_requested":
            return True
        if e.get("type") in ("assistant_message", "result"):
            return False
    return False


def answered(events: list[dict[str, Any]], prompt: str) -> list[tuple[str, bool]]:
    """The rules that answer the replies of one recorded run (*events*) whose prompt was
    *prompt*, one a reply written after a call's result, in order, each with whether the
    run had recorded that rule asking there (its status line before the reply). A reply
    that made a call is left out, unless a rule had asked there (the call was the rule's:
    the reply before it had made none)."""
    steps: list[Step] = []
    asked: dict[str, tuple[str, dict[str, Any]]] = {}
    recorded = ""
    rules = []
    for at, e in enumerate(events):
        kind = e.get("type")
        if kind == "tool_call_requested":
            asked[str(e.get("call_id") or e.get("id"))] = (e["name"], e.get("arguments") or {})
        elif kind == "tool_call_finished":
            name, arguments = asked.get(str(e.get("call_id") or e.get("id")), (e["name"], {}))
            steps.append(Step(name, arguments, str(e.get("output") or "")))
            recorded = ""
        elif kind == "model_progress" and e.get("stage") == "nudged":
            recorded = str(e.get("message", "")).rpartition(": ")[2]
        elif kind == "assistant_message" and steps:
            if _made_calls(events, at) and not recorded:
                continue
            turn = Turn(prompt, tuple(steps), e.get("text") or "", tools=SMALL_MODEL_TOOLS)
            nudge = nudge_for(turn)
            if nudge is not None:
                rules.append((nudge.rule, nudge.rule == recorded))
    return rules


def replay_folders(bases: list[Path]) -> list[tuple[str, str, bool, list[tuple[str, bool]]]]:
    """(task, half, passed its check, the rules its replies meet) for each recorded run of
    a fresh-set task in *bases*, each run once (folders copied from one another hold the
    same runs)."""
    tasks = {t.name: t for t in FRESH}
    seen: set[str] = set()
    out = []
    for base in bases:
        for path in sorted(base.glob("*/*-*.jsonl")):
            verdict = path.name.split("-", 1)[0]
            task = tasks.get(path.parent.name)
            if task is None or verdict not in ("ok", "failed"):
                continue
            lines = path.read_text().splitlines()
            events = [json.loads(line) for line in lines if line.strip()]
            session = next((e.get("session_id") for e in events if e.get("session_id")), None)
            if session is not None:
                if session in seen:
                    continue
                seen.add(session)
            out.append((task.name, task.half, verdict == "ok", answered(events, task.prompt)))
    return out


def rows_for(
    runs: list[tuple[str, str, bool, list[tuple[str, bool]]]], only: frozenset[str] = frozenset()
) -> list[tuple[str, str, str]]:
    rows = []
    for half in sorted({r[1] for r in runs}):
        mine = [r for r in runs if r[1] == half]
        passed = sum(r[2] for r in mine)
        rows.append(
            (
                f"half {half}: runs replayed",
                str(len(mine)),
                f"{passed} passed their check, {len(mine) - passed} failed",
            )
        )
        # rule: the tasks of the runs it answers a reply of, (passed, failed), and of
        # those where the run had not recorded it asking there
        met: dict[str, list[set[str]]] = defaultdict(lambda: [set(), set(), set(), set()])
        for task, _, ok, rules in mine:
            for rule, as_recorded in rules:
                if only and rule not in only:
                    continue
                met[rule][0 if ok else 1].add(task)
                if not as_recorded:
                    met[rule][2 if ok else 3].add(task)
        for rule, (ok_tasks, failed_tasks, new_ok, new_failed) in sorted(met.items()):
            note = f"new in failed runs: {_names(new_failed)}"
            if new_ok:
                note += f"; new in runs that passed: {_names(new_ok)}"
            rows.append(
                (
                    f"half {half}: {rule}",
                    f"{len(ok_tasks)} / {len(failed_tasks)}",
                    note,
                )
            )
    return rows


def _names(tasks: set[str]) -> str:
    shown = sorted(tasks)
    more = f" and {len(shown) - _NAMED} more" if len(shown) > _NAMED else ""
    return (", ".join(shown[:_NAMED]) or "none") + more


def run() -> list[tuple[str, str, str]]:
    named = os.environ.get("BENCH_RUNS", "")
    bases = [Path(p) for p in named.split(":") if p] or [_base()]
    runs = replay_folders(bases)
    if not runs:
        where = ", ".join(str(b) for b in bases)
        return [("recorded runs", "0", f"none in {where}: run `python -m bench local-tasks`")]
    only = frozenset(r for r in os.environ.get("BENCH_RULES", "").split(",") if r)
    rows = rows_for(runs, only)
    rows.append(
        (
            "a rule's row",
            "passed / failed",
            "tasks with a reply the rule answers, in runs that passed / failed; new: where "
            "the run had not recorded it asking",
        )
    )
    return rows
