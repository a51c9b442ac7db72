"""The rule for a change that says only the value wanted ("Raise the deposit to 60
pounds.", "Calls to the stock service should be tried 5 times.", "Our mail goes out
through smtp.mailhub.example from now on."): the harness finds the one line that holds the
setting, by the words of the request and where the line sits, and writes the search, the
read and the edit itself, each as a call the user sees (and, in the terminal,
approves). What the request wants is read by :mod:`._wanted`; the numbers it says, as
:mod:`._values` reads them for ``new-value``, a change that says the value there now
too."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import ClassVar

import attrs

from harness.actors.model.local._choose import (
    MORE_PLACES,
    RECORDS,
    UNIT_STEMS,
    choose_line,
    stems,
)
from harness.actors.model.local._nudge_base import (
    CHAIN_TOOLS,
    FILE_NAME,
    HIT,
    Chosen,
    Hit,
    Nudge,
    WrittenAhead,
    chain_search,
    one_line_chain,
)
from harness.actors.model.local._nudge_changes import change_goes_in
from harness.actors.model.local._nudge_values import described_file
from harness.actors.model.local._settings import LISTS_TABLES
from harness.actors.model.local._turn import Turn
from harness.actors.model.local._wanted import (
    COMMENT_LINE,
    GIVES_NUMBER,
    SETS,
    KeyedWanted,
    ShapedWanted,
    Wanted,
    given,
    keyed_value,
    shaped_value,
    wanted_value,
)

__all__ = ["ValueWanted"]


def _holding(line: str, keys: frozenset[str], was: Decimal) -> re.Match[str] | None:
    """The one number *line* gives a name that is *was*: of several, the one named by
    one of *keys* (``"price": 4.20`` for "the price"), else the one that is *was*
    (``"price": 4.20, "left": 0`` for 4.20 said of nothing but the loaf)."""
    found = given(line, keys)
    if len(found) == 1:
        return found[0] if Decimal(found[0].group(1)) == was else None
    same = [m for m in given(line) if Decimal(m.group(1)) == was]
    return same[0] if len(same) == 1 else None


def _elsewhere(turn: Turn, search: str, value: str) -> Nudge | None:
    """Once the rule's chain changed one line, and the request says the value is held
    elsewhere too ("The screen over the counter shows the price too, so it needs changing
    there as well."): the read and the edit of the line in each other file its search
    listed that holds the value the changed line held and shares the most words with
    the request, one such line a file. ``None`` when there is none, or two tie."""
    first = chain_search(turn, search)
    written = [s for s in turn.steps if s.wrote]
    if first is None or len(written) != len({s.path for s in written}):
        return None
    old_text = str(written[0].arguments.get("old_text", "")).splitlines()
    words = stems(FILE_NAME.sub(" ", turn.prompt)) - UNIT_STEMS
    new_text = str(written[0].arguments.get("new_text", "")).splitlines()
    if not old_text or not new_text:
        return None
    changed = [
        a.group(1)
        for a, b in zip(SETS.finditer(old_text[-1]), SETS.finditer(new_text[-1]), strict=False)
        if a.group(1) != b.group(1)
    ]
    if len(changed) != 1:
        return None
    was, done = Decimal(changed[0]), {s.path for s in written}
    best: dict[str, list[tuple[int, Hit]]] = {}
    for m in HIT.finditer(first.result):
        hit = Hit(m.group(1), int(m.group(2)), m.group(3))
        held = _holding(hit.text, frozenset(words), was)
        if hit.path in done or held is None:
            continue
        if RECORDS.search(hit.path) or not change_goes_in(hit.path, turn.prompt):
            continue
        if COMMENT_LINE.match(hit.text):
            continue
        best.setdefault(hit.path, []).append((len(words & stems(hit.text)), hit))
    todo = []
    for scored in best.values():
        most = max(score for score, _ in scored)
        top = [hit for score, hit in scored if score == most]
        if most > 0 and len(top) == 1:
            todo.append(top[0])
    if not todo:
        return None
    hit, last = todo[0], turn.steps[-1]
    if last.name == "read_file" and last.path == hit.path:
        shown = [line for line in last.shown_lines or () if line.strip() == hit.text.strip()]
        if len(shown) != 1:
            return None
        number = _holding(shown[0], frozenset(words), was)
        if number is None:
            return None
        places = len(number.group(1).partition(".")[2])
        new = f"{Decimal(value):.{places}f}" if places and "." not in value else value
        made = shown[0][: number.start(1)] + new + shown[0][number.end(1) :]
        return Nudge(
            f"Write {value} on this line of {hit.path} as well.",
            "edit_file",
            arguments={"path": hit.path, "old_text": shown[0], "new_text": made},
        )
    if last.wrote:
        return Nudge(
            f"{hit.path} holds {changed[0]} too.", "read_file", arguments={"path": hit.path}
        )
    return None


def _the_one(hits: list[Hit], wanted: Wanted, say: str) -> Chosen | None:
    """Of *hits*, the one line *wanted* can be written on, or ``None``: none, or two."""
    lines = [hit for hit in hits if wanted.made(hit.text) is not None]
    if len(lines) != 1:
        return None
    return Chosen(lines[0], wanted.made, say.format(path=lines[0].path))


class ValueWanted(WrittenAhead):
    """A change request that says only the value wanted ("Raise the deposit to 60
    pounds.", "Green tea costs 5 now in the sample order."), with nothing changed yet:
    the harness writes each call itself. First the search for the lines giving a number
    to a name with a word of the request on them; then, for the one such line that
    gives one number and shares the most words with the request, the read of its file
    and the edit of that number to the value wanted. Where no line qualifies, two tie,
    or a call goes wrong, the rule stops and the model goes on.

    Measured (bench local-tasks, the fresh set, half A): told "Green tea costs 5 now in
    the sample order.", the 1.5B model read ``src/index.js`` after the search listed
    ``{ sku: 'tea-01', name: 'Green tea', price: 4.5 },`` and sent edits whose new text
    was the old, twice; told "Raise the deposit to 60 pounds.", it edited a
    ``deposit.txt`` it made up, then searched, and answered "The deposit is currently set
    to 50 pounds.\""""

    name: ClassVar[str] = "value-wanted"

    def ahead(self, turn: Turn) -> Nudge | None:
        if not CHAIN_TOOLS.issubset(turn.tools):
            return None
        wanted: Wanted | ShapedWanted | KeyedWanted | None = wanted_value(turn.prompt)
        if wanted is None:
            wanted = shaped_value(turn.prompt) or keyed_value(turn.prompt)
        search = wanted.search(turn.prompt) if wanted is not None else None
        if wanted is None or search is None:
            return None
        aim = wanted.aim if isinstance(wanted, Wanted) else wanted.value
        say = f"Write {aim} on this line of {{path}}."
        if isinstance(wanted, Wanted) and (described := described_file(turn.prompt)):
            # a file the request describes ("the hours script's default to 3 boats"):
            # the one line of it that gives a number the value can take
            # (``TOP="${1:-5}"``), which need share no word with the request, nor name
            # what the value counts ("the top 3 boats")
            alone = attrs.evolve(wanted, counts=None)
            return one_line_chain(
                turn,
                GIVES_NUMBER + LISTS_TABLES,
                f"Search the {described} file for the setting to make {aim}.",
                lambda hits, reads: (
                    choose_line(hits, reads, turn.prompt, wanted.made, say, also=wanted.also)
                    or _the_one(hits, alone, say)
                ),
                glob=f"*{described}.*",
            )
        per = wanted.per if isinstance(wanted, Wanted) else None
        unsaid = frozenset((per,)) if per else frozenset()
        stepped = isinstance(wanted, Wanted) and wanted.step is not None
        each = MORE_PLACES.search(turn.prompt) is not None and not stepped
        nudge = one_line_chain(
            turn,
            search,
            f"Search for the setting to make {aim}.",
            lambda hits, reads: choose_line(
                hits,
                reads,
                turn.prompt,
                wanted.made,
                say,
                also=wanted.also,
                unsaid=unsaid,
                each=each,
            ),
        )
        if nudge is not None or not turn.edited or not each:
            return nudge
        return _elsewhere(turn, search, wanted.value)
