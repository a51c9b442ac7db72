"""The rule for a new program the request asks to have written ("Can you write
tools/purposes.sh to count them from the journey log?"): before the model writes it,
the harness finds the file of its kind in the same folder that shares the most words
with the request and reads it, so the new one is written as the project writes its
programs (where the log is, what it sources, how it takes its arguments); then it asks
for the new file, bound to one ``write_file`` call."""

from __future__ import annotations

import re
from collections import Counter
from typing import ClassVar

from harness.actors.model.local._choose import stems
from harness.actors.model.local._nudge_base import FILE_NAME, HIT, Nudge, WrittenAhead
from harness.actors.model.local._turn import Turn
from harness.words import asks_to_write

__all__ = ["ReadAlike", "alike_search"]

# the kinds of file a program is written in: a folder's others of the kind show how
_PROGRAMS = frozenset(("sh", "bash", "py", "js", "mjs", "cjs", "ts", "rb", "pl", "php"))
# the stems (:func:`stems`) of a request's words that ask, not say what the program does
_ASKING_STEMS = (
    "creat write print scrip give tell show other whole were doing littl going every each "
    "exact bash node pytho pleas could would using taken come file line"
)
_ASKING = frozenset(_ASKING_STEMS.split())
_TOOLS = frozenset(("search_text", "read_file", "write_file"))


def alike_search(prompt: str) -> tuple[str, dict[str, object]] | None:
    """The new program *prompt* asks for, and the search for its kind's other files in its
    folder that hold the request's words (a regular expression of the words' stems, and
    the glob of the folder's files of that kind); ``None`` for a request for no program,
    or with fewer than two words that say what it does."""
    path = asks_to_write(prompt)
    if path is None or "." not in path.rpartition("/")[2]:
        return None
    folder, _, name = path.rpartition("/")
    kind = name.rpartition(".")[2]
    if kind not in _PROGRAMS:
        return None
    words = sorted(stems(FILE_NAME.sub(" ", prompt)) - _ASKING)
    if len(words) < 2:
        return None
    glob = f"{folder}/*.{kind}" if folder else f"*.{kind}"
    return path, {"pattern": rf"(?i)\b(?:{'|'.join(words)})", "regex": True, "glob": glob}


def _most_alike(result: str, pattern: str, path: str) -> str | None:
    """Of the files a search's *result* lists (not *path*), the one whose lines hold the
    most of the words of *pattern*, then the most lines; ``None`` for none, or a tie."""
    if result.startswith("no matches"):
        return None  # the lines listed after are the whole workspace's, of any kind
    words = re.compile(pattern)
    held: dict[str, set[str]] = {}
    lines: Counter[str] = Counter()
    for m in HIT.finditer(result):
        if m[1] == path:
            continue
        held.setdefault(m[1], set()).update(w.group(0).lower() for w in words.finditer(m[3]))
        lines[m[1]] += 1
    ranked = sorted(held, key=lambda f: (-len(held[f]), -lines[f], f))
    if not ranked:
        return None
    if len(ranked) > 1 and (len(held[ranked[0]]), lines[ranked[0]]) == (
        len(held[ranked[1]]),
        lines[ranked[1]],
    ):
        return None
    return ranked[0]


class ReadAlike(WrittenAhead):
    """A request for a new program in a folder that holds others of its kind, with
    nothing done yet: the harness searches the folder's files of that kind for the words
    of the request, reads the one that holds the most of them, and asks for the new file,
    bound to one ``write_file`` call. Where the folder holds none of the kind, two files
    tie, or the model's own call comes between, the rule stops and the model goes on.

    Measured (bench local-tasks, the minibus, half A): asked to write
    ``tools/purposes.sh``, counting the journey log's journeys and passengers by purpose,
    the 1.5B model read nothing and answered with a script that called ``read_file
    "journeys.log"`` and ``search_text`` as shell commands, and wrote no file;
    ``tools/month.sh`` beside it reads ``data/journeys.csv`` with awk, sources
    ``lib.sh`` and takes the month as its first argument, as the new one must."""

    name: ClassVar[str] = "read-alike"

    def ahead(self, turn: Turn) -> Nudge | None:
        if turn.earlier or not _TOOLS.issubset(turn.tools):
            return None
        asked = alike_search(turn.prompt)
        if asked is None:
            return None
        path, search = asked
        if not turn.steps:
            return Nudge(
                f"First, the files most like {path}: what the project's others hold.",
                "search_text",
                arguments=search,
            )
        first, last = turn.steps[0], turn.steps[-1]
        if first.name != "search_text" or dict(first.arguments) != search:
            return None
        like = _most_alike(first.result, str(search["pattern"]), path)
        if like is None or len(turn.steps) > 2:
            return None
        if last is first:
            return Nudge(f"{like} is the most like it.", "read_file", arguments={"path": like})
        if last.name != "read_file" or last.path != like or last.shown_lines is None:
            return None
        return Nudge(
            f"Now write {path} with write_file: a new file of its own that does what the "
            f"request asks. {like}, read above, shows how the project's files like it are "
            f"written; leave {like} as it is.",
            "write_file",
            instead=True,
        )
