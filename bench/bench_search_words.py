"""``python -m bench search-words``: where a search by a request's words sends the small model.

A request that names no file ("Raise the deposit to 60 pounds.") leaves the model to find
where the change goes. When its reply ends with nothing found, the ``nothing-found`` rule
searches the workspace for the request's words, and ``change-not-begun`` reads the file
that search found the change in (:func:`~harness.actors.model.local._nudge_changes.
_where_change_goes`): the first listed that a change may go in. search_text finds no line
holding the whole phrase, so its answer is the lines holding the most of its words
(:mod:`harness.actors.tools._search_notes`), and their order decides the file.

No model runs: for every change request of the fresh set that names no file and asks for
nothing new (the requests the rule serves), the search runs on the task's own files and
the file picked from its answer is checked against the files the task changes. The table
says, for each half, how many picks are one of them. It takes a few seconds.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

from bench._local_fresh import FRESH
from bench._local_task import Task
from harness.actors.model.local._nudge_answers import _FOLDER, _request_words
from harness.actors.model.local._nudge_changes import _where_change_goes
from harness.actors.model.local._turn import FILE_NAME, Step, Turn, asks_new
from harness.actors.tools import SMALL_MODEL_TOOLS
from harness.actors.tools._jail import Workspace
from harness.actors.tools._search import search_text


def served(task: Task) -> bool:
    """Whether *task* is a change request the search serves: it changes files, creates
    none, and its prompt names no file or folder."""
    prompt = task.prompt
    return (
        bool(task.writes)
        and task.kind != "create"
        and not asks_new(prompt)
        and FILE_NAME.search(prompt) is None
        and _FOLDER.search(prompt) is None
    )


def picked(task: Task, folder: Path) -> str | None:
    """The file the rules would read after searching *folder* for *task*'s words."""
    pattern = " ".join(_request_words(task.prompt))
    found = search_text(Workspace(folder), {"pattern": pattern}, use_rg=False).output
    step = Step("search_text", {"pattern": pattern}, found)
    turn = Turn(prompt=task.prompt, steps=(step,), reply="", tools=tuple(SMALL_MODEL_TOOLS))
    return _where_change_goes(turn)


def run() -> list[tuple[str, str, str]]:
    right: Counter[str] = Counter()
    asked: Counter[str] = Counter()
    missed: dict[str, list[str]] = {"A": [], "B": []}
    with tempfile.TemporaryDirectory(prefix="bench-search-words-") as tmp:
        folders: dict[int, Path] = {}
        for task in FRESH:
            if not served(task):
                continue
            folder = folders.get(id(task.files))
            if folder is None:
                folder = folders[id(task.files)] = Path(tmp) / str(len(folders))
                for name, body in task.files.items():
                    (folder / name).parent.mkdir(parents=True, exist_ok=True)
                    (folder / name).write_text(body)
            asked[task.half] += 1
            if picked(task, folder) in task.writes:
                right[task.half] += 1
            else:
                missed[task.half].append(task.name)
    return [
        (
            f"fresh set, half {half}: the file read after a search by the request's words",
            f"{right[half]}/{asked[half]}",
            "one the task changes; missed: " + (", ".join(missed[half]) or "none"),
        )
        for half in ("A", "B")
    ]
