"""``python -m bench described-programs``: which program ``described-program`` runs.

A question may leave its answer to a program it describes and does not name ("The run
sheet works it out.", "Can you run the timetable screen and tell me …"). When the small
model's reply ends with no command run, the ``described-program`` rule lists the folder's
files and then writes the run of the one script most like the description
(:class:`~harness.actors.model.local._nudge_runs.DescribedProgram`).

No model runs: for every question of the fresh set with a run among its reference calls,
the rule is asked as if the model had answered after listing the task's files, and the
command it writes is checked against the task's run. The table says, for each half, how
many questions the rule hears and how many of its runs are the task's. It takes a second.
"""

from __future__ import annotations

from bench._local_fresh import FRESH
from bench._local_task import Task
from harness.actors.model.local._nudge_runs import DescribedProgram
from harness.actors.model.local._turn import Step, Turn
from harness.actors.tools import SMALL_MODEL_TOOLS


def wanted(task: Task) -> str | None:
    """The script (or module) the task's reference run runs, if it runs one."""
    runs = [c.partition(":")[2] for c in task.solve_calls or () if c.startswith("run_cmd:")]
    return runs[0] if runs else None


def ran(task: Task) -> str | None:
    """The command the rule writes for *task* after a listing of its files (``""`` for a
    run of the model's choosing), or ``None`` when the rule does not hear it."""
    listing = "\n".join(sorted(task.files))
    step = Step("find_files", {"pattern": "*"}, listing)
    turn = Turn(prompt=task.prompt, steps=(step,), reply="", tools=tuple(SMALL_MODEL_TOOLS))
    nudge = DescribedProgram().check(turn)
    if nudge is None:
        return None
    return str((nudge.arguments or {}).get("command", ""))


def run() -> list[tuple[str, str, str]]:
    rows = []
    for half in ("A", "B"):
        asked = [t for t in FRESH if t.half == half and not t.writes and wanted(t)]
        heard = right = 0
        wrong: list[str] = []
        for task in asked:
            command = ran(task)
            if command is None:
                continue
            heard += 1
            if command.split()[-1:] == [wanted(task)]:
                right += 1
            else:
                wrong.append(f"{task.name} ({command or 'the model to choose'})")
        rows.append(
            (
                f"fresh set, half {half}: questions a run answers that the rule hears",
                f"{heard}/{len(asked)}",
                f"the task's program run: {right}; other: " + (", ".join(wrong) or "none"),
            )
        )
    return rows
