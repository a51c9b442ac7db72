"""``python -m bench change-words``: which prompts the words hear as asking for a change.

The conversation's endings and the small model's nudges share one test of whether a
prompt asks for a change (:func:`harness.words.asks_for_change`): the endings read every
way a change is said, the nudges only the plain ones (``plainly=True``). A change
prompt it misses lets a run that changed nothing end as done, and sends no nudge to
edit; a question it hears as a change gets a push to edit and an ending that says a
change was not made.

No model runs: for each half of the fresh set, the tasks that change files (but those
that create one a prompt names, which :func:`~harness.words.asks_to_write` reads) are
counted heard, both ways, and the tasks that change nothing heard as changes, with
their names; then, for each set of half A's changes put otherwise
(:data:`bench._local_reworded.WORDINGS`), the prompts heard. It takes a second.
"""

from __future__ import annotations

from bench._local_fresh import FRESH
from bench._local_reworded import WORDINGS
from bench._local_task import Task
from harness.actors.model.local._turn import asks_new
from harness.words import asks_for_change


def a_change(task: Task) -> bool:
    """Whether *task* asks to change files that are there."""
    return bool(task.writes) and task.kind != "create" and not asks_new(task.prompt)


def run() -> list[tuple[str, str, str]]:
    rows = []
    for half in ("A", "B"):
        tasks = [t for t in FRESH if t.half == half]
        changes = [t for t in tasks if a_change(t)]
        questions = [t for t in tasks if not t.writes]
        heard = [t for t in changes if asks_for_change(t.prompt)]
        plainly = [t for t in changes if asks_for_change(t.prompt, plainly=True)]
        missed = [t.name for t in changes if t not in heard]
        wrong = [t.name for t in questions if asks_for_change(t.prompt)]
        rows += [
            (
                f"fresh set, half {half}: change prompts heard as changes",
                f"{len(heard)}/{len(changes)}",
                f"plainly (the nudges): {len(plainly)}; missed: " + (", ".join(missed) or "none"),
            ),
            (
                f"fresh set, half {half}: questions heard as changes",
                f"{len(wrong)}/{len(questions)}",
                ", ".join(wrong) or "none",
            ),
        ]
    for name, wordings in WORDINGS.items():
        said = [(task, p) for task, prompts in wordings.items() for p in prompts]
        missed = [task for task, p in said if not asks_for_change(p)]
        rows.append(
            (
                f"half A put otherwise ({name}): heard as changes",
                f"{len(said) - len(missed)}/{len(said)}",
                "missed: " + (", ".join(missed) or "none"),
            )
        )
    return rows
