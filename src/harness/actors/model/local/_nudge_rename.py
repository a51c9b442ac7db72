"""The rule for a rename asked in so many words ("Rename the method give_back to
return_bike", "Rename House.thirsty to needs_water, and update everything that calls it",
"Rename slugify to toSlug in src/format.js and src/index.js"): a rename is the same
mechanical change on every line that uses the name, so the harness writes the search for
the name, then each file's read and the edit of its lines itself, each as a call the user
sees (and, in the terminal, approves).

Measured (bench local-tasks, the fresh set, half A): told such a rename, the 1.5B model
edited a file it made up (``src/.../methods.py``, four times, to the turn limit), or
rewrote the whole function to rename its first line and wrote one of the loop's lines
twice on the way (``scripts/lib.sh``), or claimed the rename with no call."""

from __future__ import annotations

import re
from typing import ClassVar

from harness.actors.model.local._nudge_base import (
    CHAIN_TOOLS,
    FILE_NAME,
    Nudge,
    WrittenAhead,
    chain_search,
)
from harness.actors.model.local._nudge_changes import change_goes_in, still_used
from harness.actors.model.local._renames import Rename, asked_rename, named_pair
from harness.actors.model.local._turn import Turn

__all__ = ["AskedRename"]


# a search's hit: "fleet.py:35:def give_back(self, number: int, km: float) -> Bike:"
_HIT = re.compile(r"^((?:[\w.-]+/)*[\w.-]+):\d+:(.*)$", re.M)


def _files(hits: list[tuple[str, str]], rename: Rename, prompt: str) -> list[str]:
    """The files to rename in, in the order the search found them: those the prompt
    names, where it names any; else every file the search found using the name, prose
    too (a README that tells of ``give_back()``), but where the name is also a plain
    word, which prose uses in its plain sense."""
    named = [m.group(1) for m in FILE_NAME.finditer(prompt)]
    found = list(dict.fromkeys(path for path, text in hits if rename.uses(text)))
    if named:
        return [path for path in found if path in named]
    return [path for path in found if change_goes_in(path, prompt) or not rename.plain]


def _edit(path: str, lines: list[str], rename: Rename) -> dict[str, object] | None:
    """The edit_file arguments renaming the name on each of *lines* (a file's, as its
    read showed them) that uses it: one edit a line, or, where two such lines read the
    same, one edit from the first to the last; ``None`` when no line uses it."""
    using = [n for n, line in enumerate(lines) if rename.uses(line)]
    if not using:
        return None
    texts = [lines[n] for n in using]
    if len(using) == 1:
        return {"path": path, "old_text": texts[0], "new_text": rename.made(texts[0])}
    if len(set(texts)) == len(texts) and all(lines.count(t) == 1 for t in texts):
        edits = [{"old_text": t, "new_text": rename.made(t)} for t in texts]
        return {"path": path, "edits": edits}
    block = lines[using[0] : using[-1] + 1]
    made = [rename.made(line) if rename.uses(line) else line for line in block]
    return {"path": path, "old_text": "\n".join(block), "new_text": "\n".join(made)}


def _listed(paths: list[str]) -> str:
    """*paths* as a sentence lists them: "a.py", "a.py and b.py", "a.py, b.py and c.py"."""
    return paths[0] if len(paths) == 1 else f"{', '.join(paths[:-1])} and {paths[-1]}"


def _done(turn: Turn, rename: Rename, files: list[str]) -> Nudge:
    """The answer once the rule's edits renamed the name in each of *files*: what they
    did, and a file the last edit's note says still uses the name, if any."""
    answer = f"Renamed {rename.old} to {rename.new} in {_listed(files)}."
    left = still_used(turn)
    if left is not None:
        answer += f" {left.path} still uses {rename.old}: {left.lines[0]}"
    return Nudge(answer, "", answer=True)


class AskedRename(WrittenAhead):
    """A rename asked in so many words, with nothing changed yet: the harness writes each
    call itself. First the search for the name as a whole word; then, for each file it
    found the name used in (those the request names, where it names any; prose not for
    a plain word), the read of the file and one edit renaming the name on every line of
    it that uses it. Once every such file is renamed in, where the request asks nothing
    else, the answer says so (and names a file the last edit's note says still uses the
    name), with no generation: the model's own answer cost a read of every file shown,
    45 to 115 s on two busy cores.
    Where the search finds no use, a call goes wrong or the model goes its own way, the
    rule stops and the model goes on."""

    name: ClassVar[str] = "rename-asked"

    def ahead(self, turn: Turn) -> Nudge | None:
        if not CHAIN_TOOLS.issubset(turn.tools):
            return None
        asked = asked_rename(turn.prompt)
        pair = named_pair(turn.prompt) if asked is None else None
        if asked is not None:
            search, ask = asked.search, f"Search for every use of {asked.old}."
        elif pair is not None:
            search = pair.search
            ask = f"Search for {pair.one} and {pair.other}: the files use the one there now."
        else:
            return None
        if not turn.steps:
            return Nudge(ask, "search_text", arguments={"pattern": search, "regex": True})
        first = chain_search(turn, search)
        if first is None:
            return None  # the model went its own way, or a call of the rule's went wrong
        rename = asked
        if pair is not None:
            rename = pair.rename([h.group(2) for h in _HIT.finditer(first.result)])
        if rename is None:
            return None  # the files use both names, or neither
        last = turn.steps[-1]
        hits = [(h.group(1), h.group(2)) for h in _HIT.finditer(first.result)]
        written = {s.path for s in turn.steps if s.wrote}
        files = _files(hits, rename, turn.prompt)
        todo = [path for path in files if path not in written]
        if not todo:
            done = files and last.wrote and rename.alone
            return _done(turn, rename, files) if done else None
        path = todo[0]
        if last.name == "read_file" and last.path == path:
            edit = _edit(path, last.shown_lines or [], rename)
            if edit is None:
                return None
            return Nudge(
                f"Rename {rename.old} to {rename.new} on each line of {path} that uses it.",
                "edit_file",
                arguments=edit,
            )
        return Nudge(f"{path} uses {rename.old}.", "read_file", arguments={"path": path})
