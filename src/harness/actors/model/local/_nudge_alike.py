"""The rule for a new program the request asks to have written ("Can you write
tools/purposes.sh to count them from the journey log?"): before the model writes it,
the harness searches the files of its kind in the same folder for the request's words,
so the new one is written as the project writes its programs (where the log is, what
they source, which field holds what); then it asks for the new file, bound to one
``write_file`` call."""

from __future__ import annotations

from typing import ClassVar

from harness.actors.model.local._choose import stems
from harness.actors.model.local._nudge_base import FILE_NAME, HIT, Nudge, WrittenAhead
from harness.actors.model.local._turn import Turn
from harness.words import asks_to_write

__all__ = ["ReadAlike", "alike_search"]

# the kinds of file a program is written in: a folder's others of the kind show how
_PROGRAMS = frozenset(("sh", "bash", "py", "js", "mjs", "cjs", "ts", "rb", "pl", "php"))
# the stems (:func:`stems`) of a request's words that ask, or that any program says
# ("a function returning the sum of an array"), not what this project's programs do
_ASKING_STEMS = (
    "creat write print scrip give tell show other whole were doing littl going every each "
    "exact bash node pytho pleas could would using taken come file line "
    "funct retur expor impor modul numbe array strin class objec test unitt check value"
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


def _shows_alike(result: str, path: str) -> bool:
    """Whether a search's *result* lists lines of files other than *path* (a search that
    matched nothing lists the whole workspace's lines holding its words, of any kind)."""
    if result.startswith("no matches"):
        return False
    return any(m[1] != path for m in HIT.finditer(result))


class ReadAlike(WrittenAhead):
    """A request for a new program in a folder that holds others of its kind, with
    nothing done yet: the harness searches the folder's files of that kind for the words
    of the request and, where it finds lines of them, asks for the new file, bound to
    one ``write_file`` call. Where the folder holds none of the kind, or the model's own
    call comes first, the rule stops and the model goes on.

    Measured (bench local-tasks, the minibus, half A): asked to write
    ``tools/purposes.sh``, counting the journey log's journeys and passengers by purpose,
    the 1.5B model looked at nothing and answered with a script that called ``read_file
    "journeys.log"`` and ``search_text`` as shell commands, and wrote no file. Shown the
    whole of ``tools/month.sh`` beside it (which reads ``data/journeys.csv`` with awk) and
    asked for the new file, it wrote month.sh again, word for word; the search shows the
    lines that speak of the journeys, the log and its fields, and no whole file to copy."""

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
                f"First, the lines of the files most like {path} that speak of what it does.",
                "search_text",
                arguments=search,
            )
        if len(turn.steps) > 1:
            return None
        first = turn.steps[0]
        if first.name != "search_text" or dict(first.arguments) != search:
            return None
        if not _shows_alike(first.result, path):
            return None
        folder = path.rpartition("/")[0] or "the project"
        return Nudge(
            f"Now write {path} with write_file: a new file of its own that does what the "
            f"request asks. The lines above show how the programs in {folder} are written "
            "(what they read, what they use); write the new one's own lines.",
            "write_file",
            instead=True,
        )
